/**
 * EXEC is contained: under bubblewrap a command writes only the workspace and the temp folder,
 * leaves nothing running after it ends (setsid and double forks included), and background
 * jobs die with clio; with the sandbox off, escaped processes are still found by their tag and
 * nothing hangs on a pipe a daemon holds.
 */
import { execFile } from "node:child_process";
import { existsSync, promises as fs, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createExecProtocol, type ExecState } from "../../protocols/exec.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { bubblewrapAvailable } from "../../tools/exec/index.js";
import { ensureBuilt, bundledCli, isolatedEnv, repositoryRoot } from "../cli/support.js";
import { eventually } from "../tools/eventually.js";
import { makeTempWorkspace, type TempWorkspace } from "../tools/temp.js";
import { environmentFor, invoke } from "./invoke.js";

const protocol = createExecProtocol({ startupWaitMs: 300 });
let temp: TempWorkspace;
/** A folder outside both the workspace and the temp folder (the sandbox makes the temp folder writable). */
let outside: string;
let state: ExecState;

beforeAll(async () => {
  await ensureBuilt();
});

/**
 * Where to make the outside folder: the repository, unless it sits in the temp folder itself (a
 * checkout under /tmp), then the home folder. Either is read-only inside the sandbox.
 */
function outsideParent(): string {
  const fromTemp = path.relative(os.tmpdir(), repositoryRoot);
  const inTemp = fromTemp === "" || (!fromTemp.startsWith("..") && !path.isAbsolute(fromTemp));
  return inTemp ? os.homedir() : repositoryRoot;
}
beforeEach(async () => {
  temp = await makeTempWorkspace();
  outside = await fs.mkdtemp(path.join(outsideParent(), ".sandbox-outside-"));
});
afterEach(async () => {
  if (state) await protocol.dispose!(state);
  await temp.remove();
  await fs.rm(outside, { recursive: true, force: true });
});

async function setUp(exec: Record<string, unknown>): Promise<ProtocolEnvironment> {
  const environment = environmentFor(temp.workspace, { PATH: process.env.PATH }, { EXEC: exec });
  state = await protocol.setup!(environment);
  return environment;
}

const run = (environment: ProtocolEnvironment, action: string, raw: Record<string, string>) => invoke(protocol, action, raw, { environment, state });
const attempt = (environment: ProtocolEnvironment, raw: Record<string, string>) =>
  run(environment, "run", raw).then(
    (result) => ({ ok: true, text: result.output }),
    (error: Error) => ({ ok: false, text: error.message }),
  );

/** Live (not zombie) processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const state = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/\) [ZX] /.test(state)) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").includes(marker)) found.push(Number(entry));
    } catch {
      // Gone while looking.
    }
  }
  return found;
}

/** A sleep no other process runs: `sleep <seconds>` with a unique fraction. */
const uniqueSleep = () => `${1000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;

describe("EXEC under bubblewrap", () => {
  it("is available here (the Debian package bubblewrap)", () => {
    expect(bubblewrapAvailable()).toBe(true);
  });

  it("writes the workspace and the temp folder, never outside them, nor .clio", async () => {
    const environment = await setUp({});
    const target = path.join(outside, "escaped.txt");
    const refused = await attempt(environment, { command: `echo x > ${target}` });
    expect(refused.ok).toBe(false);
    expect(refused.text).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    expect((await attempt(environment, { command: "echo kept > inside.txt" })).ok).toBe(true);
    expect(await temp.read("inside.txt")).toBe("kept\n");
    expect((await attempt(environment, { command: `echo t > ${path.join(temp.base, "tmp-ok.txt")}` })).ok).toBe(true);
    expect((await attempt(environment, { command: 'echo \'{"permissionMode":"yolo"}\' > .clio/config.json' })).ok).toBe(false);
    expect(existsSync(path.join(temp.root, ".clio/config.json"))).toBe(false);
  });

  it("writes a configured path too", async () => {
    const environment = await setUp({ writablePaths: [outside] });
    expect((await attempt(environment, { command: `echo y > ${path.join(outside, "allowed.txt")}` })).ok).toBe(true);
  });

  it("leaves no setsid or double-forked grandchild running after the command", async () => {
    const environment = await setUp({});
    const first = uniqueSleep();
    const second = uniqueSleep();
    const result = await attempt(environment, { command: `setsid sleep ${first} & (sh -c 'sleep ${second} &' &); echo started` });
    expect(result.ok).toBe(true);
    expect(await eventually(() => processesWith(`sleep ${first}`).length === 0 && processesWith(`sleep ${second}`).length === 0, 3000)).toBe(true);
  });

  it('cuts the network with network "none" and keeps it with the default', async () => {
    const server = http.createServer((_request, response) => response.end("pong"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const fetchIt = `"${process.execPath}" -e "fetch('${url}').then(r => r.text()).then(t => console.log(t))"`;
    try {
      const open = await setUp({});
      expect((await attempt(open, { command: fetchIt })).text).toContain("pong");
      await protocol.dispose!(state);
      const closed = await setUp({ network: "none" });
      expect((await attempt(closed, { command: fetchIt })).ok).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe("a sandboxed background job when clio is killed", () => {
  it("dies with clio, its setsid grandchild too", async () => {
    const first = uniqueSleep();
    const second = uniqueSleep();
    const probe = path.join(import.meta.dirname, "exec-probe.ts");
    const outcome = await promisify(execFile)(process.execPath, ["--import", "tsx", probe, temp.root, first, second], { cwd: repositoryRoot, timeout: 20_000 }).catch(
      (error: { stdout: string; signal: string }) => error,
    );
    expect(outcome.stdout).toBe("started\n");
    expect(await eventually(() => processesWith(`sleep ${first}`).length === 0 && processesWith(`sleep ${second}`).length === 0, 3000)).toBe(true);
  });
});

describe("EXEC with the sandbox off", () => {
  it("still stops a setsid grandchild after the command, found by its tag", async () => {
    const environment = await setUp({ sandbox: false });
    const marker = uniqueSleep();
    const result = await attempt(environment, { command: `setsid sleep ${marker} > /dev/null 2>&1 & echo started` });
    expect(result.ok).toBe(true);
    expect(result.text).toContain("they were stopped");
    expect(await eventually(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
  });
});

describe("clio replay with a background setsid job", () => {
  for (const sandbox of [true, false]) {
    it(`returns, and leaves nothing running (sandbox ${sandbox ? "on" : "off"})`, async () => {
      const home = path.join(temp.base, "home");
      await fs.mkdir(path.join(home, ".clio"), { recursive: true });
      await fs.writeFile(path.join(home, ".clio/config.json"), JSON.stringify({ protocols: { EXEC: { sandbox } } }));
      const marker = uniqueSleep();
      await temp.write("script.md", `[EXEC:action=background:command="setsid sleep ${marker} &"]\n`);
      const { stdout } = await promisify(execFile)(process.execPath, [bundledCli, "replay", "script.md", "--permission-mode", "yolo"], {
        cwd: temp.root,
        env: isolatedEnv(home),
        timeout: 20_000,
      });
      expect(stdout).toContain("1 succeeded");
      expect(await eventually(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
    });
  }
});
