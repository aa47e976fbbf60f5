/**
 * The Chevrotain parser for one complete command's text, and the step that turns its tokens
 * into the syntax tree of ast.ts with absolute positions.
 *
 *     command := CommandOpen param ( Colon param )* Close
 *     param   := Key ( Equals ( Bare | Quoted ) | HeredocOpen HeredocBody )
 *
 * The streaming scanner only hands over text it has already recognised as a whole command, so
 * a lexing or parsing failure here means the two disagree: it becomes an error entry, never a throw.
 */
import { EmbeddedActionsParser, type IToken } from "chevrotain";
import type { Command, Parameter, Position, SyntaxError, ValueForm } from "./ast.js";
import { allTokens, Bare, Close, Colon, commandLexer, CommandOpen, Equals, HeredocBody, HeredocOpen, Key, Quoted } from "./lexer.js";
import * as messages from "./messages.js";
import { plainCommand } from "./plain-command.js";
import { firstAtOrAfter } from "./sorted.js";

interface RawParameter {
  key: IToken;
  value: IToken;
  form: ValueForm;
  tag?: string;
}

interface RawCommand {
  open: IToken;
  parameters: RawParameter[];
  close: IToken;
}

class CommandParser extends EmbeddedActionsParser {
  // Alternatives are built once: closures created per call would dominate the parse time.
  private readonly valueAlternatives = [
    { ALT: () => ({ value: this.CONSUME(Bare), form: "bare" as ValueForm, tag: undefined as string | undefined }) },
    { ALT: () => ({ value: this.CONSUME(Quoted), form: "quoted" as ValueForm, tag: undefined as string | undefined }) },
  ];

  private readonly assignmentAlternatives = [
    {
      ALT: () => {
        this.CONSUME(Equals);
        return this.OR2(this.valueAlternatives);
      },
    },
    {
      ALT: () => {
        const open = this.CONSUME(HeredocOpen);
        const tag = (open.payload as { tag: string } | undefined)?.tag;
        return { value: this.CONSUME(HeredocBody), form: "heredoc" as ValueForm, tag };
      },
    },
  ];

  readonly parameter = this.RULE("parameter", (): RawParameter => {
    const key = this.CONSUME(Key);
    const { value, form, tag } = this.OR(this.assignmentAlternatives);
    return { key, value, form, tag };
  });

  private readonly moreParameters = {
    DEF: () => {
      this.CONSUME(Colon);
      this.parameters.push(this.SUBRULE2(this.parameter));
    },
  };

  private parameters: RawParameter[] = [];

  readonly command = this.RULE("command", (): RawCommand => {
    const open = this.CONSUME(CommandOpen);
    const parameters: RawParameter[] = [this.SUBRULE(this.parameter)];
    this.parameters = parameters;
    this.MANY(this.moreParameters);
    const close = this.CONSUME(Close);
    return { open, parameters, close };
  });

  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 1, skipValidations: true });
    this.performSelfAnalysis();
  }
}

let parser: CommandParser | undefined;

function commandParser(): CommandParser {
  parser ??= new CommandParser();
  return parser;
}

/** Maps offsets inside a command's text to absolute positions. */
class PositionMap {
  private readonly lineFeeds: number[] = [];

  constructor(
    text: string,
    private readonly start: Position,
  ) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // A line ends at \n, or at a lone \r (CommonMark): the scanner counted its lines so.
      if (code === 0x0a || (code === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) this.lineFeeds.push(i);
    }
  }

  at(relative: number): Position {
    const feeds = this.lineFeeds;
    const low = firstAtOrAfter(feeds, relative);
    const offset = this.start.offset + relative;
    if (low === 0) return { offset, line: this.start.line, column: this.start.column + relative };
    return { offset, line: this.start.line + low, column: relative - feeds[low - 1]! };
  }
}

export type CommandTextResult = { ok: true; command: Command } | { ok: false; error: SyntaxError };

/**
 * Parses the text of one complete command (from `[` through `]`) that starts at `start`.
 * Duplicate keys are reported here (`duplicate_key`, at the second occurrence). A command in the
 * plain form (plain-command.ts) is read without the lexer and parser, to the same result.
 */
export function parseCommandText(text: string, start: Position): CommandTextResult {
  const command = plainCommand(text, start);
  return command === undefined ? parseCommandTextInFull(text, start) : { ok: true, command };
}

/** `parseCommandText` through the lexer and parser, whatever the form (tests compare the plain form's reading with it). */
export function parseCommandTextInFull(text: string, start: Position): CommandTextResult {
  const positions = new PositionMap(text, start);
  const lexed = commandLexer().tokenize(text);
  const instance = commandParser();
  instance.input = lexed.tokens;
  const raw = lexed.errors.length === 0 ? instance.command() : undefined;
  // The text-mode lexer skips text around a command; the span given must be the command exactly.
  const exact = raw !== undefined && raw.open.startOffset === 0 && raw.close.startOffset === text.length - 1;
  if (!raw || !exact || instance.errors.length > 0) {
    return {
      ok: false,
      error: {
        code: "unexpected_character",
        message: `internal: the command at ${messages.at(start.line, start.column)} could not be read (${lexed.errors[0]?.message ?? instance.errors[0]?.message ?? "text around the command"}); please report this`,
        span: { start, end: positions.at(text.length) },
      },
    };
  }
  const name = raw.open.image.slice(1, -1);
  const parameters: Parameter[] = [];
  const firstSeen = new Map<string, Position>();
  for (const { key, value, form, tag } of raw.parameters) {
    const keyStart = positions.at(key.startOffset);
    const span = { start: keyStart, end: positions.at(value.startOffset + value.image.length) };
    const first = firstSeen.get(key.image);
    if (first) {
      return {
        ok: false,
        error: { code: "duplicate_key", message: messages.duplicateKey(name, key.image, first.line, first.column), protocol: name, span },
      };
    }
    firstSeen.set(key.image, keyStart);
    if (form === "heredoc") {
      const body = value.payload as string;
      parameters.push({ key: key.image, form, raw: body, text: body, tag, span: { start: keyStart, end: positions.at(value.startOffset + value.image.trimEnd().length) } });
    } else {
      parameters.push({ key: key.image, form, raw: value.image, text: form === "quoted" ? (value.payload as string) : value.image, span });
    }
  }
  return {
    ok: true,
    command: { protocol: name.toUpperCase(), name, parameters, span: { start, end: positions.at(raw.close.startOffset + 1) } },
  };
}
