import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { groupAlive, JobTable } from "../../tools/exec/index.js";
import { eventually } from "./eventually.js";

const options = { cwd: os.tmpdir(), env: process.env };
const tables: JobTable[] = [];
function table(settings: ConstructorParameters<typeof JobTable>[0] = {}): JobTable {
  const made = new JobTable({ graceMs: 300, ...settings });
  tables.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(tables.splice(0).map((made) => made.dispose()));
});

describe("JobTable", () => {
  it("starts a job, hands out only new output, and kills its whole group", async () => {
    const jobs = table();
    const started = jobs.start("echo first; sleep 999 & echo second; sleep 999", options);
    expect(started).toMatchObject({ id: "job-1", running: true });
    let seen = "";
    expect(await eventually(() => (seen += jobs.read("job-1").text).includes("second"))).toBe(true);
    expect(seen).toBe("first\nsecond\n");
    expect(jobs.read("job-1")).toMatchObject({ text: "", status: { running: true } });
    const killed = await jobs.kill("job-1");
    expect(killed).toMatchObject({ running: false, signal: "SIGTERM" });
    expect(await eventually(() => !groupAlive(started.pid!))).toBe(true);
  });

  it("reports a job that finished by itself with its exit code", async () => {
    const jobs = table();
    jobs.start("echo done; exit 4", options);
    expect(await eventually(() => !jobs.list()[0]!.running)).toBe(true);
    expect(jobs.read("job-1")).toMatchObject({ text: "done\n", status: { running: false, exitCode: 4 } });
  });

  it("lists every job with its status", async () => {
    const jobs = table();
    jobs.start("sleep 999", options);
    jobs.start("true", options);
    await eventually(() => !jobs.list()[1]!.running);
    expect(jobs.list().map((job) => [job.id, job.command, job.running])).toEqual([
      ["job-1", "sleep 999", true],
      ["job-2", "true", false],
    ]);
  });

  it("forgets the oldest finished jobs beyond the number kept, never a running one", async () => {
    const jobs = table({ keepFinished: 3 });
    jobs.start("sleep 999", options);
    for (let index = 0; index < 5; index++) jobs.start("true", options);
    const finished = () => jobs.list().filter((job) => !job.running && !groupAlive(job.pid!));
    expect(await eventually(() => finished().length === 5)).toBe(true);
    jobs.start("true", options);
    expect(jobs.list().map((job) => job.id)).toEqual(["job-1", "job-4", "job-5", "job-6", "job-7"]);
    expect(() => jobs.read("job-2")).toThrow(/There is no background job job-2/);
  });

  it("kills every job's group when disposed", async () => {
    const jobs = new JobTable({ graceMs: 300 });
    const pids = [jobs.start("sleep 999", options).pid!, jobs.start("sleep 999 & sleep 999", options).pid!];
    await jobs.dispose();
    expect(await eventually(() => pids.every((pid) => !groupAlive(pid)))).toBe(true);
    expect(jobs.list().every((job) => !job.running)).toBe(true);
  });

  it("keeps a bounded amount of unread output, dropping the oldest", async () => {
    const jobs = table({ bufferLimit: 1000 });
    jobs.start("seq 1 5000; echo END", options);
    await eventually(() => !jobs.list()[0]!.running);
    const { text, droppedBytes } = jobs.read("job-1");
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text.endsWith("5000\nEND\n")).toBe(true);
    expect(droppedBytes).toBeGreaterThan(20_000);
  });

  it("signals nothing when killing a job whose processes are all gone (its group id may belong to someone else by now)", async () => {
    const jobs = table();
    const { pid } = jobs.start("echo done", options);
    expect(await eventually(() => !jobs.statusOf("job-1").running && !groupAlive(pid!))).toBe(true);
    const kill = vi.spyOn(process, "kill");
    try {
      expect(await jobs.kill("job-1")).toMatchObject({ running: false, exitCode: 0 });
      await jobs.dispose();
      expect(kill.mock.calls.filter(([target, signal]) => target === -pid! && signal !== 0)).toEqual([]);
    } finally {
      kill.mockRestore();
    }
  });

  it("refuses unknown ids and too many jobs", async () => {
    const jobs = table({ maxJobs: 1 });
    expect(() => jobs.read("job-9")).toThrow(expect.objectContaining({ code: "job_not_found" }));
    jobs.start("sleep 999", options);
    expect(() => jobs.start("sleep 999", options)).toThrow(expect.objectContaining({ code: "limit_reached" }));
  });
});
