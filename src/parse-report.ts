/**
 * What `clio parse` reports, exactly as the agent sees a reply: the commands that would run
 * (decoded by their kinds, with the dialect they were written in and, for another dialect, the
 * equivalent clio command), the inert mentions, and every error — syntax errors, calls that could
 * not be mapped, commands that would not run — with its hint, in source order.
 */
import type { Command, Dialect, MentionContext, ParseResult, Position } from "../grammar/ast.js";
import { CallScanner, print } from "../grammar/index.js";
import { collectEvents } from "../grammar/parse.js";
import type { ErrorCode } from "./errors.js";
import { describedOnlyError, hypotheticalSentence } from "./agent/described.js";
import { callVocabularyOf } from "./call-vocabulary.js";
import { checkCommand, type Invocation } from "./manager/check.js";
import type { ProtocolRegistry } from "./registry.js";

export interface ReportCommand {
  protocol: string;
  action: string;
  args: Record<string, string>;
  /** How it was written (`clio` for this language). */
  dialect: Dialect;
  /** For another dialect: the same command in clio's language. */
  equivalent?: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface ReportMention {
  line: number;
  column: number;
  context: MentionContext;
  text: string;
  /** For a call in another dialect: the equivalent clio command. */
  hint?: string;
}

export interface ReportError {
  code: string;
  message: string;
  hint?: string;
  line: number;
  column: number;
}

export interface ParseReport {
  commands: ReportCommand[];
  mentions: ReportMention[];
  errors: ReportError[];
}

/**
 * Parses as the agent does — the scanner with the dialect layer over `registry`'s vocabulary —
 * in one call, or `chunkSize` characters at a time.
 */
export function parseText(text: string, chunkSize?: number, registry?: ProtocolRegistry): ParseResult {
  const scanner = new CallScanner(registry ? callVocabularyOf(registry) : undefined);
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  const size = !chunkSize || chunkSize <= 0 ? Math.max(1, text.length) : chunkSize;
  for (let offset = 0; offset < text.length; offset += size) collectEvents(scanner.push(text.slice(offset, offset + size)), result);
  return collectEvents(scanner.end(), result);
}

/** A checked command that changes things and was written inside a sentence that describes it (see agent/described.ts). */
export function describedOnly(text: string, command: Command, invocation: Invocation): ReturnType<typeof describedOnlyError> | undefined {
  const permission = invocation.definition.permission;
  let permissionClass;
  try {
    permissionClass = typeof permission === "function" ? permission(invocation.args) : permission;
  } catch {
    permissionClass = "write";
  }
  if (permissionClass === "read") return undefined;
  const described = hypotheticalSentence(text, command.span);
  return described === undefined ? undefined : describedOnlyError(described, print(command));
}

/** The report of `result`; `text` (the parsed text) lets it tell commands only described. */
export function buildParseReport(result: ParseResult, registry: ProtocolRegistry, text?: string): ParseReport {
  const commands: ReportCommand[] = [];
  const errors: (ReportError & { offset: number })[] = result.errors.map((error) => {
    const entry: ReportError & { offset: number } = { code: error.code, message: error.message, ...at(error.span.start) };
    if (error.hint !== undefined) entry.hint = error.hint;
    return entry;
  });
  for (const command of result.commands) {
    const checked = checkCommand(command, registry);
    const dialect = command.dialect ?? "clio";
    const equivalent = dialect === "clio" ? undefined : print(command);
    const refused = checked.ok && text !== undefined ? describedOnly(text, command, checked.invocation) : undefined;
    if (!checked.ok || refused) {
      const failure = checked.ok ? refused! : checked.error;
      const error: ReportError & { offset: number } = { code: failure.code satisfies ErrorCode, message: failure.message, ...at(command.span.start) };
      const hint = [failure.hint, equivalent && `In clio's language: ${equivalent}`].filter(Boolean).join(" ");
      if (hint) error.hint = hint;
      errors.push(error);
      continue;
    }
    const { invocation } = checked;
    const entry: ReportCommand = {
      protocol: invocation.protocol,
      action: invocation.action,
      args: invocation.decoded,
      dialect,
      line: command.span.start.line,
      column: command.span.start.column,
      endLine: command.span.end.line,
      endColumn: command.span.end.column,
    };
    if (equivalent) entry.equivalent = equivalent;
    commands.push(entry);
  }
  errors.sort((left, right) => left.offset - right.offset);
  return {
    commands,
    mentions: result.mentions.map((mention) => {
      const entry: ReportMention = { line: mention.span.start.line, column: mention.span.start.column, context: mention.context, text: mention.text };
      if (mention.hint !== undefined) entry.hint = mention.hint;
      return entry;
    }),
    errors: errors.map(({ offset: _offset, ...error }) => error),
  };
}

function at(position: Position): { line: number; column: number; offset: number } {
  return { line: position.line, column: position.column, offset: position.offset };
}
