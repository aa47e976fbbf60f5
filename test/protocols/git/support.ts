/**
 * Test support for GIT: temp repositories driven by the real `git` CLI (isolated from the
 * user's config), and a caller that runs GIT actions the way the manager does — each argument
 * through its zod schema, then describe, then the handler.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gitProtocol } from "../../../protocols/git.js";
import type { ActionOutput, ProtocolEnvironment } from "../../../protocols/contract/protocol.js";
import { ClioError } from "../../../grammar/errors.js";
import { checkArguments, invoke } from "../invoke.js";
import { Workspace } from "../../../tools/workspace.js";

const run = promisify(execFile);

export interface Sandbox {
  /** Parent temp folder (holds home/, repo/ and anything else a test makes). */
  base: string;
  home: string;
  repo: string;
  env: NodeJS.ProcessEnv;
  /** Runs real git in `cwd` (default the repo) and returns stdout. */
  git(args: string[], cwd?: string): Promise<string>;
  /** Starts real git without waiting. */
  spawnGit(args: string[], extraEnv?: NodeJS.ProcessEnv): ChildProcess;
  write(file: string, content: string | Buffer): Promise<void>;
  /** Writes `files` (if any), then `git add -A` and `git commit` with real git. */
  commit(message: string, files?: Record<string, string | Buffer>): Promise<void>;
  read(file: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeSandbox(options: { init?: boolean } = {}): Promise<Sandbox> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), "clio-git-"));
  const home = path.join(base, "home");
  const repo = path.join(base, "repo");
  await fs.mkdir(home);
  await fs.mkdir(repo);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Git Tester",
    GIT_AUTHOR_EMAIL: "git@example.com",
    GIT_COMMITTER_NAME: "Git Tester",
    GIT_COMMITTER_EMAIL: "git@example.com",
    LANG: "C",
  };
  const sandbox: Sandbox = {
    base,
    home,
    repo,
    env,
    async git(args, cwd = repo) {
      const { stdout } = await run("git", args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    },
    spawnGit(args, extraEnv = {}) {
      return spawn("git", args, { cwd: repo, env: { ...env, ...extraEnv }, stdio: "ignore" });
    },
    async write(file, content) {
      const absolute = path.join(repo, file);
      await fs.mkdir(path.dirname(absolute), { recursive: true });
      await fs.writeFile(absolute, content);
    },
    async commit(message, files = {}) {
      for (const [file, content] of Object.entries(files)) await sandbox.write(file, content);
      await sandbox.git(["add", "-A"]);
      await sandbox.git(["commit", "-q", "-m", message]);
    },
    read: (file) => fs.readFile(path.join(repo, file), "utf8"),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
  if (options.init !== false) {
    await sandbox.git(["init", "-q", "-b", "main"]);
    // What `git config user.name …` and `git config user.email …` write, without two more processes.
    await fs.appendFile(path.join(repo, ".git", "config"), "[user]\n\tname = Repo User\n\temail = repo@example.com\n");
  }
  return sandbox;
}

export interface CallOptions {
  config?: Record<string, unknown>;
  /** The GIT protocol to call (default the built-in one); tests of the network pass their own seams. */
  protocol?: typeof gitProtocol;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  root?: string;
}

export interface CallResult extends ActionOutput {
  /** The describe() line shown before the action ran. */
  described: string;
  permission: string;
}

/** Runs GIT.<action> with raw string arguments, as the manager would. */
export async function callGit(sandbox: Sandbox, action: string, raw: Record<string, string> = {}, options: CallOptions = {}): Promise<CallResult> {
  const protocol = options.protocol ?? gitProtocol;
  const args = checkArguments(protocol, action, raw);
  const definition = protocol.actions[action]!;
  const environment: ProtocolEnvironment = {
    workspace: await Workspace.open(options.root ?? sandbox.repo),
    config: options.config ?? {},
    env: options.env ?? sandbox.env,
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
    userAgent: "clio-test",
  };
  const permission = typeof definition.permission === "function" ? definition.permission(args) : definition.permission;
  const { before, ...output } = await invoke(protocol, action, raw, { environment, signal: options.signal });
  return { ...output, described: before, permission };
}

/** Runs an action expecting a ClioError; returns it. */
export async function callGitFailing(sandbox: Sandbox, action: string, raw: Record<string, string> = {}, options: CallOptions = {}): Promise<ClioError> {
  try {
    await callGit(sandbox, action, raw, options);
  } catch (error) {
    if (ClioError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`GIT.${action} was expected to fail`);
}

/** `git status --porcelain` as [XY, path] pairs (renames as "old -> new"), NUL-separated so names are exact. */
export async function gitPorcelain(sandbox: Sandbox): Promise<string[]> {
  const out = await sandbox.git(["status", "--porcelain", "-z", "--untracked-files=normal"]);
  const parts = out.split("\0");
  const lines: string[] = [];
  for (let position = 0; position < parts.length; position++) {
    const part = parts[position]!;
    if (part === "") continue;
    const code = part.slice(0, 2);
    const file = part.slice(3);
    if (code[0] === "R" || code[0] === "C") lines.push(`${code} ${parts[++position]} -> ${file}`);
    else lines.push(`${code} ${file}`);
  }
  return lines;
}

/** Snapshot of everything git would show: refs, index and status — for "nothing changed" checks. */
export async function repositoryState(sandbox: Sandbox): Promise<string> {
  const refs = await sandbox.git(["for-each-ref", "--format=%(refname) %(objectname)"]);
  const head = await sandbox.git(["symbolic-ref", "-q", "HEAD"]).catch(() => "detached");
  const index = await sandbox.git(["ls-files", "-s"]);
  return [refs, head, index, (await gitPorcelain(sandbox)).join("\n")].join("\n--\n");
}

export async function fsckClean(sandbox: Sandbox, cwd?: string): Promise<string> {
  const { stdout, stderr } = await run("git", ["fsck", "--strict", "--no-dangling"], { cwd: cwd ?? sandbox.repo, env: sandbox.env });
  return `${stdout}${stderr}`;
}
