/**
 * Running a script as a test: in a given workspace or a fresh temporary copy of a fixture
 * folder, with its results normalised for comparison against an expectation file.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { PermissionAsker, PermissionMode, PermissionRules } from "../manager/permissions.js";
import type { CommandResult } from "../manager/result.js";
import type { ProtocolRegistry } from "../registry.js";
import { discoverProtocolsOf } from "../protocol-sources.js";
import { createRuntime, type RuntimeOptions } from "../runtime.js";
import { compareResults, type Difference } from "./compare.js";
import { expectedFromResult, type ExpectationFile, type ExpectedResult } from "./expectations.js";
import { colourlessEnvironment, deterministicProtocolConfig, type GitAuthor } from "./deterministic.js";
import type { NormaliseContext } from "./normalise.js";
import { replayScript, type CommandSelector, type ReplayOutcome } from "./replay.js";

export interface ScriptRunOptions {
  /** The workspace to run in (default: the current folder). Ignored with `freshCopy`. */
  workspace?: string;
  /** A fixture folder copied into a new temporary workspace that is removed afterwards. */
  freshCopy?: string;
  permissionMode: PermissionMode;
  rules?: PermissionRules;
  asker?: PermissionAsker;
  stopOnError?: boolean;
  /** Only these commands run (`--only`). */
  select?: CommandSelector;
  signal?: AbortSignal;
  /** Told the fresh copy's folder as soon as it exists, so a forced exit can still remove it. */
  onWorkspace?: (folder: string) => void;
  onResult?: (result: CommandResult) => void;
  /**
   * Whether the run keeps every result, raw and in recorded form (default true). A caller that
   * compares or records nothing and takes each result through `onResult` passes false: the run
   * then gives only counts (`outcome.ran`, `outcome.failed`) and no `expected`.
   */
  keepResults?: boolean;
  registry?: ProtocolRegistry;
  protocolConfig?: Record<string, unknown>;
  /** MCP servers and shell protocols from config. */
  extensions?: RuntimeOptions["extensions"];
  env?: NodeJS.ProcessEnv;
  /** More paths that stand for the workspace in results (a session's original workspace). */
  workspaceAliases?: string[];
  /** The normalisers and redactions of the expectation file the run is compared with (default: every normaliser). */
  normalising?: Pick<NormaliseContext, "names" | "redactions">;
  /** The author of the commits the script makes (default REPLAY_GIT_AUTHOR, whatever the git config says). */
  gitAuthor?: GitAuthor;
}

export interface ScriptRun {
  outcome: ReplayOutcome;
  /** Every result in recorded (normalised) form; empty when the run kept no results (`keepResults: false`). */
  expected: ExpectedResult[];
  /** The folder the script ran in (already removed for a fresh copy). */
  workspace: string;
}

/** Makes a temporary copy of `fixture` and returns its path; the caller removes it. */
export async function freshWorkspaceCopy(fixture: string): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "clio-replay-"));
  try {
    await cp(fixture, folder, { recursive: true, verbatimSymlinks: true });
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`Cannot copy the fixture folder ${fixture}: ${code === "ENOENT" ? "no such folder" : (error as Error).message}.`);
  }
  return folder;
}

/** Runs `text` and gives its results in raw and recorded form. Never leaves a fresh copy behind. */
export async function runScript(text: string, options: ScriptRunOptions): Promise<ScriptRun> {
  const workspace = options.freshCopy ? await freshWorkspaceCopy(options.freshCopy) : path.resolve(options.workspace ?? process.cwd());
  if (options.freshCopy) options.onWorkspace?.(workspace);
  try {
    const runtime = await createRuntime({
      workspace,
      permissionMode: options.permissionMode,
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.asker ? { asker: options.asker } : {}),
      ...(options.registry ? { registry: options.registry } : {}),
      protocolConfig: deterministicProtocolConfig(options.protocolConfig ?? {}, options.gitAuthor),
      env: colourlessEnvironment(options.env ?? process.env),
      ...(options.extensions ? { extensions: options.extensions } : {}),
    });
    let outcome: ReplayOutcome;
    try {
      await discoverProtocolsOf(runtime.registry, text);
      await runtime.manager.prepareFor(text);
      outcome = await replayScript(text, runtime.manager, {
        stopOnError: options.stopOnError ?? false,
        ...(options.select ? { select: options.select } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onResult ? { onResult: options.onResult } : {}),
        keepResults: options.keepResults ?? true,
      });
    } finally {
      await runtime.manager.dispose();
    }
    const context: NormaliseContext = { workspaceRoots: [workspace, runtime.environment.workspace.root, ...(options.workspaceAliases ?? [])], ...options.normalising };
    return { outcome, expected: outcome.results.map((result, index) => expectedFromResult(result, context, outcome.commands[index])), workspace };
  } finally {
    if (options.freshCopy) await rm(workspace, { recursive: true, force: true });
  }
}

/** Compares a run with its expectations; `scriptName` is the script's file name without folders. */
export function checkRun(run: ScriptRun, expectations: ExpectationFile, scriptName: string): Difference[] {
  return compareResults(expectations, scriptName, run.expected);
}
