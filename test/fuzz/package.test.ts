/**
 * Issue 21 (10): `clio/fuzz` from the installed package — `npm pack`, the tarball unpacked into a
 * temporary project's node_modules (offline: its own dependencies are linked from this checkout),
 * and a protocol author's test importing it by the package name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { temporaryFolder } from "../support/workspace.js";
import { repositoryRoot } from "../replay/shipped-scripts.js";

const run = promisify(execFile);
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let project: string;

/** `npm pack`, and the tarball unpacked as node_modules/clio of a new project, clio's dependencies linked beside it as an install would put them. */
async function installPacked(): Promise<string> {
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", folder.path], { cwd: repositoryRoot, maxBuffer: 64 * 1024 * 1024 });
  const tarball = path.join(folder.path, JSON.parse(stdout)[0].filename);
  const root = path.join(folder.path, "project");
  const installed = path.join(root, "node_modules", "clio");
  await mkdir(installed, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
  const manifest = JSON.parse(await readFile(path.join(repositoryRoot, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  // The project's own tools: TypeScript and Node's types, as a TypeScript project has them.
  for (const name of [...Object.keys(manifest.dependencies), "typescript", "@types/node"]) {
    const link = path.join(root, "node_modules", name);
    await mkdir(path.dirname(link), { recursive: true });
    await symlink(path.join(repositoryRoot, "node_modules", name), link);
  }
  return root;
}

beforeAll(async () => {
  if (!existsSync(path.join(repositoryRoot, "dist", "fuzz.js"))) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  folder = await temporaryFolder("clio-package-");
  project = await installPacked();
}, 240_000);
afterAll(async () => {
  await folder.remove();
});

describe("clio/fuzz from the packed package", () => {
  it("imports by the package name and runs the arbitraries and laws in a protocol author's test", async () => {
    await writeFile(
      path.join(project, "notes.test.mjs"),
      `import fc from "fast-check";
import { z } from "zod";
import { assertGrammarHolds, assertProtocolHolds, commandArbitrary, FuzzLawError, printableCommandArbitrary } from "clio/fuzz";

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
const lines = fc.sample(commandArbitrary({ protocol: notes, action: "get" }), { numRuns: 5, seed: 1 }).map(({ text }) => text);
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

  it("ships type declarations: a TypeScript protocol author's file type-checks with tsc, and misuse is a type error", async () => {
    // An ES module project, as clio/fuzz is one (a CommonJS one would see fast-check's CommonJS types beside clio's ES ones).
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "my-protocol", private: true, type: "module" }));
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: false, types: ["node"] },
        files: ["notes.test.ts", "mistaken.ts"],
      }),
    );
    await writeFile(
      path.join(project, "notes.test.ts"),
      `import fc from "fast-check";
import { z } from "zod";
import {
  assertProtocolHolds,
  chunkingArbitrary,
  commandArbitrary,
  defineAction,
  defineProtocol,
  type GeneratedCommand,
  type GeneratedDocument,
  documentArbitrary,
  parameter,
  ProtocolError,
  scriptArbitrary,
  type ProtocolDefinition,
} from "clio/fuzz";

export const notes: ProtocolDefinition = defineProtocol({
  name: "NOTES",
  summary: "Notes in memory.",
  actions: {
    get: defineAction<{ id: string; count: number | undefined }>({
      summary: "Read a note.",
      permission: "read",
      parameters: { id: parameter.word("id", z.string().min(1)), count: parameter.integer("how many", { min: 1, max: 3 }) },
      describe: (args) => \`Reading \${args.id}\`,
      handler: async (args) => {
        if (args.id === "gone") throw new ProtocolError("not_found", "No such note.", "Save it first.");
        return { output: \`note \${args.id}\` };
      },
    }),
  },
});

const commands: fc.Arbitrary<GeneratedCommand> = commandArbitrary({ protocol: notes, action: "get", validOnly: true });
const counts: (string | undefined)[] = fc.sample(commands, 5).map(({ command }) => command.args.count);
const scripts: fc.Arbitrary<string[]> = scriptArbitrary({ protocol: notes, maxCommands: 2 });
const chunks: fc.Arbitrary<string[]> = chunkingArbitrary({ text: "[NOTES:action=get:id=a]" });
const documents: fc.Arbitrary<GeneratedDocument> = documentArbitrary({ maxPieces: 4 });
const done: Promise<void> = assertProtocolHolds(notes, { runs: 10, seed: 1 });

// @ts-expect-error: validOnly is a boolean
commandArbitrary({ protocol: notes, validOnly: "yes" });
// @ts-expect-error: one option bag, not positional arguments
commandArbitrary("NOTES", "get", notes.actions.get);
// @ts-expect-error: a generated command's text is a string
const wrong: number = fc.sample(commands, 1)[0]!.text;

export { counts, scripts, chunks, documents, done, wrong };
`,
    );
    // The same declarations refuse a mistake: a second file with one is checked in the same tsc run
    // (one run instead of two: most of its time is reading the declarations).
    await writeFile(path.join(project, "mistaken.ts"), `import { commandArbitrary } from "clio/fuzz";\ncommandArbitrary({ protocl: 1 });\n`);
    const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
    const output = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
    expect(output).not.toContain("notes.test.ts");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^mistaken\.ts\(2,\d+\): error TS\d+: Object literal may only specify known properties, .*'protocl' does not exist in type 'CommandOptions'/);
  }, 240_000);
});
