import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { defineAction, parameter, type ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { ProtocolRegistry, loadBuiltinProtocols } from "../../src/registry.js";

/** A protocol shaped like a big MCP server: many tools with long, multi-line descriptions. */
function bigServer(tools: number): ProtocolDefinition {
  const actions = Object.fromEntries(
    Array.from({ length: tools }, (_, index) => [
      `tool_${index}`,
      defineAction({
        summary: `Does thing number ${index} to the named item, carefully and completely.\nIt also explains at great length ${"why ".repeat(200)}`,
        permission: "read",
        parameters: { item: parameter.text("The item"), depth: parameter.word("How deep", z.string().optional()) },
        describe: () => "x",
        handler: async () => ({ output: "" }),
      }),
    ]),
  );
  return { name: "BIG", summary: "Tools of the MCP server big (60 tools).", actions };
}

describe("the system prompt's action lines", () => {
  it("give each action its first sentence and keep a big protocol within its budget, naming the rest", async () => {
    const registry = await loadBuiltinProtocols();
    registry.register(bigServer(60));
    const prompt = buildSystemPrompt({ registry });
    const section = prompt.slice(prompt.indexOf("BIG — "), prompt.indexOf("\n", prompt.indexOf("more actions")));
    expect(section).toContain("  tool_0 item depth? — Does thing number 0 to the named item, carefully and completely\n");
    expect(section).not.toContain("why why");
    expect(section.length).toBeLessThan(2_400 + 600);
    expect(section).toMatch(/\n {2}\(\d+ more actions: tool_\d+, tool_\d+, .*\)$/);
    // The built-in protocols are far under the budget: every one of their actions is listed.
    for (const protocol of (await loadBuiltinProtocols()).all()) {
      for (const name of Object.keys(protocol.actions)) expect(prompt).toMatch(new RegExp(`\\n {2}${name}[ \\n]`));
    }
  });

  it("keeps a small protocol whole", () => {
    const prompt = buildSystemPrompt({ registry: new ProtocolRegistry([bigServer(3)]) });
    expect(prompt).toContain("  tool_2 item depth? — Does thing number 2");
    expect(prompt).not.toContain("more actions");
  });
});
