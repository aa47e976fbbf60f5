/** What a ProtocolManager is given and tells: its options, the events it emits, what it runs. */
import type { Command, SyntaxError as GrammarSyntaxError } from "../../grammar/ast.js";
import type { PermissionClass, PlannedChange, ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import type { ProtocolRegistry } from "../registry.js";
import type { CheckResult } from "./check.js";
import type { PermissionPolicy } from "./permissions.js";
import type { CommandResult } from "./result.js";

/** What the manager tells its listener (`ManagerOptions.onEvent`) as commands start, change files, print and finish. */
export type ManagerEvent =
  | { type: "command-started"; id: number; protocol: string; action: string; permissionClass: PermissionClass; description: string }
  /** Just before an action that changes files runs: their text now and after, for checkpoints. */
  | { type: "files-changing"; id: number; protocol: string; action: string; changes: PlannedChange[] }
  /** Output of a running command as it comes, for a person watching. */
  | { type: "command-output"; id: number; text: string }
  | { type: "command-finished"; id: number; result: CommandResult };

/** What a manager works with: the protocols, their environment, the permission policy and its limits. */
export interface ManagerOptions {
  registry: ProtocolRegistry;
  environment: ProtocolEnvironment;
  permissions: PermissionPolicy;
  /** Characters of output the model reads per command before it is cut (default 20,000). */
  outputLimit?: number;
  /** Where cut outputs are kept whole, relative to the workspace (default `.clio/outputs`). */
  outputFolder?: string;
  /** Read-only commands running at once (default 4). */
  concurrency?: number;
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Called (and awaited) just before an allowed action runs; the function it returns, just after
   * (before command-finished). Undo uses it to see what a shell command changed.
   */
  watchRun?: RunWatcher;
}

/** See `ManagerOptions.watchRun`. */
export type RunWatcher = (run: { protocol: string; action: string; permissionClass: PermissionClass }) => Promise<(() => Promise<void>) | undefined>;

/**
 * Something to run: a command to check and run (with its check result when the caller already
 * has it), or a syntax error to report in its place.
 */
export type Submission = { command: Command; checked?: CheckResult } | { syntaxError: GrammarSyntaxError };

/** One streaming reply's commands (see `ProtocolManager.replyCommands`). */
export interface ReplyCommands {
  /** A command (or syntax error) whose text just arrived. */
  add(submission: Submission): void;
  /** The reply ended whole: held commands start in order, each as `vet` returns it (a refusal, say). */
  release(vet?: (submission: Submission) => Submission): void;
  /** The results of every command started, in order. */
  results(): Promise<CommandResult[]>;
  /** Resolves when every started command has finished (held ones never start). */
  settled(): Promise<void>;
  /** Milliseconds each start took, from arrival to being handed to the scheduler. */
  dispatchDelays: number[];
}
