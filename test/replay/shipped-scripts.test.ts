import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";
import { formatDifferences } from "../../src/replay/difference-report.js";
import { normalisingOf, parseExpectationFile } from "../../src/replay/expectations.js";
import { checkRun, runScript } from "../../src/replay/run-script.js";
import { temporaryFolder } from "../support/workspace.js";
import { scriptNameFor, scriptsFolder, scriptsHome, shippedScripts } from "./shipped-scripts.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let env: NodeJS.ProcessEnv;
let registry: ProtocolRegistry;
beforeAll(async () => {
  folder = await temporaryFolder("clio-shipped-");
  env = await scriptsHome(folder.path);
  registry = await loadBuiltinProtocols();
});
afterAll(async () => {
  await folder.remove();
});

describe("shipped scripts", () => {
  it("include one script with expectations per registered protocol", () => {
    const missing = registry.names().filter((name) => !existsSync(path.join(scriptsFolder, scriptNameFor(name))));
    expect(missing, `protocols without a script in sessions/scripts (see docs/scripts.md)`).toEqual([]);
    for (const script of shippedScripts()) expect(existsSync(script.expectations), `${script.expectations} is missing`).toBe(true);
  });

  for (const script of shippedScripts()) {
    it(`${script.name} replays in a fresh copy of its fixture exactly as recorded`, async () => {
      const text = await readFile(script.script, "utf8");
      const expectations = parseExpectationFile(await readFile(script.expectations, "utf8"), script.expectations);
      const run = await runScript(text, { freshCopy: script.fixture, permissionMode: "yolo", registry, env, normalising: normalisingOf(expectations, script.expectations) });
      const differences = checkRun(run, expectations, path.basename(script.script));
      expect(formatDifferences(differences, { script: script.script, expectations: script.expectations })).toBe("");
      expect(run.expected.length).toBeGreaterThan(0);
    });
  }
});
