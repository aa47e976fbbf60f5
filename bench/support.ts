/** Small helpers shared by the benchmarks: timing, percentiles, a seeded random source, tables. */
import { spawnSync } from "node:child_process";

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Milliseconds one run of `task` takes. */
export async function time(task: () => unknown): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

/** Wall time of a whole process, in milliseconds. */
export function timeProcess(command: string, args: string[], input?: string): number {
  const start = performance.now();
  const result = spawnSync(command, args, { input, stdio: ["pipe", "ignore", "inherit"] });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}`);
  return elapsed;
}

/** A deterministic pseudo-random source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function printTable(rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`);
}

export function format(value: number, digits = 1): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** The environment the GIT benches run git in: a home of its own, no system config, a fixed author. */
export function gitBenchEnvironment(home: string): NodeJS.ProcessEnv {
  const who = { name: "Bench", email: "bench@example.com" };
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
}

/** The least CPU time (user + system, in ms) of `rounds` runs of `run`: what a loaded machine takes from wall time the least. */
export function cpuBestMs(run: () => unknown, rounds: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}
