import { spawn, type SpawnOptions } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createExecProtocol, execProtocol, type ExecState } from "../../protocols/exec.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { ClioError } from "../../grammar/errors.js";
import { groupAlive, type JobStatus, type Spawn } from "../../tools/exec/index.js";
import { eventually } from "../tools/eventually.js";
import { makeTempWorkspace, type TempWorkspace } from "../tools/temp.js";
import { checkArguments, environmentFor, invoke } from "./invoke.js";

const protocol = createExecProtocol({ startupWaitMs: 5000 });
let temp: TempWorkspace;
let environment: ProtocolEnvironment;
let state: ExecState;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  environment = environmentFor(temp.workspace, { ...process.env, OPENAI_API_KEY: "sk-test-never-shown", CLIO_DEMO_TOKEN: "token-never-shown" });
  state = await protocol.setup!(environment);
});
afterEach(async () => {
  await protocol.dispose!(state);
  await temp.remove();
});

const run = (action: string, raw: Record<string, string>, signal?: AbortSignal) => invoke(protocol, action, raw, { environment, state, signal });

async function failure(action: string, raw: Record<string, string>, signal?: AbortSignal): Promise<ClioError> {
  const error = await run(action, raw, signal).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ClioError.isInstance(error)) throw new Error(`expected a ClioError, got ${String(error)}`);
  return error;
}

describe("EXEC definition", () => {
  it("declares its actions, permission classes and parameter kinds", () => {
    expect(execProtocol.name).toBe("EXEC");
    const permissions = Object.fromEntries(Object.entries(execProtocol.actions).map(([name, action]) => [name, action.permission]));
    expect(permissions).toEqual({ run: "exec", script: "exec", background: "exec", output: "read", kill: "exec", list: "read" });
    const kinds = Object.fromEntries(Object.entries(execProtocol.actions.run!.parameters).map(([name, parameter]) => [name, parameter.kind]));
    expect(kinds).toEqual({ command: "text", args: "json", timeout: "word", cwd: "text" });
  });

  it("checks arguments with its schemas", () => {
    expect(checkArguments(execProtocol, "run", { command: "ls", args: '["-l", "a b"]', timeout: "5" })).toEqual({ command: "ls", args: ["-l", "a b"], timeout: 5, cwd: undefined });
    expect(() => checkArguments(execProtocol, "run", { command: "ls", args: "[1]" })).toThrow(/string/);
    expect(() => checkArguments(execProtocol, "run", { command: "ls", args: "not json" })).toThrow(/JSON/);
    expect(() => checkArguments(execProtocol, "run", { command: "ls", timeout: "0" })).toThrow(/timeout/);
    expect(() => checkArguments(execProtocol, "script", { content: "x", interpreter: "sh; rm -rf /" })).toThrow(/program name/);
  });
});

describe("EXEC.run", () => {
  it("runs a command and reports its output", async () => {
    const result = await run("run", { command: "echo hello; echo warning >&2" });
    expect(result.before).toBe("Running echo hello; echo warning >&2 (timeout 120 s)");
    expect(result.output).toMatch(/^exit code 0 after \d+\.\d s\n--- stdout ---\nhello\n--- stderr ---\nwarning$/);
    expect(result.description).toMatch(/^Ran echo hello; echo warning >&2 \(exit 0, \d+\.\d s\)$/);
  });

  it("appends args shell-quoted", async () => {
    const result = await run("run", { command: "printf '[%s]'", args: '["two words", "$HOME", "it\'s"]' });
    expect(result.output).toContain("[two words][$HOME][it's]");
  });

  it("fails a non-zero exit with the code and the output", async () => {
    const error = await failure("run", { command: "echo compiling; echo 'error: missing ;' >&2; exit 2" });
    expect(error.code).toBe("exec_failed");
    expect(error.message).toMatch(/exited with code 2 after/);
    expect(error.message).toContain("--- stdout ---\ncompiling");
    expect(error.message).toContain("--- stderr ---\nerror: missing ;");
  });

  it("stops the whole group on timeout, including a background child holding stdout", async () => {
    const error = await failure("run", { command: "sleep 999 & echo group=$$; sleep 999", timeout: "1" });
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("timed out after 1.0 s");
    const group = Number(/group=(\d+)/.exec(error.message)![1]);
    expect(await eventually(() => !groupAlive(group))).toBe(true);
  });

  it("ends a command waiting on stdin at once", async () => {
    const result = await run("run", { command: "cat", timeout: "30" });
    expect(result.output).toContain("(no output)");
  });

  it("keeps a flood bounded and says what was cut", async () => {
    environment.config = { EXEC: { outputLimit: 200_000, shownLimit: 10_000 } };
    const result = await run("run", { command: "yes | head -c 5000000" });
    expect(result.output.length).toBeLessThan(11_000);
    expect(result.output).toContain("characters omitted");
    expect(result.data).toMatchObject({ stdout: { totalBytes: 5_000_000, droppedBytes: 4_800_000 } });
  });

  it("never shows credentials to the child", async () => {
    const result = await run("run", { command: "env" });
    expect(result.output).toContain("PATH=");
    expect(result.output).not.toContain("sk-test-never-shown");
    expect(result.output).not.toContain("token-never-shown");
    environment.config = { EXEC: { passEnv: ["CLIO_DEMO_TOKEN"] } };
    expect((await run("run", { command: "env" })).output).toContain("CLIO_DEMO_TOKEN=token-never-shown");
  });

  it("runs in a folder inside the workspace, and only there", async () => {
    await fs.mkdir(path.join(temp.root, "sub"));
    expect((await run("run", { command: "pwd", cwd: "sub" })).output).toContain(path.join(temp.root, "sub"));
    expect((await failure("run", { command: "pwd", cwd: ".." })).code).toBe("outside_workspace");
    expect((await failure("run", { command: "pwd", cwd: "missing" })).code).toBe("not_found");
  });

  it("is cancelled by the abort signal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    expect((await failure("run", { command: "sleep 999" }, controller.signal)).code).toBe("cancelled");
  });

  it("refuses a timeout over the configured limit", async () => {
    environment.config = { EXEC: { maxTimeout: 60 } };
    expect((await failure("run", { command: "true", timeout: "61" })).code).toBe("invalid_argument");
  });
});

describe("EXEC and NUL bytes", () => {
  it("refuses a command or args with a NUL byte as the command's own mistake, running nothing", async () => {
    for (const [action, raw] of [
      ["run", { command: "echo a\0b" }],
      ["run", { command: "echo", args: '["a\\u0000b"]' }],
      ["background", { command: "echo a\0b" }],
    ] as const) {
      const error = await failure(action, raw);
      expect(error, action).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("NUL") });
    }
    expect((await run("list", {})).output).toBe("No background jobs.");
  });
});

describe("EXEC's child environment", () => {
  it("holds none of the credentials the attack listed, by name or by value", async () => {
    const leaky = {
      ...process.env,
      DATABASE_URL: "postgres://app:hunter2@db/main",
      SENTRY_DSN: "https://abc@o1.ingest.sentry.io/1",
      SLACK_WEBHOOK: "https://hooks.slack.com/services/T/B/leak",
      COOKIE: "session=leak; csrf=leak",
      SSH_AUTH_SOCK: "/tmp/ssh-leak/agent.1",
      KUBECONFIG: "/root/.kube/leak",
      INNOCENT_NAME: "redis://default:leakpass@cache:6379",
    };
    const own = environmentFor(temp.workspace, leaky);
    const result = await invoke(protocol, "run", { command: "env" }, { environment: own, state });
    expect(result.output).toContain("PATH=");
    expect(result.output).not.toMatch(/leak|hunter2|sentry|DATABASE_URL/);
  });
});

describe("EXEC seams", () => {
  it("spawns through the injected spawn: detached, stdin ignored, credentials removed", async () => {
    const calls: Array<{ file: string; args: readonly string[]; options: SpawnOptions }> = [];
    const recording = ((file: string, args: readonly string[], options: SpawnOptions) => {
      calls.push({ file, args, options });
      return spawn(file, args, options);
    }) as Spawn;
    const seamed = createExecProtocol({ spawn: recording });
    const own = await seamed.setup!(environment);
    try {
      await invoke(seamed, "run", { command: "true" }, { environment, state: own });
      await invoke(seamed, "background", { command: "true" }, { environment, state: own });
    } finally {
      await seamed.dispose!(own);
    }
    // Inside the bubblewrap sandbox: bwrap runs the same shell line.
    expect(calls.map((call) => [call.file, call.args.slice(-4)])).toEqual([
      ["bwrap", ["--", "/bin/sh", "-c", "true"]],
      ["bwrap", ["--", "/bin/sh", "-c", "true"]],
    ]);
    for (const { options } of calls) {
      expect(options).toMatchObject({ detached: true, stdio: ["ignore", "pipe", "pipe"], cwd: temp.root });
      expect(options.env?.OPENAI_API_KEY).toBeUndefined();
      expect(options.env?.PATH).toBe(process.env.PATH);
    }
  });
});

describe("EXEC.script", () => {
  it("runs a script with sh by default and with a named interpreter", async () => {
    const shell = await run("script", { content: 'for word in a b; do\n  echo "$word"\ndone' });
    expect(shell.output).toContain("--- stdout ---\na\nb");
    const node = await run("script", { content: "console.log(6 * 7)", interpreter: "node" });
    expect(node.output).toContain("42");
  });

  it("reports an interpreter that is not installed", async () => {
    const error = await failure("script", { content: "print(1)", interpreter: "clio-no-such-interpreter" });
    expect(error).toMatchObject({ code: "exec_failed", message: expect.stringContaining("could not start") });
  });
});

describe("EXEC background jobs", () => {
  it("starts, reads, lists and kills a job", async () => {
    const started = await run("background", { command: "echo ready; sleep 999" });
    const status = started.data as JobStatus;
    expect(started.output).toMatch(/^job-1 running for \d+\.\d s: echo ready; sleep 999\nready\n/);
    expect((await run("output", { id: "job-1" })).output).toMatch(/\(no new output\)$/);
    expect((await run("list", {})).output).toMatch(/^job-1 running/);
    const killed = await run("kill", { id: "job-1" });
    expect(killed.output).toBe("job-1 ended by SIGTERM: echo ready; sleep 999");
    expect(await eventually(() => !groupAlive(status.pid!))).toBe(true);
    expect((await failure("output", { id: "job-7" })).code).toBe("job_not_found");
  });

  it("kills every job when the protocol is disposed", async () => {
    const own = await createExecProtocol({ startupWaitMs: 0 }).setup!(environment);
    const pids = [own.jobs.start("sleep 999", { cwd: temp.root, env: process.env }).pid!, own.jobs.start("sleep 999 & sleep 999", { cwd: temp.root, env: process.env }).pid!];
    await createExecProtocol().dispose!(own);
    expect(await eventually(() => pids.every((pid) => !groupAlive(pid)))).toBe(true);
  });
});
