/**
 * Running the bundled CLI (dist/clio.cjs) as a person or a script would: a child process with its
 * own home folder, workspace and environment, standard input a pipe (never a terminal).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";
import { temporaryFolder } from "../support/workspace.js";

type TemporaryFolder = Awaited<ReturnType<typeof temporaryFolder>>;

export const repositoryRoot = path.resolve(import.meta.dirname, "../..");
export const bundledCli = path.join(repositoryRoot, "dist", "clio.cjs");

/** Builds dist/clio.cjs when it is missing (npm test builds it first). */
export async function ensureBuilt(): Promise<void> {
  if (!existsSync(bundledCli)) await promisify(execFile)(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: no API keys or clio settings from the machine running the tests. */
export function isolatedEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: home, CLIO_HOME: home, ...extra };
}

/** Runs the bundled CLI; `input` is written to its stdin, which then closes, unless `keepStdinOpen` (a pipe nobody writes to). */
export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; keepStdinOpen?: boolean }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundledCli, ...args], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (options.keepStdinOpen) child.on("exit", () => child.stdin.destroy());
    else child.stdin.end(options.input ?? "");
  });
}

/**
 * A home folder and a workspace made fresh for every test of the file that calls this (and
 * removed after it), with the CLI built; read them from the returned object inside tests.
 */
export function freshCliFolders(prepare?: (workspace: string) => Promise<void>): { home: TemporaryFolder; workspace: TemporaryFolder } {
  const folders = {} as { home: TemporaryFolder; workspace: TemporaryFolder };
  beforeAll(ensureBuilt);
  beforeEach(async () => {
    folders.home = await temporaryFolder("clio-cli-home-");
    folders.workspace = await temporaryFolder("clio-cli-workspace-");
    await prepare?.(folders.workspace.path);
  });
  afterEach(async () => {
    await folders.home.remove();
    await folders.workspace.remove();
  });
  return folders;
}

/**
 * A model test server besides `freshCliFolders`' home folder and workspace, made fresh for every
 * test of the file that calls this (and closed after it).
 */
export function freshCliFixture(prepare?: (workspace: string) => Promise<void>): { server: OpenAITestServer; home: TemporaryFolder; workspace: TemporaryFolder } {
  const fixture = freshCliFolders(prepare) as { server: OpenAITestServer; home: TemporaryFolder; workspace: TemporaryFolder };
  beforeEach(async () => {
    fixture.server = await startOpenAIServer();
  });
  afterEach(async () => {
    await fixture.server.close();
  });
  return fixture;
}
