import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { protocolsMarkdown } from "../../src/cli/protocols-command.js";
import { loadBuiltinProtocols } from "../../src/registry.js";

const root = path.resolve(import.meta.dirname, "../..");
const clio = (...args: string[]) => execFileSync(process.execPath, [path.join(root, "dist/clio.cjs"), ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });

describe("clio protocols", () => {
  it("lists every registered protocol with every action and its parameters", async () => {
    const registry = await loadBuiltinProtocols();
    const shown = clio("protocols");
    for (const protocol of registry.all()) {
      expect(shown).toContain(`${protocol.name} — ${protocol.summary}`);
      for (const [name, action] of Object.entries(protocol.actions)) {
        expect(shown).toContain(`  ${name} (`);
        for (const key of Object.keys(action.parameters)) expect(shown).toMatch(new RegExp(`\\n {6}${key}\\??\\s`));
      }
    }
  });

  it("writes markdown with a section per protocol and a table per action", async () => {
    const registry = await loadBuiltinProtocols();
    const markdown = clio("protocols", "--markdown");
    for (const protocol of registry.all()) expect(markdown).toContain(`## ${protocol.name}\n`);
    expect(markdown).toContain("| `path` | text | yes |");
  });

  it("docs/protocols.md says what the registry says (npm run build rewrites it)", async () => {
    const registry = await loadBuiltinProtocols();
    const written = readFileSync(path.join(root, "docs/protocols.md"), "utf8");
    expect(written, "docs/protocols.md is out of date: run npm run build").toBe(protocolsMarkdown(registry.all()));
  });

  it("refuses an unknown protocol name, listing the known ones", () => {
    expect(() => clio("protocols", "FTP")).toThrow(/no protocol named FTP; known: EXEC, FILE_OP/);
  });
});
