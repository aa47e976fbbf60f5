import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { groupAlive } from "../../tools/exec/index.js";
import { eventually } from "./eventually.js";

const jobsModule = path.resolve("tools/exec/jobs.ts");

describe("background jobs and clio's exit", () => {
  it("are killed by the process exit hook when clio exits without disposing", async () => {
    const program = `
      const { JobTable } = await import(${JSON.stringify(jobsModule)});
      const jobs = new JobTable();
      const job = jobs.start("sleep 999 & sleep 999", { cwd: "/", env: process.env });
      console.log(job.pid);
      setTimeout(() => process.exit(0), 200);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], { timeout: 20_000 });
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(1);
    expect(await eventually(() => !groupAlive(pid))).toBe(true);
  });
});
