/**
 * Finding processes a fuzz case left running: this process's descendants, and (with a full
 * scan) any process whose working folder is inside the sandbox — which also catches a child
 * that detached into its own session. Reads /proc, so it works on Linux; elsewhere it finds
 * nothing and says so (`supported`).
 */
import { promises as fs } from "node:fs";
import path from "node:path";

export interface ProcessInfo {
  pid: number;
  parent: number;
  command: string;
  cwd?: string;
}

export const processListingSupported = process.platform === "linux";

async function readProcess(pid: number, withCwd: boolean): Promise<ProcessInfo | undefined> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const command = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    // fields[0] is the state; a zombie has finished and only waits to be collected.
    if (fields[0] === "Z") return undefined;
    const info: ProcessInfo = { pid, parent: Number(fields[1]), command };
    if (withCwd) {
      try {
        info.cwd = await fs.readlink(`/proc/${pid}/cwd`);
      } catch {
        // Another user's process: its folder cannot be read, and it cannot be ours.
      }
    }
    return info;
  } catch {
    return undefined;
  }
}

async function allProcesses(withCwd: boolean): Promise<ProcessInfo[]> {
  if (!processListingSupported) return [];
  const names = await fs.readdir("/proc");
  const found = await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((name) => readProcess(Number(name), withCwd)));
  return found.filter((info): info is ProcessInfo => info !== undefined);
}

/**
 * Processes still alive that descend from this process (and are not in `baseline`), or whose
 * working folder is inside `folder`.
 */
export async function leftoverProcesses(folder: string, baseline: ReadonlySet<number> = new Set()): Promise<ProcessInfo[]> {
  const processes = await allProcesses(true);
  const children = new Map<number, ProcessInfo[]>();
  for (const info of processes) children.set(info.parent, [...(children.get(info.parent) ?? []), info]);
  const descendants = new Set<number>();
  const queue = [process.pid];
  while (queue.length) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (descendants.has(child.pid)) continue;
      descendants.add(child.pid);
      queue.push(child.pid);
    }
  }
  const inside = (cwd: string | undefined) => cwd !== undefined && (cwd === folder || cwd.startsWith(`${folder}${path.sep}`));
  return processes.filter((info) => info.pid !== process.pid && !baseline.has(info.pid) && (descendants.has(info.pid) || inside(info.cwd)));
}

/** The descendants alive now, to ignore later (workers the host started before the case). */
export async function currentDescendants(): Promise<Set<number>> {
  const found = await leftoverProcesses("\0");
  return new Set(found.map((info) => info.pid));
}

/** Waits up to `graceMs` for leftovers to exit; returns those still alive. */
export async function waitForLeftovers(folder: string, baseline: ReadonlySet<number>, graceMs = 3000): Promise<ProcessInfo[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const leftovers = await leftoverProcesses(folder, baseline);
    if (!leftovers.length || Date.now() >= deadline) return leftovers;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Kills what a failed case left behind, so one failure does not leak into the next, and waits
 * (up to `graceMs`) until they are gone: SIGKILL is delivered when the process next runs, which on
 * a busy machine may be a while. Returns those still alive then.
 */
export async function killAll(leftovers: ProcessInfo[], graceMs = 3000): Promise<ProcessInfo[]> {
  for (const info of leftovers) {
    try {
      process.kill(info.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  const deadline = Date.now() + graceMs;
  let alive = leftovers;
  while (alive.length > 0) {
    alive = (await Promise.all(alive.map((info) => readProcess(info.pid, false)))).filter((info): info is ProcessInfo => info !== undefined);
    if (alive.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return alive;
}
