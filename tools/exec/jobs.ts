/**
 * Background jobs: long-running commands (servers, watchers) started in their own process
 * group, whose interleaved output is read piece by piece, and which are killed on request,
 * when the table is disposed, or when clio exits.
 */
import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { ToolError } from "../errors.js";
import { UnreadOutput } from "./output.js";
import { groupAlive, releaseTag, stopGroup, trackGroup, untrackGroup, type Spawn } from "./process-group.js";

/** After a job's shell exits, how long its output may take to close before it counts as ended. */
const OUTPUT_DRAIN_MS = 250;

export interface JobTableOptions {
  spawn?: Spawn;
  now?: () => number;
  /** Jobs that may run at once (default 16). */
  maxJobs?: number;
  /** Unread output kept per job; older bytes are dropped beyond it (default 1 MB). */
  bufferLimit?: number;
  /** Between SIGTERM and SIGKILL when killing (default 1 s). */
  graceMs?: number;
  /** Finished jobs (whole process group gone) kept for reading; the oldest go first (default 32). */
  keepFinished?: number;
}

export interface JobStatus {
  id: string;
  command: string;
  pid?: number;
  running: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** When it started and (if it has) ended, ms since the epoch. */
  startedAt: number;
  endedAt?: number;
  /** Output not yet read. */
  unreadBytes: number;
  /** Why it could not start. */
  startError?: string;
}

interface Job {
  id: string;
  command: string;
  child: ChildProcess;
  output: UnreadOutput;
  running: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  startedAt: number;
  endedAt?: number;
  startError?: string;
  exited: Promise<void>;
  /**
   * True once every process of the job's group was seen gone. Its group id is then free for
   * the system to hand out again, so it is never signalled afterwards.
   */
  groupGone: boolean;
  /** The environment tag its processes carry, swept when it is killed. */
  tag?: string;
}

export class JobTable {
  private readonly jobs = new Map<string, Job>();
  private counter = 0;
  private readonly spawn: Spawn;
  private readonly now: () => number;

  constructor(private readonly options: JobTableOptions = {}) {
    this.spawn = options.spawn ?? nodeSpawn;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts `/bin/sh -c command` (or `launch`, e.g. the same inside the sandbox) in the background
   * and returns its status (id `job-N`). `tag` marks its processes (see process-group.ts).
   */
  start(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; launch?: { file: string; args: string[] }; tag?: string }): JobStatus {
    const running = [...this.jobs.values()].filter((job) => job.running).length;
    const maxJobs = this.options.maxJobs ?? 16;
    if (running >= maxJobs) {
      throw new ToolError("limit_reached", `${running} background jobs are already running (at most ${maxJobs}).`, [
        "Kill a job you no longer need with ",
        { action: "kill", arguments: { id: "job-N" } },
        ".",
      ]);
    }
    this.forgetOldFinished();
    const id = `job-${++this.counter}`;
    const launch = options.launch ?? { file: "/bin/sh", args: ["-c", command] };
    const child = this.spawn(launch.file, launch.args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const output = new UnreadOutput(this.options.bufferLimit ?? 1024 * 1024);
    let markExited: () => void = () => undefined;
    const job: Job = {
      id,
      command,
      child,
      output,
      running: true,
      exitCode: null,
      signal: null,
      startedAt: this.now(),
      exited: new Promise((resolve) => (markExited = resolve)),
      groupGone: child.pid === undefined,
      ...(options.tag === undefined ? {} : { tag: options.tag }),
    };
    if (child.pid !== undefined) trackGroup(child.pid);
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
    const ended = (): void => {
      if (!job.running) return;
      job.running = false;
      job.endedAt = this.now();
      markExited();
    };
    child.on("error", (error) => {
      job.startError = error.message;
      ended();
    });
    child.on("exit", (code, signal) => {
      job.exitCode = code;
      job.signal = signal;
      // Output still in the pipes gets a moment to arrive before the job counts as ended.
      setTimeout(ended, OUTPUT_DRAIN_MS).unref();
    });
    child.on("close", () => {
      ended();
      if (child.pid !== undefined && !groupAlive(child.pid)) {
        untrackGroup(child.pid);
        job.groupGone = true;
      }
    });
    this.jobs.set(id, job);
    return this.status(job);
  }

  /** Drops the oldest finished jobs (and their output) beyond `keepFinished`; a job whose processes linger is kept so it can be killed. */
  private forgetOldFinished(): void {
    const finished = [...this.jobs.values()].filter((job) => !job.running && (job.groupGone || (job.child.pid !== undefined && !groupAlive(job.child.pid))));
    const excess = finished.length - (this.options.keepFinished ?? 32);
    for (const job of finished.slice(0, Math.max(0, excess))) {
      if (job.child.pid !== undefined) untrackGroup(job.child.pid);
      this.jobs.delete(job.id);
    }
  }

  /** The job's output since the last read, and its status. */
  read(id: string): { status: JobStatus; text: string; droppedBytes: number } {
    const job = this.get(id);
    const { text, droppedBytes } = job.output.take();
    return { status: this.status(job), text, droppedBytes };
  }

  /** Kills the job's whole process group (SIGTERM, then SIGKILL after the grace) and waits for it. */
  async kill(id: string): Promise<JobStatus> {
    const job = this.get(id);
    if (job.child.pid !== undefined && !job.groupGone) {
      await stopGroup(job.child.pid, this.options.graceMs ?? 1000);
      if (!groupAlive(job.child.pid)) job.groupGone = true;
    }
    if (job.tag !== undefined) releaseTag(job.tag);
    if (job.running) await Promise.race([job.exited, new Promise((resolve) => setTimeout(resolve, 1000))]);
    return this.status(job);
  }

  /** One job's status, without taking its output. */
  statusOf(id: string): JobStatus {
    return this.status(this.get(id));
  }

  list(): JobStatus[] {
    return [...this.jobs.values()].map((job) => this.status(job));
  }

  /**
   * Kills every job's processes and closes their output pipes, so a process that escaped
   * everything and still holds a pipe cannot keep clio from exiting.
   */
  async dispose(): Promise<void> {
    await Promise.all([...this.jobs.keys()].map((id) => this.kill(id)));
    for (const job of this.jobs.values()) {
      job.child.stdout?.destroy();
      job.child.stderr?.destroy();
    }
  }

  private get(id: string): Job {
    const job = this.jobs.get(id);
    if (job === undefined) {
      const known = [...this.jobs.keys()];
      throw new ToolError(
        "job_not_found",
        `There is no background job ${id}.`,
        known.length === 0 ? ["No jobs have been started; start one with ", { action: "background" }, "."] : `Known jobs: ${known.join(", ")}.`,
      );
    }
    return job;
  }

  private status(job: Job): JobStatus {
    return {
      id: job.id,
      command: job.command,
      pid: job.child.pid,
      running: job.running,
      exitCode: job.exitCode,
      signal: job.signal,
      startedAt: job.startedAt,
      endedAt: job.endedAt,
      unreadBytes: job.output.unreadBytes,
      startError: job.startError,
    };
  }
}
