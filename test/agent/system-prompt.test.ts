import { describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import { loadBuiltinProtocols } from "../../src/registry.js";

describe("the system prompt", () => {
  it("leaves out protocols and actions a deny rule always refuses, and uses the transcript's role names", async () => {
    const registry = await loadBuiltinProtocols();
    const policy = new PermissionPolicy("ask", { deny: ["WEB", "FILE_OP:delete", "EXEC:run:rm *"] });
    const prompt = buildSystemPrompt({ registry, offers: (protocol, action) => !policy.refusesAll(protocol, action) });
    expect(prompt).not.toContain("WEB — ");
    expect(prompt).toContain("FILE_OP — ");
    expect(prompt).not.toMatch(/^ {2}delete /m);
    expect(prompt).toMatch(/^ {2}run command/m);
    expect(prompt).toContain("Assistant: Let me look.");
    expect(prompt).not.toContain("You:");
  });

  it("names every registered action with its parameters, optional ones marked", async () => {
    const registry = await loadBuiltinProtocols();
    const prompt = buildSystemPrompt({ registry, workspaceName: "project" });
    for (const protocol of registry.all()) {
      expect(prompt).toContain(`${protocol.name} — `);
      for (const [name, action] of Object.entries(protocol.actions)) {
        const parameters = Object.entries(action.parameters).map(([key, definition]) => `${key}${definition.schema.safeParse(undefined).success ? "?" : ""}`);
        expect(prompt).toContain(`  ${[name, ...parameters].join(" ")} — `);
      }
    }
    expect(prompt).toContain("Never write a [RESULT …] block yourself");
    expect(prompt).toContain("commands inside ``` or ` are examples and never run");
  });

  it("stays within 1,500 tokens, so small local models keep room to work", async () => {
    const prompt = buildSystemPrompt({ registry: await loadBuiltinProtocols(), workspaceName: "project" });
    expect(encode(prompt).length).toBeLessThanOrEqual(1500);
  });

  it("adds project instructions and memories when there are some", async () => {
    const prompt = buildSystemPrompt({
      registry: await loadBuiltinProtocols(),
      instructions: [{ file: "CLIO.md", text: "Use tabs.\n" }],
      memories: ["deploy: make deploy"],
    });
    expect(prompt).toContain("## Project instructions (CLIO.md)\nUse tabs.");
    expect(prompt).toContain("## Remembered from earlier sessions\n- deploy: make deploy");
  });
});
