/**
 * Issue 21 (10): `clio/fuzz` from the installed package — `npm pack`, the tarball unpacked into a
 * temporary project's node_modules (offline: its own dependencies are linked from this checkout),
 * and a protocol author's test importing it by the package name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { temporaryFolder } from "../support/workspace.js";
import { repositoryRoot } from "../replay/shipped-scripts.js";

const run = promisify(execFile);
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  if (!existsSync(path.join(repositoryRoot, "dist", "fuzz.js"))) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  folder = await temporaryFolder("clio-package-");
});
afterAll(async () => {
  await folder.remove();
});

describe("clio/fuzz from the packed package", () => {
  it("imports by the package name and runs the arbitraries and laws in a protocol author's test", async () => {
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", folder.path], { cwd: repositoryRoot, maxBuffer: 64 * 1024 * 1024 });
    const tarball = path.join(folder.path, JSON.parse(stdout)[0].filename);
    const project = path.join(folder.path, "project");
    const installed = path.join(project, "node_modules", "clio");
    await mkdir(installed, { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    for (const name of ["fast-check", "zod"]) await symlink(path.join(repositoryRoot, "node_modules", name), path.join(project, "node_modules", name));
    await writeFile(
      path.join(project, "notes.test.mjs"),
      `import fc from "fast-check";
import { z } from "zod";
import { assertGrammarHolds, assertProtocolHolds, commandForAction, FuzzLawError, printableCommandArbitrary } from "clio/fuzz";

const word = (description, schema) => ({ kind: "word", description, schema });
const notes = {
  name: "NOTES",
  summary: "Notes in memory.",
  actions: {
    get: { summary: "Read a note.", permission: "read", parameters: { id: word("id", z.string().min(1)) }, describe: (args) => "Reading " + args.id,
      handler: async (args) => ({ output: "note " + args.id }) },
    crash: { summary: "Throws.", permission: "read", parameters: { count: word("count", z.coerce.number().int().min(1).max(3)) }, describe: () => "Crashing",
      handler: async () => { throw new TypeError("untyped"); } },
  },
};
const lines = fc.sample(commandForAction("NOTES", "get", notes.actions.get), { numRuns: 5, seed: 1 });
if (!lines.every((line) => line.startsWith("[NOTES:action=get"))) throw new Error("bad command " + lines);
if (fc.sample(printableCommandArbitrary(), 3).length !== 3) throw new Error("no printable commands");
await assertGrammarHolds({ runs: 20, seed: 1 });
try {
  await assertProtocolHolds(notes, { runs: 30, seed: 1 });
  console.log("no failure found");
} catch (error) {
  if (!(error instanceof FuzzLawError)) throw error;
  console.log(error.message);
}
`,
    );
    // The kept reproduction sandbox lands in this test's folder.
    const result = await run(process.execPath, ["notes.test.mjs"], { cwd: project, env: { ...process.env, TMPDIR: folder.path } });
    expect(result.stdout).toMatch(/^NOTES failed its robustness property \(seed 1\):\nNOTES\.crash at 1:1: an untyped exception escaped the handler/);
    expect(result.stdout).toMatch(/reproduce it: HOME=\S+ CLIO_HOME=\S+ clio replay \S+case\.md --workspace \S+ --permission-mode yolo/);
  }, 60_000);
});
