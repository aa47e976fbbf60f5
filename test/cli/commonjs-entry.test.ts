/**
 * The installed command, dist/clio.cjs: a CommonJS entry that loads the cached commands itself
 * (no ES module on the way) and the other subcommands as the ES-module build's chunks.
 */
import { execFile } from "node:child_process";
import { utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { bundledCli, freshCliFolders, isolatedEnv, repositoryRoot, runCli } from "./support.js";

const folders = freshCliFolders(async (workspace) => {
  await writeFile(path.join(workspace, "retry.ts"), "export function retryWithBackoff(task: () => void) {\n  task();\n}\n");
  await writeFile(path.join(workspace, "search.clio"), '[RAG:action=search:query="retry backoff"]\n');
  await writeFile(path.join(workspace, "read.clio"), '[FILE_OP:action=read:path="retry.ts"]\n');
  await writeFile(path.join(workspace, "write.clio"), '[FILE_OP:action=write:path="notes.txt":content="kept"]\n');
});

/** Which of node's ES-module loader parts a process loaded, printed as it exits (a preload). */
const ESM_WITNESS = 'process.on("exit", () => process._rawDebug("esm: " + process.moduleLoadList.filter((name) => /esm\\/(module_job|translators)/.test(name)).join(",")));\n';

/** Whether the process loaded node:crypto, printed as it exits (a preload). */
const CRYPTO_WITNESS = 'process.on("exit", () => process._rawDebug("crypto: " + process.moduleLoadList.includes("NativeModule crypto")));\n';

describe("dist/clio.cjs", () => {
  it("is the package's bin, and runs a replay of a RAG search or a file read without loading an ES module", async () => {
    const packageJson = createRequire(import.meta.url)(path.join(repositoryRoot, "package.json")) as { bin: Record<string, string> };
    expect(path.join(repositoryRoot, packageJson.bin.clio!)).toBe(bundledCli);
    const witness = path.join(folders.home.path, "esm-witness.cjs");
    await writeFile(witness, ESM_WITNESS);
    const env = isolatedEnv(folders.home.path);
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--require", witness, bundledCli, "replay", "search.clio"], { cwd: folders.workspace.path, env });
    expect(stdout).toContain("retry.ts");
    expect(stderr).toContain("esm: \n");
    const read = await promisify(execFile)(process.execPath, ["--require", witness, bundledCli, "replay", "read.clio"], { cwd: folders.workspace.path, env });
    expect(read.stdout).toContain("retryWithBackoff");
    expect(read.stderr).toContain("esm: \n");
    // The same witness sees the ES-module loader at work for a subcommand that is a chunk of that build.
    const chunked = await promisify(execFile)(process.execPath, ["--require", witness, bundledCli, "protocols"], { cwd: folders.workspace.path, env });
    expect(chunked.stderr).toMatch(/esm: \S/);
  });

  it("and the ES-module entry dist/clio.js run the same replay", async () => {
    const env = isolatedEnv(folders.home.path);
    // The first search builds the index; the two compared find it built.
    expect((await runCli(["replay", "search.clio"], { cwd: folders.workspace.path, env })).code).toBe(0);
    const fromCommonJs = await runCli(["replay", "search.clio"], { cwd: folders.workspace.path, env });
    const fromModule = await promisify(execFile)(process.execPath, [path.join(repositoryRoot, "dist", "clio.js"), "replay", "search.clio"], { cwd: folders.workspace.path, env });
    expect(fromCommonJs.code).toBe(0);
    const withoutTimes = (text: string) => text.replace(/\d+(\.\d+)? m?s\b/g, "");
    expect(withoutTimes(fromModule.stdout)).toBe(withoutTimes(fromCommonJs.stdout));
    expect(fromCommonJs.stdout).toContain("retryWithBackoff");
  });

  it("loads node:crypto only for work that needs it: a replay of a read or a search does not, one that writes a file does", async () => {
    const witness = path.join(folders.home.path, "crypto-witness.cjs");
    await writeFile(witness, CRYPTO_WITNESS);
    const env = isolatedEnv(folders.home.path);
    const replay = (script: string, ...flags: string[]) =>
      promisify(execFile)(process.execPath, ["--require", witness, bundledCli, "replay", script, ...flags], { cwd: folders.workspace.path, env });
    // The first search builds the index (its segment files have random names) and the next stamps
    // the folder it saw changed; after them a search only reads. The workspace is made an hour old
    // first: a folder or file changed within the last moments is looked at again.
    await replay("search.clio");
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of [".", "retry.ts", "search.clio", "read.clio", "write.clio"]) await utimes(path.join(folders.workspace.path, name), hourAgo, hourAgo);
    await replay("search.clio");
    const search = await replay("search.clio");
    expect(search.stdout).toContain("retry.ts");
    expect(search.stderr).toContain("crypto: false");
    const read = await replay("read.clio");
    expect(read.stdout).toContain("retryWithBackoff");
    expect(read.stderr).toContain("crypto: false");
    const write = await replay("write.clio", "--permission-mode", "yolo");
    expect(write.stdout).toContain("notes.txt");
    expect(write.stderr).toContain("crypto: true");
  });
});
