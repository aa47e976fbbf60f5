import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { documentArbitrary } from "../../grammar/arbitraries.js";
import type { Span } from "../../grammar/ast.js";
import { parse, type CallVocabulary } from "../../grammar/index.js";
import { callVocabularyOf } from "../../src/call-vocabulary.js";
import { loadBuiltinProtocols } from "../../src/registry.js";
import { scriptSubmissions, selectorFor } from "../../src/replay/replay.js";
import type { Submission } from "../../src/manager/manager.js";
import { ScriptStream, sourceOf } from "../../src/replay/script-stream.js";

/** Pieces of commands, calls in other dialects, markdown and breakage, put together at random. */
const PIECES = [
  "[FILE_OP:action=read:path=",
  "YS50eHQ=]",
  '"a.txt"]',
  "[A:",
  "k=1",
  "]",
  "[B:j=",
  '"x]"',
  ":content<<EOF\n",
  "\nEOF\n",
  "EOF",
  "```\n",
  "~~~\n",
  "`",
  "\\",
  "\n",
  "\r\n",
  " ",
  ":",
  "> ",
  "    ",
  "<div>",
  "<tool_call>",
  '{"name":"read_file","arguments":{"path":"a"}}',
  "</tool_call>",
  'read_file(path="a")',
  "[FILE_OP action=read path=a]",
  "é😀",
];

const scripts = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((pieces) => pieces.join("")),
  fc.array(documentArbitrary({ maxPieces: 6 }), { minLength: 1, maxLength: 4 }).map((documents) => documents.map((document) => document.text).join("\n")),
  documentArbitrary({ maxPieces: 8 })
    .chain((document) => fc.tuple(fc.constant(document.text), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...PIECES)), { maxLength: 6 })))
    .map(([text, edits]) => edits.reduce((edited, [at, piece]) => edited.slice(0, at % (edited.length + 1)) + piece + edited.slice(at % (edited.length + 1)), text)),
);

/** Everything a stream hands out and then reports, read in pieces of `pieceLength` characters. */
function streamed(text: string, vocabulary: CallVocabulary | undefined, pieceLength: number, only?: string) {
  const stream = new ScriptStream(text, only === undefined ? undefined : selectorFor(only), vocabulary, true, pieceLength);
  const submissions = [];
  const sources = [];
  for (let next = stream.next(); next !== undefined; next = stream.next()) {
    submissions.push(next.submission);
    sources.push(next.source);
  }
  stream.drain();
  return { submissions, sources, mentions: stream.mentions, total: stream.total };
}

/**
 * The reference: the one-shot parse, its commands and errors sorted by where they start (a stable
 * sort: at one offset, commands before errors), each with its source, then selected.
 */
function oneShot(text: string, vocabulary: CallVocabulary | undefined, only?: string) {
  const select = only === undefined ? undefined : selectorFor(only);
  const parsed = parse(text, vocabulary);
  const all: { submission: Submission; span: Span }[] = [
    ...parsed.commands.map((command) => ({ submission: { command }, span: command.span })),
    ...parsed.errors.map((syntaxError) => ({ submission: { syntaxError }, span: syntaxError.span })),
  ];
  all.sort((left, right) => left.span.start.offset - right.span.start.offset);
  const submissions: Submission[] = [];
  const sources: string[] = [];
  for (const { submission, span } of all) {
    const source = sourceOf(text, span, submission);
    if (select && !select(source, span)) continue;
    submissions.push(submission);
    sources.push(source);
  }
  return { submissions, sources, mentions: parsed.mentions, total: submissions.length };
}

let vocabulary: CallVocabulary;
beforeAll(async () => {
  vocabulary = callVocabularyOf(await loadBuiltinProtocols());
});

describe("ScriptStream", () => {
  it("hands out what the one-shot parse gives, in source order, read in pieces of any length (pieces end after a line break)", () => {
    fc.assert(
      fc.property(scripts, fc.integer({ min: 1, max: 40 }), fc.boolean(), (text, pieceLength, withVocabulary) => {
        const words = withVocabulary ? vocabulary : undefined;
        const reference = oneShot(text, words);
        expect(streamed(text, words, pieceLength)).toEqual(reference);
        const whole = scriptSubmissions(text, undefined, words);
        expect({ ...whole, total: whole.submissions.length }).toEqual(reference);
      }),
      { numRuns: 1500 },
    );
  });

  it("applies a selector as the one-shot reference does", () => {
    fc.assert(
      fc.property(scripts, fc.integer({ min: 1, max: 40 }), fc.constantFrom("1", "2", "3", "FILE_OP", "k=1", "read"), (text, pieceLength, only) => {
        expect(streamed(text, vocabulary, pieceLength, only)).toEqual(oneShot(text, vocabulary, only));
      }),
      { numRuns: 500 },
    );
  });

  it("reads a long script in its real pieces, cut after line breaks or inside a long line", () => {
    const lines = [];
    for (let index = 0; index < 3000; index++) {
      lines.push(index % 97 === 0 ? `${"x".repeat(9000)} [FILE_OP:action=read:path="a${index}.txt"] ${"y".repeat(200)}` : `[FILE_OP:action=read:path="f${index}.txt"]`);
      if (index % 500 === 7) lines.push("[FILE_OP:action=write:path=b.txt:content<<EOF", "one", "[FILE_OP:action=read:path=inside.txt]", "EOF", "]");
      if (index % 700 === 3) lines.push("```", "[FILE_OP:action=read:path=mention.txt]", "```", '[FILE_OP:action=read:path="broken]');
    }
    const text = lines.join("\n");
    const whole = oneShot(text, vocabulary);
    const stream = new ScriptStream(text, undefined, vocabulary, true);
    const handed = [];
    for (let next = stream.next(); next !== undefined; next = stream.next()) handed.push(next);
    expect(handed.map((each) => each.submission)).toEqual(whole.submissions);
    expect(handed.map((each) => each.source)).toEqual(whole.sources);
    expect(stream.mentions).toEqual(whole.mentions);
    expect(stream.total).toBe(whole.total);
    expect(whole.submissions.length).toBeGreaterThan(3000);
    expect(whole.mentions.length).toBeGreaterThan(0);
  });

  it("counts what it was not asked for once drained, and gives no sources when none were asked for", () => {
    const text = ["[FILE_OP:action=read:path=a.txt]", "[FILE_OP:action=read:path=b.txt]", "`[FILE_OP:action=read:path=c.txt]`", '[FILE_OP:action=read:path="d]'].join("\n");
    const stream = new ScriptStream(text, undefined, vocabulary, false, 5);
    const first = stream.next();
    expect(first?.source).toBeUndefined();
    expect(first && "command" in first.submission && first.submission.command.span.start.line).toBe(1);
    stream.drain();
    expect(stream.total).toBe(3);
    expect(stream.mentions.map((mention) => mention.text)).toEqual(["[FILE_OP:action=read:path=c.txt]"]);
    expect(stream.next()).toBeUndefined();
  });
});
