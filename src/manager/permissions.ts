/**
 * Permissions: each action has a class (read, write, exec, network); a mode and the person's
 * allow/deny rules decide whether it runs, is refused, or asks first. Without anyone to ask,
 * anything that would ask is refused (fail closed).
 */
import type { ResultError } from "../errors.js";
import type { PermissionClass, PlannedChange } from "../../protocols/contract/protocol.js";

export const PERMISSION_MODES = ["plan", "ask", "auto-edit", "yolo"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface PermissionRules {
  /** Rules `PROTOCOL[:action[:value-glob]]` that run without asking (never in plan mode). */
  allow?: string[];
  /** Rules that are always refused, whatever the mode. */
  deny?: string[];
}

export interface PermissionRequest {
  protocol: string;
  action: string;
  permissionClass: PermissionClass;
  /** The one-line description the person reads. */
  description: string;
  /** The first declared parameter's decoded value (the path, command or url): what value globs match. */
  subject?: string;
  /** True when the first declared parameter is a workspace path (see `ParameterDefinition.path`). */
  subjectIsPath?: boolean;
  /**
   * Every form of every path parameter given (see src/manager/path-forms.ts). A deny rule refuses
   * when any form matches (or the form as a folder, `secrets` for `secrets/*`); an allow rule on a
   * path action allows only when every form matches.
   */
  pathForms?: string[];
  /** What answering "always" allows for the rest of the session, for the question's wording. */
  alwaysCovers?: string;
  /** The files the action would change, old and new text, for the question to show as a diff. */
  changes?: PlannedChange[];
}

export type PermissionAnswer = "yes" | "no" | "always";

/** Asks the person; absent when there is no terminal. */
export type PermissionAsker = (request: PermissionRequest) => Promise<PermissionAnswer>;

export type PermissionVerdict = { allowed: true; asked: boolean } | { allowed: false; error: ResultError };

/** Which classes ask, per mode; classes not listed run. */
const ASKING: Record<PermissionMode, PermissionClass[]> = {
  plan: [],
  ask: ["write", "exec", "network"],
  "auto-edit": ["exec", "network"],
  yolo: [],
};

export class PermissionPolicy {
  private readonly grantedForSession = new Set<string>();
  private readonly allowRules: Rule[];
  private readonly denyRules: Rule[];

  constructor(
    public mode: PermissionMode,
    rules: PermissionRules = {},
    private readonly asker?: PermissionAsker,
  ) {
    this.allowRules = (rules.allow ?? []).map((text) => parseRule(text));
    this.denyRules = (rules.deny ?? []).map((text) => parseRule(text, "deny"));
  }

  /** True when some rule matches this action by its value: only then are path forms worth working out. */
  readsValues(protocol: string, action: string): boolean {
    if (this.denyRules.length === 0 && this.allowRules.length === 0) return false;
    const reads = (rule: Rule) => rule.readsValueOf(protocol, action);
    return this.denyRules.some(reads) || this.allowRules.some(reads);
  }

  /** True when a deny rule refuses this action whatever its arguments: the model need not be told of it. */
  refusesAll(protocol: string, action: string): boolean {
    return this.denyRules.some((rule) => !rule.readsValueOf(protocol, action) && rule.matches({ protocol, action, permissionClass: "read", description: "" }));
  }

  /** False when no rule can deny reading a path (`deniesReading` is then false for every one). */
  get mayDenyReading(): boolean {
    return this.denyRules.length > 0;
  }

  /**
   * True when a deny rule with a path glob refuses reading `relative` through one of `readers`
   * (the actions that read one file, e.g. FILE_OP.read): such a path is then left out of every
   * other way of reading too (searches, listings, the code index, diffs).
   */
  deniesReading(relative: string, readers: readonly { protocol: string; action: string }[]): boolean {
    // Asked once per indexed path when an index opens: without deny rules there is nothing to match.
    if (this.denyRules.length === 0) return false;
    return readers.some(({ protocol, action }) =>
      this.denyRules.some(
        (rule) =>
          rule.readsValueOf(protocol, action) &&
          rule.matches({ protocol, action, permissionClass: "read", description: "", subject: relative, subjectIsPath: true, pathForms: [relative] }),
      ),
    );
  }

  async decide(request: PermissionRequest): Promise<PermissionVerdict> {
    return this.decideWithoutAsking(request) ?? this.ask(request);
  }

  /**
   * The verdict `decide` gives when it needs no question (a deny rule, a read, plan mode, a mode
   * that does not ask, an allow rule, "always" given before); undefined when the person must be asked.
   */
  decideWithoutAsking(request: PermissionRequest): PermissionVerdict | undefined {
    const denying = this.denyRules.length === 0 ? undefined : this.denyRules.find((rule) => rule.matches(request));
    if (denying) {
      return refuse(
        `${request.protocol}.${request.action} is refused by the deny rule "${denying.text}".`,
        "Choose another way, or ask the person to change their permission rules.",
      );
    }
    if (request.permissionClass === "read") return { allowed: true, asked: false };
    if (this.mode === "plan") {
      return refuse(
        `${request.protocol}.${request.action} is a ${request.permissionClass} action and plan mode is read-only: nothing was changed or run.`,
        "Describe the change you would make instead; the person can switch mode (/mode or --permission-mode) to let it run.",
      );
    }
    if (!ASKING[this.mode].includes(request.permissionClass)) return { allowed: true, asked: false };
    if (this.allowRules.some((rule) => rule.matches(request))) return { allowed: true, asked: false };
    const scope = alwaysScope(request);
    if (scope.key !== undefined && this.grantedForSession.has(scope.key)) return { allowed: true, asked: false };
    return undefined;
  }

  /** Puts `request` to the person (refused when there is no one to ask). */
  private async ask(request: PermissionRequest): Promise<PermissionVerdict> {
    const label = `${request.protocol}.${request.action}`;
    const scope = alwaysScope(request);
    if (!this.asker) {
      return refuse(`${label} needs the person's permission (${request.permissionClass}) and there is no terminal to ask, so it was refused.`, unattendedHint(request));
    }
    const answer = await this.asker({ ...request, alwaysCovers: scope.description });
    if (answer === "always" && scope.key !== undefined) this.grantedForSession.add(scope.key);
    if (answer === "no") {
      return refuse(`The person declined ${label} (${request.description}).`, "Ask what they would like instead, or try another approach.");
    }
    return { allowed: true, asked: true };
  }
}

/**
 * What "always" grants for the rest of the session, as a key of what was approved and the
 * words the question shows: for a command, exactly that command line (`python3 notes/hello.py`
 * allows neither `python3 --version` nor the same line with `; touch x` after it), and nothing
 * for a chain of commands, which is approved once each time; for an action on a file, that
 * file; otherwise every use of the action.
 */
function alwaysScope(request: PermissionRequest): { key?: string; description: string } {
  const label = `${request.protocol}.${request.action}`;
  if (request.permissionClass === "exec") {
    const line = (request.subject ?? "").trim();
    if (line === "" || SHELL_SEPARATOR.test(line)) return { description: `"always" is not offered for chained commands: it allows this once` };
    return { key: `${label}\u0000${line}`, description: `${label} of exactly this command line` };
  }
  const forms = [...(request.subjectIsPath ? (request.pathForms ?? []) : [])].sort();
  if (forms.length > 0) return { key: `${label}\u0000${forms.join("\u0000")}`, description: `${label} of ${forms[0]} only` };
  return { key: label, description: `every ${label}` };
}

/**
 * How the person could let this very action run without a terminal: the mode that runs its class,
 * or the allow rule that names it (a command exactly as written; other actions as a whole), for
 * the config's `permissions.allow`.
 */
export function unattendedHint(request: PermissionRequest): string {
  const mode = request.permissionClass === "write" ? "auto-edit" : "yolo";
  const command = request.permissionClass === "exec" ? request.subject : undefined;
  const exact = command !== undefined && !/[\r\n*]/.test(command) && command.length <= 200;
  const rule = exact ? `${request.protocol}:${request.action}:${command}` : `${request.protocol}:${request.action}`;
  return `Nothing ran. To allow it, run with --permission-mode ${mode} (or CLIO_PERMISSION_MODE=${mode}), or add ${JSON.stringify(rule)} to permissions.allow in .clio/config.json.`;
}

function refuse(message: string, hint: string): PermissionVerdict {
  return { allowed: false, error: { code: "permission_denied", message, hint } };
}

interface Rule {
  text: string;
  matches(request: PermissionRequest): boolean;
  /** True when the rule names this action and has a value glob (so it reads the subject). */
  readsValueOf(protocol: string, action: string): boolean;
}

/**
 * `PROTOCOL[:action[:value-glob]]`. In an allow rule's value glob `*` matches any run of characters
 * except shell control characters (; & | ` $ ( ) < > and line breaks), so `EXEC:run:npm test*`
 * allows `npm test -- --watch` but never `npm test; rm -rf ~`. A deny rule errs the other way:
 * its `*` matches anything, and it also matches when any one of the shell commands chained in
 * the value does, so `EXEC:run:rm *` refuses `ls; rm -rf build` too.
 */
export function parseRule(text: string, kind: "allow" | "deny" = "allow"): Rule {
  const [protocol = "", action, ...rest] = text.split(":");
  const glob = rest.length ? rest.join(":") : undefined;
  const pattern = glob === undefined ? undefined : globToRegExp(glob, kind === "allow" ? "[^;&|`$()<>\\r\\n]*" : "[\\s\\S]*");
  const subjectMatches = (subject: string) => (kind === "allow" ? pattern!.test(subject) : [subject, ...subject.split(SHELL_SEPARATOR)].some((part) => pattern!.test(part.trim())));
  const names = (requestProtocol: string, requestAction: string) =>
    (protocol === "*" || protocol.toUpperCase() === requestProtocol.toUpperCase()) && (action === undefined || action === "*" || action === requestAction);
  return {
    text,
    readsValueOf: (requestProtocol, requestAction) => pattern !== undefined && names(requestProtocol, requestAction),
    matches(request) {
      if (!names(request.protocol, request.action)) return false;
      if (pattern === undefined) return true;
      const forms = request.pathForms ?? [];
      if (kind === "deny") return subjectMatches(request.subject ?? "") || forms.some((form) => pattern.test(form) || pattern.test(`${form}/`));
      if (request.subjectIsPath) return forms.length > 0 && forms.every((form) => pattern.test(form));
      return subjectMatches(request.subject ?? "");
    },
  };
}

/** Where one shell command ends and another begins (or a substitution starts). */
const SHELL_SEPARATOR = /[;&|`()\r\n]|\$\(/;

function globToRegExp(glob: string, star: string): RegExp {
  const escaped = glob.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(star)}$`);
}
