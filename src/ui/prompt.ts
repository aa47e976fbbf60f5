/** Asking the person in the terminal: permission questions (y / n / always). */
import { createInterface } from "node:readline/promises";
import type { ChalkInstance } from "chalk";
import type { PermissionAnswer, PermissionAsker, PermissionRequest } from "../manager/permissions.js";

export function terminalAsker(style: ChalkInstance, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): PermissionAsker {
  return async (request: PermissionRequest): Promise<PermissionAnswer> => {
    const readline = createInterface({ input, output, terminal: true });
    try {
      for (;;) {
        const question = permissionQuestion(request, style);
        const answer = parsePermissionAnswer(await readline.question(question));
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

/** `? Allow Running npm test (EXEC.run, exec) [y]es / [n]o / [a]lways (EXEC.run of exactly this command line, this session): ` */
export function permissionQuestion(request: PermissionRequest, style: ChalkInstance): string {
  const always = request.alwaysCovers ? ` (${request.alwaysCovers}, this session)` : " this session";
  return `${style.yellow("?")} Allow ${style.bold(request.description)} ${style.dim(`(${request.protocol}.${request.action}, ${request.permissionClass})`)} [y]es / [n]o / [a]lways${style.dim(always)}: `;
}
