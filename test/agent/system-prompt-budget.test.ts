/**
 * The system prompt's action lines: clio's own protocols whole; protocols from outside (MCP
 * servers, shell protocols) within one budget shared fairly among them.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fairShares, OUTSIDE_PROMPT_TOKENS, protocolSections } from "../../src/agent/prompt-actions.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { estimateTokens } from "../../src/providers/tokens.js";
import { defineAction, parameter, type ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { ProtocolRegistry, loadBuiltinProtocols } from "../../src/registry.js";

/** A protocol shaped like an MCP server: `tools` tools with long, multi-line descriptions. */
function server(name: string, tools: number, descriptionWords = 200, lead = "carefully and completely"): ProtocolDefinition {
  const actions = Object.fromEntries(
    Array.from({ length: tools }, (_, index) => [
      `${name.toLowerCase()}_tool_${index}`,
      defineAction({
        summary: `Does thing number ${index} to the named item, ${lead}.\nIt also explains at great length ${"why ".repeat(descriptionWords)}`,
        permission: "read",
        parameters: { item: parameter.text("The item"), depth: parameter.word("How deep", z.string().optional()) },
        describe: () => "x",
        handler: async () => ({ output: "" }),
      }),
    ]),
  );
  return { name, summary: `Tools of the MCP server ${name.toLowerCase()} (${tools} tools).`, actions, fromOutside: true };
}

const entries = (protocols: ProtocolDefinition[]) => protocols.map((protocol) => ({ protocol, actions: Object.entries(protocol.actions) }));
const budgetCharacters = Math.floor(OUTSIDE_PROMPT_TOKENS * 3.4);

describe("protocols from outside share one budget", () => {
  it("several servers with large tool lists: within the budget in characters and tokens, shared fairly, the small ones whole", async () => {
    const small = server("SMALL", 3);
    const big = ["ALPHA", "BETA", "GAMMA", "DELTA"].map((name) => server(name, 60));
    const huge = server("HUGE", 500, 10);
    const sections = protocolSections(entries([small, ...big, huge]));
    const total = sections.join("\n");
    expect(total.length).toBeLessThanOrEqual(budgetCharacters);
    expect(await estimateTokens(total)).toBeLessThanOrEqual(OUTSIDE_PROMPT_TOKENS);
    // The small server needs less than an equal share: it is listed whole, descriptions and all.
    expect(sections[0]).toBe(
      [
        "SMALL — Tools of the MCP server small (3 tools).",
        "  small_tool_0 item depth? — Does thing number 0 to the named item, carefully and completely",
        "  small_tool_1 item depth? — Does thing number 1 to the named item, carefully and completely",
        "  small_tool_2 item depth? — Does thing number 2 to the named item, carefully and completely",
      ].join("\n"),
    );
    // The others share the rest equally: each lists some tools, names the rest and says where to see them all.
    const shares = sections.slice(1).map((section) => section.length);
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThan(120);
    for (const [index, name] of ["ALPHA", "BETA", "GAMMA", "DELTA", "HUGE"].entries()) {
      const section = sections[index + 1]!;
      expect(section).toMatch(new RegExp(`^${name} — .*\\n {2}${name.toLowerCase()}_tool_0 item depth\\? — `));
      expect(section).toMatch(new RegExp(`\\n {2}\\(\\d+ more actions: ${name.toLowerCase()}_tool_\\d+, .*; clio protocols ${name} shows them all\\)$`));
      expect(section).not.toContain("why why");
    }
  });

  it("just over the budget: descriptions are shortened, every action is still listed", () => {
    const lead = "carefully and completely, in the order that the owner of the item asked for it";
    const protocols = [server("ONE", 25, 200, lead), server("TWO", 25, 200, lead)];
    const sections = protocolSections(entries(protocols));
    expect(sections.join("\n").length).toBeLessThanOrEqual(budgetCharacters);
    for (const [index, section] of sections.entries()) {
      const name = protocols[index]!.name;
      expect(section.split("\n")[0]).toBe(`${name} — Tools of the MCP server ${name.toLowerCase()} (25 tools). (descriptions shortened; clio protocols ${name} shows them all)`);
      expect(section.split("\n")).toHaveLength(26);
      // Each description is its first 59 characters and an ellipsis.
      expect(section).toMatch(new RegExp(`\\n {2}${name.toLowerCase()}_tool_24 item depth\\? — Does thing number 24 to the named item, carefully and .{5}…$`));
    }
  });

  it("under the budget, every protocol from outside is listed whole", () => {
    const sections = protocolSections(entries([server("ONE", 5), server("TWO", 5)]));
    expect(sections.join("\n")).not.toMatch(/more action|shortened/);
    expect(sections[1]).toContain("  two_tool_4 item depth? — Does thing number 4 to the named item, carefully and completely");
  });

  it("twenty servers of a hundred tools each: each is still named with a line that says where to see its actions", () => {
    const many = Array.from({ length: 20 }, (_, index) => server(`S${index}`, 100));
    const sections = protocolSections(entries(many));
    for (const [index, section] of sections.entries()) expect(section).toMatch(new RegExp(`^S${index} — [\\s\\S]*clio protocols S${index} shows them all\\)$`));
    // Each section is its header and one line: 20 servers cannot be shown in less.
    expect(sections.every((section) => section.split("\n").length <= 3)).toBe(true);
  });

  it("fair shares: a need under an equal part is met whole, the rest is split evenly", () => {
    expect(fairShares([100, 5000, 5000], 3000)).toEqual([100, 1450, 1450]);
    expect(fairShares([10, 20], 3000)).toEqual([10, 20]);
    expect(fairShares([], 3000)).toEqual([]);
  });
});

describe("the system prompt", () => {
  it("lists clio's own protocols whole beside a big server, and the server within the budget", async () => {
    const registry = await loadBuiltinProtocols();
    registry.register(server("BIG", 120));
    const prompt = buildSystemPrompt({ registry });
    const end = "clio protocols BIG shows them all)";
    const section = prompt.slice(prompt.indexOf("BIG — "), prompt.indexOf(end) + end.length);
    expect(section).toMatch(/\n {2}\(\d+ more actions: big_tool_\d+, /);
    expect(section.length).toBeLessThanOrEqual(budgetCharacters);
    expect(section).toMatch(/\n {2}big_tool_0 item depth\? — Does thing number 0 to the named item, carefully and .{6}…\n/);
    for (const protocol of (await loadBuiltinProtocols()).all()) {
      for (const name of Object.keys(protocol.actions)) expect(prompt).toMatch(new RegExp(`\\n {2}${name}[ \\n]`));
    }
  });

  it("keeps a small protocol from outside whole", () => {
    const prompt = buildSystemPrompt({ registry: new ProtocolRegistry([server("BIG", 3)]) });
    expect(prompt).toContain("  big_tool_2 item depth? — Does thing number 2");
    expect(prompt).not.toContain("more actions");
  });
});
