/**
 * Runs a TypeScript probe in a network namespace where only loopback is up (`unshare -rn`,
 * then `ip link set lo up`), so a refusal under test that is broken still cannot reach any
 * other machine. The probe prints its findings as JSON on stdout.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const repositoryRoot = path.resolve(import.meta.dirname, "../..");

/** Runs `node --import tsx PROBE` inside a loopback-only namespace and parses its stdout as JSON. */
export async function runInLoopbackNamespace<Result>(probe: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  const command = `ip link set lo up && exec "${process.execPath}" --import tsx "${probe}"`;
  const { stdout } = await promisify(execFile)("unshare", ["-rn", "sh", "-c", command], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Result;
}
