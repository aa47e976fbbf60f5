/**
 * Dry runs: a script is parsed, every command checked, and the permission policy asked what it
 * would do — run, ask, or refuse — without running anything: no handler and no protocol setup
 * is ever called.
 */
import type { Mention } from "../../grammar/ast.js";
import { checkCommand } from "../manager/check.js";
import { permissionSubject } from "../manager/path-forms.js";
import { PermissionPolicy, type PermissionMode, type PermissionRules } from "../manager/permissions.js";
import type { Workspace } from "../../tools/workspace.js";
import type { PermissionClass } from "../../protocols/contract/protocol.js";
import type { ProtocolRegistry } from "../registry.js";
import { callVocabularyOf } from "../call-vocabulary.js";
import { scriptSubmissions } from "./replay.js";

/** What would happen to one command. */
export type PlanVerdict =
  /** Runs without asking. */
  | "run"
  /** Asks the person first. */
  | "ask"
  /** Refused by the mode or a deny rule (or asking with no one to ask). */
  | "refuse"
  /** Fails its checks (unknown protocol or action, bad argument). */
  | "invalid"
  /** Not even a command: a syntax error. */
  | "syntax";

export interface PlannedCommand {
  line: number;
  column: number;
  protocol: string;
  action: string | null;
  permissionClass: PermissionClass | null;
  description: string;
  verdict: PlanVerdict;
  /** Why it is refused, invalid or a syntax error. */
  reason?: string;
  errorCode?: string;
}

export interface PlanOptions {
  registry: ProtocolRegistry;
  mode: PermissionMode;
  /** The person's allow and deny rules: the same the real run applies. */
  rules?: PermissionRules;
  /** The workspace the run would use: path rules match where paths really land, as in the run. */
  workspace: Workspace;
  /** Whether someone could answer a question; without, asking commands are refused. */
  interactive?: boolean;
}

export interface ScriptPlan {
  commands: PlannedCommand[];
  mentions: Mention[];
}

export async function planScript(text: string, options: PlanOptions): Promise<ScriptPlan> {
  const { submissions, mentions } = scriptSubmissions(text, undefined, callVocabularyOf(options.registry));
  const commands: PlannedCommand[] = [];
  for (const submission of submissions) {
    if ("syntaxError" in submission) {
      const { syntaxError } = submission;
      commands.push({
        line: syntaxError.span.start.line,
        column: syntaxError.span.start.column,
        protocol: syntaxError.protocol?.toUpperCase() ?? "SYNTAX",
        action: null,
        permissionClass: null,
        description: "syntax error",
        verdict: "syntax",
        reason: syntaxError.message,
        errorCode: "syntax_error",
      });
      continue;
    }
    const { start } = submission.command.span;
    const checked = checkCommand(submission.command, options.registry);
    if (!checked.ok) {
      const action = checked.action ?? null;
      commands.push({
        line: start.line,
        column: start.column,
        protocol: checked.protocol,
        action,
        permissionClass: null,
        description: action ? `${checked.protocol}.${action}` : checked.protocol,
        verdict: "invalid",
        reason: checked.error.message,
        errorCode: checked.error.code,
      });
      continue;
    }
    const { invocation } = checked;
    const base = { line: start.line, column: start.column, protocol: invocation.protocol, action: invocation.action };
    let permissionClass: PermissionClass;
    let description: string;
    try {
      const permission = invocation.definition.permission;
      permissionClass = typeof permission === "function" ? permission(invocation.args) : permission;
      description = invocation.definition.describe(invocation.args);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      commands.push({ ...base, permissionClass: null, description: `${invocation.protocol}.${invocation.action}`, verdict: "invalid", reason, errorCode: "invalid_argument" });
      continue;
    }
    let asked = false;
    // A fresh policy per command: "always" answers in a real run would change later verdicts, a plan does not assume them.
    const policy = new PermissionPolicy(
      options.mode,
      options.rules,
      options.interactive
        ? async () => {
            asked = true;
            return "yes";
          }
        : undefined,
    );
    const { protocol, action } = invocation;
    const subject = await permissionSubject(invocation.definition, invocation.decoded, { workspace: options.workspace, permissions: policy, protocol, action, permissionClass });
    const verdict = await policy.decide({ protocol, action, permissionClass, description, ...subject });
    if (!verdict.allowed) {
      commands.push({ ...base, permissionClass, description, verdict: "refuse", reason: verdict.error.message, errorCode: verdict.error.code });
    } else {
      commands.push({ ...base, permissionClass, description, verdict: asked ? "ask" : "run" });
    }
  }
  return { commands, mentions };
}

/** The plan as lines a person reads: `3:1  run     write  Writing notes.md`. */
export function formatPlan(plan: ScriptPlan): string {
  const lines = plan.commands.map((command) => {
    const place = `${command.line}:${command.column}`.padEnd(8);
    const verdict = command.verdict.padEnd(8);
    const permission = (command.permissionClass ?? "-").padEnd(8);
    const reason = command.reason ? ` — ${command.reason}` : "";
    return `${place}${verdict}${permission}${command.description}${reason}`;
  });
  const counts = new Map<PlanVerdict, number>();
  for (const command of plan.commands) counts.set(command.verdict, (counts.get(command.verdict) ?? 0) + 1);
  const summary = [...counts.entries()].map(([verdict, count]) => `${count} ${verdict}`).join(", ");
  lines.push(`Dry run: nothing was executed. ${plan.commands.length} command(s): ${summary || "none"}; ${plan.mentions.length} mention(s) in code stay inert.`);
  return lines.join("\n");
}
