import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { groupAlive } from "../../tools/exec/index.js";
import { eventually } from "./eventually.js";

const jobsModule = path.resolve("tools/exec/jobs.ts");

/** Runs a clio-like process that starts a background job and stays up; resolves with the job's group and the process. */
function startClioWithJob(): Promise<{ pid: number; clio: ReturnType<typeof spawn> }> {
  const program = `
    const { JobTable } = await import(${JSON.stringify(jobsModule)});
    const job = new JobTable().start("sleep 999 & sleep 999", { cwd: "/", env: process.env });
    console.log(job.pid);
    setInterval(() => undefined, 1000);
  `;
  const clio = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    clio.stdout!.once("data", (chunk: Buffer) => resolve({ pid: Number(chunk.toString().trim()), clio }));
    clio.once("exit", () => reject(new Error("clio ended before starting its job")));
  });
}

describe("background jobs when clio is killed by a signal", () => {
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`are killed when clio gets ${signal} (a closed terminal), and clio still ends by that signal`, async () => {
      const { pid, clio } = await startClioWithJob();
      expect(groupAlive(pid)).toBe(true);
      const ended = new Promise<NodeJS.Signals | null>((resolve) => clio.once("exit", (_code, by) => resolve(by)));
      clio.kill(signal);
      expect(await ended).toBe(signal);
      expect(await eventually(() => !groupAlive(pid))).toBe(true);
    });
  }
});
