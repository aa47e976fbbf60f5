/**
 * Finding processes a test started (MCP servers, by a marker in their command line or
 * environment) and waiting for them to be gone, so a test can check nothing is left behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

/** Pids of running processes (not this one) whose command line or environment mentions `marker`. */
export async function processesMentioning(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const environment = command.includes(marker) ? "" : await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if ((command.includes(marker) || environment.includes(marker)) && !isZombie(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

/** True once none of `pids` runs (a zombie counts as gone), waiting up to `withinMs`. */
export async function gone(pids: number[], withinMs = 5000): Promise<boolean> {
  const until = Date.now() + withinMs;
  const alive = () => pids.filter((pid) => existsSync(`/proc/${pid}`) && !isZombie(pid));
  while (Date.now() < until) {
    if (alive().length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return alive().length === 0;
}

/** A process's /proc stat line shows state Z once it has exited and awaits its parent. */
function isZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}
