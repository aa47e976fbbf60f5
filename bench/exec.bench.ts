/**
 * EXEC benchmark: what containment costs per command. In one run, the median wall time of
 * `EXEC run "true"` through the protocol inside the bubblewrap sandbox, the same with the
 * sandbox off (process group plus the environment-tag sweep), and the floor: spawning
 * `/bin/sh -c true` with node's spawn and waiting for it to close.
 *
 *     node --import tsx bench/exec.bench.ts
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExecProtocol } from "../protocols/exec.js";
import { bubblewrapAvailable } from "../tools/exec/index.js";
import { Workspace } from "../tools/workspace.js";
import { format, median, printTable } from "./support.js";

const RUNS = 40;

async function protocolRuns(root: string, exec: Record<string, unknown>): Promise<number> {
  const protocol = createExecProtocol();
  const environment = { workspace: await Workspace.open(root), config: { EXEC: exec }, env: { PATH: process.env.PATH }, now: Date.now, userAgent: "bench" };
  const state = await protocol.setup!(environment);
  const run = protocol.actions.run!;
  const times: number[] = [];
  try {
    for (let index = 0; index < RUNS + 3; index++) {
      const start = performance.now();
      await run.handler({ command: "true", args: undefined, timeout: undefined, cwd: undefined }, { environment, state, signal: new AbortController().signal });
      if (index >= 3) times.push(performance.now() - start);
    }
  } finally {
    await protocol.dispose!(state);
  }
  return median(times);
}

async function floorRuns(root: string): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < RUNS + 3; index++) {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", "true"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
      child.on("error", reject);
      child.on("close", () => resolve());
    });
    if (index >= 3) times.push(performance.now() - start);
  }
  return median(times);
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "clio-exec-bench-"));
  try {
    const floor = await floorRuns(root);
    const plain = await protocolRuns(root, { sandbox: false });
    const rows: [string, string][] = [
      ["floor: spawn /bin/sh -c true", `${format(floor, 2)} ms`],
      ["EXEC run, sandbox off", `${format(plain, 2)} ms  (${format(plain / floor, 2)}x floor)`],
    ];
    if (bubblewrapAvailable()) {
      const boxed = await protocolRuns(root, {});
      rows.push(["EXEC run, bubblewrap sandbox", `${format(boxed, 2)} ms  (${format(boxed / floor, 2)}x floor, ${format(boxed / plain, 2)}x sandbox off)`]);
    } else {
      rows.push(["EXEC run, bubblewrap sandbox", "bwrap is not installed"]);
    }
    process.stdout.write(`EXEC: median wall time of one command over ${RUNS} runs\n`);
    printTable(rows);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
