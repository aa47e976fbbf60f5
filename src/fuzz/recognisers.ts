/**
 * clio recognises a command twice: the streaming command machine finds where a command starts
 * and ends, then the Chevrotain lexer and parser (grammar/parser.ts) read that span into a syntax
 * tree. The two must accept the same language: the machine takes a text as one whole command
 * exactly when Chevrotain does, and when both take it they read the same keys, forms and values.
 * This is the one comparison of the two, used by the `clio fuzz` law and the grammar tests.
 */
import { isDeepStrictEqual } from "node:util";
import type { Command, ParseResult } from "../../grammar/index.js";
import { parseCommandText, type CommandTextResult } from "../../grammar/parser.js";

/** Whether a recogniser took the text as one command spanning all of it, and the command it read. */
export type Verdict = { whole: false } | { whole: true; command: Command };

/** The two recognisers compared: the machine (a whole parse) and Chevrotain (one command from the first character). */
export interface Recognisers {
  parse(text: string): ParseResult;
  /** Chevrotain's reading of the text as one command starting at its first character (default: clio's own). */
  readCommand?(text: string): CommandTextResult;
}

/**
 * How the two read a text (`parsed` is the machine's whole parse): they agree, or the text repeats
 * a key (both refuse it after reading it; that says nothing about the language), or they disagree.
 */
export type Agreement =
  | { kind: "agree"; whole: boolean; parsed: ParseResult }
  | { kind: "duplicate"; parsed: ParseResult }
  | { kind: "disagree"; problem: string; machine: Verdict; chevrotain: Verdict; parsed: ParseResult };

const origin = { offset: 0, line: 1, column: 1 };

/** clio's Chevrotain lexer and parser reading `text` as one command from its first character. */
export function chevrotainReading(text: string): CommandTextResult {
  return parseCommandText(text, origin);
}

function machineVerdict(text: string, result: ParseResult): Verdict {
  const first = result.commands[0];
  return first !== undefined && first.span.start.offset === 0 && first.span.end.offset === text.length ? { whole: true, command: first } : { whole: false };
}

/** Compares the machine's and Chevrotain's reading of `text`. */
export function compareRecognisers(text: string, recognisers: Recognisers): Agreement {
  const reading = (recognisers.readCommand ?? chevrotainReading)(text);
  const parsed = recognisers.parse(text);
  if (!reading.ok && reading.error.code === "duplicate_key") return { kind: "duplicate", parsed };
  const chevrotain: Verdict = reading.ok ? { whole: true, command: reading.command } : { whole: false };
  const machine = machineVerdict(text, parsed);
  const disagree = (problem: string): Agreement => ({ kind: "disagree", problem, machine, chevrotain, parsed });
  // The machine hands the span it found to Chevrotain; an internal error there is a span Chevrotain could not read.
  const unread = parsed.errors.find((error) => error.span.start.offset === 0 && error.message.startsWith("internal"));
  if (unread) return disagree(`the machine took the text as a command that Chevrotain could not read: ${unread.message}`);
  if (machine.whole !== chevrotain.whole) {
    return disagree(machine.whole ? "the machine took the text as one command; Chevrotain refused it" : "Chevrotain took the text as one command; the machine did not");
  }
  if (machine.whole && chevrotain.whole && !isDeepStrictEqual(machine.command, chevrotain.command)) return disagree("both took the text as one command but read it differently");
  return { kind: "agree", whole: machine.whole, parsed };
}
