/** Asking the person in the terminal: permission questions (y / n / always). */
import { createInterface } from "node:readline/promises";
import type { ChalkInstance } from "chalk";
import type { PermissionAnswer, PermissionAsker, PermissionRequest } from "../manager/permissions.js";
import { renderChanges } from "./diff-view.js";

export function terminalAsker(style: ChalkInstance, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): PermissionAsker {
  return async (request: PermissionRequest): Promise<PermissionAnswer> => {
    const readline = createInterface({ input, output, terminal: true });
    try {
      const preview = permissionPreview(request, style);
      output.write(preview.text);
      for (;;) {
        const reply = await readline.question(permissionQuestion(request, style, preview.hidden));
        if (preview.hidden && isShowAll(reply)) output.write(permissionPreview(request, style, Number.POSITIVE_INFINITY).text);
        const answer = parsePermissionAnswer(reply);
        if (answer) return answer;
      }
    } finally {
      readline.close();
    }
  };
}

/** `y`/`yes`, `n`/`no`/nothing, `a`/`always`; undefined for anything else (ask again). */
export function parsePermissionAnswer(text: string): PermissionAnswer | undefined {
  const answer = text.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return "yes";
  if (answer === "n" || answer === "no" || answer === "") return "no";
  if (answer === "a" || answer === "always") return "always";
  return undefined;
}

/** True when a person can be asked: both standard input and output are terminals. */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/**
 * `? Allow Running npm test (EXEC.run, exec) [y]es / [n]o / [a]lways (EXEC.run running npm): `,
 * with `[d]iff` to show a diff that was cut (`hiddenLines` of it).
 */
export function permissionQuestion(request: PermissionRequest, style: ChalkInstance, hiddenLines = 0): string {
  const always = request.alwaysCovers ? ` (${request.alwaysCovers}, this session)` : " this session";
  const diff = hiddenLines > 0 ? ` / [d]iff in full` : "";
  return `${style.yellow("?")} Allow ${style.bold(request.description)} ${style.dim(`(${request.protocol}.${request.action}, ${request.permissionClass})`)} [y]es / [n]o / [a]lways${style.dim(always)}${diff}: `;
}

/** True for the answer that asks to see the whole diff. */
export function isShowAll(reply: string): boolean {
  return /^\s*(d|diff)\s*$/i.test(reply);
}

/**
 * What the person must see before answering: the whole command line an exec action runs, the
 * address a network action reaches, and the diff of the files a change touches (cut to
 * `maxLines`, with the count of what was left out).
 */
export function permissionPreview(request: PermissionRequest, style: ChalkInstance, maxLines?: number): { text: string; hidden: number } {
  const lines: string[] = [];
  const subject = request.subject ?? "";
  if (request.permissionClass === "exec" && subject) {
    const [first = "", ...rest] = subject.split("\n");
    lines.push(`  ${style.dim("$")} ${style.bold(first)}`, ...rest.map((line) => `    ${style.bold(line)}`));
  } else if (request.permissionClass === "network" && subject) {
    lines.push(`  ${style.dim("→")} ${style.bold(subject)}`);
  }
  let hidden = 0;
  if (request.changes?.length) {
    const diff = renderChanges(request.changes, style, maxLines);
    hidden = diff.hidden;
    lines.push(...diff.lines.map((line) => `  ${line}`));
    if (hidden) lines.push(`  ${style.yellow(`… ${hidden.toLocaleString("en-US")} more lines of diff`)} ${style.dim("— answer d to see them all")}`);
  }
  return { text: lines.length ? `${lines.join("\n")}\n` : "", hidden };
}
