/**
 * What `clio parse` reports: the commands that would run (decoded by their kinds), the inert
 * mentions, and every error — syntax errors and commands that would not run — in source order.
 */
import type { MentionContext, ParseResult, Position } from "../grammar/ast.js";
import { parse, StreamingScanner } from "../grammar/index.js";
import { collectEvents } from "../grammar/parse.js";
import type { ErrorCode } from "./errors.js";
import { checkCommand } from "./manager/check.js";
import type { ProtocolRegistry } from "./registry.js";

export interface ReportCommand {
  protocol: string;
  action: string;
  args: Record<string, string>;
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

/** Parses in one call, or through the streaming scanner `chunkSize` characters at a time. */
export function parseText(text: string, chunkSize?: number): ParseResult {
  if (!chunkSize || chunkSize <= 0) return parse(text);
  const scanner = new StreamingScanner();
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  for (let offset = 0; offset < text.length; offset += chunkSize) collectEvents(scanner.push(text.slice(offset, offset + chunkSize)), result);
  return collectEvents(scanner.end(), result);
}

export function buildParseReport(result: ParseResult, registry: ProtocolRegistry): ParseReport {
  const commands: ReportCommand[] = [];
  const errors: (ReportError & { offset: number })[] = result.errors.map((error) => ({
    code: error.code,
    message: error.message,
    ...at(error.span.start),
  }));
  for (const command of result.commands) {
    const checked = checkCommand(command, registry);
    if (!checked.ok) {
      const error: ReportError & { offset: number } = { code: checked.error.code satisfies ErrorCode, message: checked.error.message, ...at(command.span.start) };
      if (checked.error.hint) error.hint = checked.error.hint;
      errors.push(error);
      continue;
    }
    const { invocation } = checked;
    commands.push({
      protocol: invocation.protocol,
      action: invocation.action,
      args: invocation.decoded,
      line: command.span.start.line,
      column: command.span.start.column,
      endLine: command.span.end.line,
      endColumn: command.span.end.column,
    });
  }
  errors.sort((left, right) => left.offset - right.offset);
  return {
    commands,
    mentions: result.mentions.map((mention) => ({
      line: mention.span.start.line,
      column: mention.span.start.column,
      context: mention.context,
      text: mention.text,
    })),
    errors: errors.map(({ offset: _offset, ...error }) => error),
  };
}

function at(position: Position): { line: number; column: number; offset: number } {
  return { line: position.line, column: position.column, offset: position.offset };
}
