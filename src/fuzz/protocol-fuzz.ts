/**
 * Protocol robustness: random well-formed and malformed commands for one protocol run in a
 * throwaway sandbox with permission mode yolo. Each case must give structured results — no
 * untyped exception (`internal_error`), no hang past the timeout, nothing written outside the
 * workspace, nothing left running after the manager is disposed.
 *
 * Two classes are gated so nothing leaves the machine or runs arbitrary shell text: an exec-class
 * command runs only when every text value is from SAFE_COMMANDS (or the harmless paths the
 * generator mixes in); a network-class command runs only when every text value that looks like
 * an address is one of LOCAL_URLS. Gated commands are still parsed and checked, never handled.
 */
import fc from "fast-check";
import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ProtocolManager } from "../manager/manager.js";
import { PermissionPolicy } from "../manager/permissions.js";
import type { CommandResult } from "../manager/result.js";
import type { ParameterDefinition, ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { ProtocolRegistry } from "../registry.js";
import { FuzzInterrupted, type LawStatistics } from "./grammar-laws.js";
import { scriptSubmissions } from "../replay/replay.js";
import { Workspace } from "../../tools/workspace.js";
import { isSafeExecValue, LOCAL_URLS } from "./arbitraries.js";
import { scriptArbitrary } from "./commands.js";
import { currentDescendants, killAll, waitForLeftovers } from "./processes.js";
import { createFuzzSandbox, outsidePathsFor, removeTree, snapshotChanges, snapshotOutside, type FuzzSandbox } from "./sandbox.js";

export interface ProtocolFuzzOptions {
  /** Random cases (each a script of 1–3 commands). */
  runs: number;
  seed: number;
  /** Longest a command may take before the case counts as a hang (default 10 s). */
  commandTimeoutMs?: number;
  /** Count `internal_error` results (an untyped exception a handler let escape) as failures (default true). */
  strict?: boolean;
  /** How long processes may take to exit after dispose before they count as left running (default 3 s). */
  leftoverGraceMs?: number;
  /** Stop after this long (the runs so far count). */
  timeLimitMs?: number;
  /** When aborted, the remaining cases are skipped. */
  signal?: AbortSignal;
  /** Told the run's temporary folder, so a forced exit can remove it. */
  onRunFolder?: (folder: string) => void;
}

export interface FuzzFailure {
  /** A grammar law, or a protocol's robustness. */
  kind: "grammar" | "protocol";
  target: string;
  seed: number;
  /** fast-check's path to the shrunk case. */
  path?: string;
  /** The runs asked for: with the seed, a rerun finds the same case. */
  runs: number;
  /** The shrunk counterexample as a one-line script (or, for a grammar law, as text to read). */
  script: string;
  problem: string;
  /** The shrunk value itself (JSON), as a corpus case keeps it to check it again. */
  value?: unknown;
}

export interface FuzzOutcome {
  target: string;
  runs: number;
  /** Commands run through a handler, refused by the gate, and failing their checks, and the results' errors by code — for the report. */
  counts: CommandCounts;
  failure?: FuzzFailure;
  /** What a grammar law's cases held. */
  statistics?: LawStatistics;
  durationMs?: number;
}

/** What a protocol's cases held. */
export interface CommandCounts {
  handled: number;
  gated: number;
  rejected: number;
  /** Failed results (a check's refusal or a handler's error) by error code. */
  errors: Record<string, number>;
}

export function emptyCounts(): CommandCounts {
  return { handled: 0, gated: 0, rejected: 0, errors: {} };
}

const LOOKS_LIKE_ADDRESS = /^[a-z][a-z0-9+.-]*:|\.|\/\//i;

/**
 * Whether a checked command may reach its handler in a fuzz run: exec only with safe values
 * (see isSafeExecValue), network only when no value could lead off this machine.
 */
export function fuzzGateAllows(permissionClass: string, decoded: Record<string, string>, parameters: Record<string, ParameterDefinition>): boolean {
  const given = Object.entries(decoded).filter(([key]) => key !== "action" && Object.hasOwn(parameters, key));
  if (permissionClass === "exec") return given.every(([key, value]) => isSafeExecValue(parameters[key]!, value));
  // Every value, words included (a remote's name may be an address): none may lead off this machine.
  if (permissionClass === "network") return given.every(([, value]) => LOCAL_URLS.includes(value) || !LOOKS_LIKE_ADDRESS.test(value));
  return true;
}

function withTimeout<T>(promise: Promise<T>, milliseconds: number, onTimeout: () => void): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve("timeout");
    }, milliseconds);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A message on one line (line breaks written as \n), cut at `limit` characters. */
function shorten(text: string, limit = 300): string {
  const line = text.replace(/\r?\n/g, "\\n");
  return line.length > limit ? `${line.slice(0, limit)}… (${line.length} characters)` : line;
}

/** What is wrong with a result under the robustness property (undefined when nothing is). */
export function structuralProblem(result: CommandResult, strict: boolean): string | undefined {
  if (typeof result !== "object" || result === null || typeof result.ok !== "boolean") return "the result is not a result object";
  if (result.ok) return typeof result.output === "string" ? undefined : "a successful result has no output text";
  if (!result.error || typeof result.error.code !== "string" || !result.error.message) return "a failed result has no error code and message";
  if (strict && result.error.code === "internal_error") return `an untyped exception escaped the handler: ${shorten(result.error.message)}`;
  return undefined;
}

/** Runs one case (a list of one-line commands) in a fresh sandbox; returns the problems found. */
export async function runFuzzCase(
  protocol: ProtocolDefinition,
  lines: string[],
  options: { location: string; commandTimeoutMs: number; strict: boolean; leftoverGraceMs: number; baseline: ReadonlySet<number>; counts: FuzzOutcome["counts"] },
): Promise<string[]> {
  const sandbox = await createFuzzSandbox(options.location);
  const problems: string[] = [];
  const savedHome = { HOME: process.env.HOME, CLIO_HOME: process.env.CLIO_HOME };
  process.env.HOME = sandbox.home;
  process.env.CLIO_HOME = sandbox.home;
  try {
    const before = await snapshotOutside(sandbox);
    const manager = new ProtocolManager({
      registry: new ProtocolRegistry([protocol]),
      environment: { workspace: await Workspace.open(sandbox.workspace), config: {}, env: { ...process.env }, now: Date.now, userAgent: "clio-fuzz" },
      permissions: new PermissionPolicy("yolo"),
    });
    try {
      await runCommands(manager, lines.join(" "), options, problems);
    } finally {
      const disposed = await withTimeout(manager.dispose(), options.commandTimeoutMs, () => {});
      if (disposed === "timeout") problems.push(`dispose() did not finish within ${options.commandTimeoutMs} ms`);
    }
    const leftovers = await waitForLeftovers(sandbox.base, options.baseline, options.leftoverGraceMs);
    if (leftovers.length) {
      problems.push(`processes left running after dispose: ${leftovers.map((info) => `${info.pid} (${info.command})`).join(", ")}`);
      const unkillable = await killAll(leftovers);
      if (unkillable.length) problems.push(`still running after SIGKILL: ${unkillable.map((info) => `${info.pid} (${info.command})`).join(", ")}`);
    }
    const changes = snapshotChanges(before, await snapshotOutside(sandbox));
    if (changes.length) problems.push(`written outside the workspace: ${changes.join("; ")}`);
  } finally {
    process.env.HOME = savedHome.HOME;
    process.env.CLIO_HOME = savedHome.CLIO_HOME;
    if (savedHome.HOME === undefined) delete process.env.HOME;
    if (savedHome.CLIO_HOME === undefined) delete process.env.CLIO_HOME;
    // A removal that fails or has to try again is the case's problem, never an exception that ends the run.
    try {
      const note = await sandbox.remove();
      if (note !== undefined) problems.push(note);
    } catch (error) {
      problems.push(`the sandbox could not be removed after dispose(): ${error instanceof Error ? error.message : String(error)}; something the case started still writes into it`);
    }
  }
  return problems;
}

async function runCommands(
  manager: ProtocolManager,
  script: string,
  options: { commandTimeoutMs: number; strict: boolean; counts: FuzzOutcome["counts"] },
  problems: string[],
): Promise<void> {
  for (const submission of scriptSubmissions(script).submissions) {
    if ("command" in submission) {
      const checked = manager.check(submission.command);
      if (!checked.ok) {
        options.counts.rejected++;
      } else {
        const { invocation } = checked;
        let permissionClass: string;
        try {
          permissionClass = manager.permissionClassOf(invocation);
        } catch {
          permissionClass = "unknown";
        }
        if (!fuzzGateAllows(permissionClass, invocation.decoded, invocation.definition.parameters as Record<string, ParameterDefinition>)) {
          options.counts.gated++;
          continue;
        }
        options.counts.handled++;
      }
    }
    const controller = new AbortController();
    const result = await withTimeout(manager.submit(submission, controller.signal), options.commandTimeoutMs, () => controller.abort());
    if (result === "timeout") {
      problems.push(`a command did not finish within ${options.commandTimeoutMs} ms`);
      return;
    }
    if (!result.ok && typeof result.error?.code === "string") options.counts.errors[result.error.code] = (options.counts.errors[result.error.code] ?? 0) + 1;
    const problem = structuralProblem(result, options.strict);
    if (problem) problems.push(`${result.protocol}.${result.action ?? "?"} at ${result.line}:${result.column}: ${problem}`);
  }
}

/** Fuzzes one protocol with fast-check; on failure, the shrunk case and the seed to rerun it. */
export async function fuzzProtocol(protocol: ProtocolDefinition, options: ProtocolFuzzOptions): Promise<FuzzOutcome> {
  const baseline = await currentDescendants();
  const counts = emptyCounts();
  // Every case runs at the same place, so generated absolute paths aim at this run's sentinel.
  const runFolder = await realpath(await mkdtemp(path.join(os.tmpdir(), "clio-fuzz-")));
  options.onRunFolder?.(runFolder);
  const location = path.join(runFolder, "case");
  const caseOptions = {
    location,
    commandTimeoutMs: options.commandTimeoutMs ?? 10_000,
    strict: options.strict ?? true,
    leftoverGraceMs: options.leftoverGraceMs ?? 3000,
    baseline,
    counts,
  };
  const outsidePaths = outsidePathsFor(location);
  const property = fc.asyncProperty(scriptArbitrary({ protocol, outsidePaths }), async (lines) => {
    if (options.signal?.aborted) throw new FuzzInterrupted();
    const problems = await runFuzzCase(protocol, lines, caseOptions);
    if (problems.length) throw new Error(problems.join("\n"));
  });
  try {
    const limit = options.timeLimitMs ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false } : {};
    const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, ...limit });
    const outcome: FuzzOutcome = { target: protocol.name, runs: details.numRuns, counts };
    if (details.failed && details.counterexample && !(details.errorInstance instanceof FuzzInterrupted)) {
      const error = details.errorInstance;
      let lines = details.counterexample[0];
      let problem = error instanceof Error ? error.message : String(error);
      // Drop whole commands while the case still fails: fast-check's shrinking can leave ones that do not matter.
      for (let index = 0; index < lines.length && lines.length > 1; ) {
        const fewer = [...lines.slice(0, index), ...lines.slice(index + 1)];
        const found = await runFuzzCase(protocol, fewer, { ...caseOptions, counts: emptyCounts() });
        if (found.length === 0) index++;
        else [lines, problem] = [fewer, found.join("\n")];
      }
      outcome.failure = {
        kind: "protocol",
        target: protocol.name,
        seed: details.seed,
        runs: options.runs,
        script: lines.join(" ").split(location).join(FUZZ_CASE_PLACEHOLDER),
        value: lines.map((line) => line.split(location).join(FUZZ_CASE_PLACEHOLDER)),
        problem,
        ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
      };
    }
    return outcome;
  } finally {
    await removeRunFolder(runFolder);
  }
}

/** Checks a saved case (its lines, with `<sandbox>` for the sandbox) again; gives the problems, none when the property holds now. */
export async function recheckProtocolCase(protocol: ProtocolDefinition, lines: string[], options: { strict?: boolean } = {}): Promise<string[]> {
  const runFolder = await realpath(await mkdtemp(path.join(os.tmpdir(), "clio-fuzz-")));
  const location = path.join(runFolder, "case");
  try {
    const caseOptions = {
      location,
      commandTimeoutMs: 10_000,
      strict: options.strict ?? true,
      leftoverGraceMs: 3000,
      baseline: await currentDescendants(),
      counts: emptyCounts(),
    };
    return await runFuzzCase(
      protocol,
      lines.map((line) => line.split(FUZZ_CASE_PLACEHOLDER).join(location)),
      caseOptions,
    );
  } finally {
    await removeRunFolder(runFolder);
  }
}

/** The run's temporary folder removed; one that cannot be (a process the cases started still writes into it) is left, its case already reported. */
async function removeRunFolder(runFolder: string): Promise<void> {
  await removeTree(runFolder).catch(() => undefined);
}

/** Stands for the sandbox folder in a reported counterexample (its paths change from run to run). */
export const FUZZ_CASE_PLACEHOLDER = "<sandbox>";

/** A kept sandbox holding the failing case as `case.md`, and the command that replays it there. */
export async function reproductionFor(failure: FuzzFailure, options: { strict?: boolean } = {}): Promise<{ sandbox: FuzzSandbox; command: string }> {
  const sandbox = await createFuzzSandbox();
  const casePath = path.join(sandbox.base, "case.md");
  await writeFile(casePath, `${failure.script.split(FUZZ_CASE_PLACEHOLDER).join(sandbox.base)}\n`);
  const check = options.strict === false ? "--fuzz-check allow-internal-errors" : "--fuzz-check";
  return { sandbox, command: `HOME=${sandbox.home} CLIO_HOME=${sandbox.home} clio replay ${casePath} --workspace ${sandbox.workspace} --permission-mode yolo ${check}` };
}
