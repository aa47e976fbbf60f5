/**
 * Process groups: every command runs as the leader of its own group (spawned detached), so
 * the group — grandchildren included — can be signalled at once. Groups still alive when clio
 * exits are killed by a process 'exit' hook (and on SIGTERM and SIGHUP, which skip it).
 *
 * A process that leaves the group (`setsid`, a double fork) is still found by its environment:
 * every command gets `CLIO_EXEC_TAG=<tag>`, and `killTagged` kills whatever carries the tag
 * (a process that wipes its environment escapes this; the bubblewrap sandbox does not let it).
 */
import type { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { randomHex } from "../node-crypto.js";

/** The spawn seam (node:child_process spawn). */
export type Spawn = typeof spawn;

const liveGroups = new Set<number>();
const liveTags = new Set<string>();
let exitHookInstalled = false;

/** The variable that marks a command's processes. */
export const TAG_VARIABLE = "CLIO_EXEC_TAG";

/** A new tag for one command or job, remembered so it is swept when clio exits. */
export function newTag(): string {
  const tag = randomHex(8);
  liveTags.add(tag);
  installExitHook();
  return tag;
}

/** Kills (SIGKILL) every process whose environment carries `tag`; returns how many. */
export function killTagged(tag: string): number {
  const marker = `${TAG_VARIABLE}=${tag}`;
  let killed = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue;
    }
    if (!environ.split("\0").includes(marker)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // Gone already.
    }
  }
  return killed;
}

/**
 * When a released tag is swept again: a process caught in the middle of `exec` (a `setsid`
 * becoming the program it starts) shows no environment for that moment, so one sweep can miss it.
 */
const RESWEEPS_MS = [50, 500];

/** Sweeps the tag now (returns how many it killed), and again shortly after; then forgets it. */
export function releaseTag(tag: string): number {
  const killed = killTagged(tag);
  let remaining = RESWEEPS_MS.length;
  for (const delay of RESWEEPS_MS) {
    setTimeout(() => {
      killTagged(tag);
      // Until the last sweep the exit hook still sweeps it too.
      if (--remaining === 0) liveTags.delete(tag);
    }, delay).unref();
  }
  return killed;
}

/** Sends `signal` to every process in the group led by `pid`. False if none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any live process of the group led by `pid` exists. Zombies do not count: an
 * orphan that already died may wait a while for init to reap it (slowly, in containers).
 */
export function groupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0)) return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // No /proc: the signal check is all there is.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ... — comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

function killLiveGroups(): void {
  for (const group of liveGroups) signalGroup(group, "SIGKILL");
  for (const tag of liveTags) killTagged(tag);
}

/**
 * SIGTERM and SIGHUP (a closed terminal) end Node without its 'exit' event, and the groups run
 * in sessions of their own, so they would outlive clio: kill them first. When no one else
 * listens, the signal is raised again so clio still ends the way it was told to.
 */
function onEndingSignal(signal: NodeJS.Signals): void {
  killLiveGroups();
  if (process.listenerCount(signal) === 1) {
    process.removeListener(signal, onEndingSignal);
    process.kill(process.pid, signal);
  }
}

/** Remembers a group so it is killed if clio exits (or is killed by SIGTERM or SIGHUP) first. */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  installExitHook();
}

function installExitHook(): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killLiveGroups);
    process.on("SIGTERM", onEndingSignal);
    process.on("SIGHUP", onEndingSignal);
  }
}

export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

/**
 * Stops a group: SIGTERM now, SIGKILL after `graceMs` if anything is left. Resolves once the
 * group is gone (or right after SIGKILL). The group stays tracked until it is gone.
 */
export async function stopGroup(pid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) {
    untrackGroup(pid);
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (!groupAlive(pid)) {
      untrackGroup(pid);
      return;
    }
  }
  signalGroup(pid, "SIGKILL");
  for (let attempt = 0; attempt < 20 && groupAlive(pid); attempt++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!groupAlive(pid)) untrackGroup(pid);
}
