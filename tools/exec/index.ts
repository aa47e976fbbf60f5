/**
 * The process tool layer: running commands to completion, background jobs, and the
 * environment children get.
 */
export { childEnvironment, commandLine, isSecretName, shellQuote } from "./environment.js";
export { JobTable, type JobStatus, type JobTableOptions } from "./jobs.js";
export { CappedOutput, trimMiddle } from "./output.js";
export { groupAlive, newTag, TAG_VARIABLE, type Spawn } from "./process-group.js";
export { bubblewrapAvailable, readSandboxSettings, sandboxed, type SandboxSettings } from "./sandbox.js";
export { DEFAULT_OUTPUT_LIMIT, runProcess, type CapturedStream, type RunOptions, type RunResult } from "./run.js";
