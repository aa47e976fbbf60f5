/**
 * Without bubblewrap (here: not on the PATH clio looks it up with), EXEC says so once and runs
 * the command anyway, still stopping a setsid grandchild by its tag.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createExecProtocol, type ExecState } from "../../protocols/exec.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { bubblewrapAvailable } from "../../tools/exec/index.js";
import { eventually } from "../tools/eventually.js";
import { makeTempWorkspace, type TempWorkspace } from "../tools/temp.js";
import { environmentFor, invoke } from "./invoke.js";

const protocol = createExecProtocol();
let temp: TempWorkspace;
let environment: ProtocolEnvironment;
let state: ExecState;
const originalPath = process.env.PATH;

beforeEach(async () => {
  temp = await makeTempWorkspace();
  environment = environmentFor(temp.workspace, { PATH: originalPath });
  state = await protocol.setup!(environment);
});
afterEach(async () => {
  process.env.PATH = originalPath;
  await protocol.dispose!(state);
  await temp.remove();
});

const sleeping = (marker: string) =>
  readdirSync("/proc").some((entry) => {
    try {
      return /^\d+$/.test(entry) && !/\) [ZX] /.test(readFileSync(`/proc/${entry}/stat`, "utf8")) && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  });

describe("EXEC without bubblewrap", () => {
  it("says so once, runs the command, and still stops what escaped the group", async () => {
    process.env.PATH = "/nonexistent-for-this-test";
    expect(bubblewrapAvailable()).toBe(false);
    process.env.PATH = originalPath;
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
    const first = await invoke(protocol, "run", { command: `setsid sleep ${marker} > /dev/null 2>&1 & echo one` }, { environment, state });
    expect(first.output).toContain("bubblewrap (bwrap) is not installed");
    expect(await eventually(() => !sleeping(`sleep\u0000${marker}`), 3000)).toBe(true);
    const second = await invoke(protocol, "run", { command: "echo two" }, { environment, state });
    expect(second.output).not.toContain("bubblewrap");
  });
});
