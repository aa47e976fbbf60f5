/**
 * Given the scanner's line feeds, the recognizer passes over the lines whose beginning rules out
 * a call in one loop (`passDeadLines`), without reading each line's front as `lineFront` does.
 * Law: it finds exactly what it finds reading every line's front (searching for the line feeds
 * itself), with any vocabulary, for lines beginning with every kind of front, cut at any point;
 * and the call scanner, which hands its line feeds over, gives the one-shot result in any chunking.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { CallVocabulary } from "../../grammar/index.js";
import { chunkedAndWhole, chunksOf, lineFeedsOf, SMALL_VOCABULARY } from "./support.js";

/** A one-letter tool name, and a name shorter than the usual ones, beside them. */
const SHORT_NAMES = new CallVocabulary({
  protocols: [
    { name: "X", actions: { run: { parameters: { command: "text" } } } },
    { name: "FILE_OP", actions: { read: { parameters: { path: "text" } } } },
  ],
  aliases: { q: { protocol: "X", action: "run" }, read_file: { protocol: "FILE_OP", action: "read" }, co: { protocol: "X", action: "run" } },
});

/** Line beginnings of every kind: dead at the first, second or a later character, a call, undecided at a chunk's end. */
const FRONTS = [
  "",
  "  ",
  "\t",
  " \t ",
  "{",
  '{"name": "read_file", "arguments": {"path": "a"}}',
  "read_file(",
  'read_file(path="a")',
  "FILE_OP.read(",
  'FILE_OP.read(path="a")',
  "X(",
  'q(command="ls")',
  "q",
  "co(",
  "const ",
  "con(",
  "read(",
  "read_files(",
  "re",
  "r",
  "x(",
  "a(",
  "I ",
  "the file",
  "é(",
  "readé(",
  "read_file_and_a_very_long_name_past_the_limit_of_any_name(",
  "FILE_OP",
  "- item",
  "<read_file>",
  "[FILE_OP action=read]",
  "``` ",
  "9(",
  "_x(",
  "functools[",
  'functools[{"name": "read_file", "arguments": {"path": "a"}}]',
  "functools",
  "functool[",
  "✿FUNCTION✿: read_file\n✿ARGS✿: {}",
  "✿",
  ">>>read_file\n{}",
  ">",
  "> quote",
  "  ✿FUNCTION✿: q",
  "✿ARGS✿: {}",
  "[TOOL_CALLS]read_file",
  // Python lists over lines: a `[` that begins its line must know it, also after lines passed over.
  "[x(1),",
  "  [a(y=2),",
  "[",
  'read_file(path="a"),',
  "]",
  // A tool's name in the functions. namespace.
  'functions.read_file(path="a")',
  "functions.q(",
  "functions.",
  "functionsX(",
];
const RESTS = ["", "x", " a b", ")", " <", "[", "(", "{", "\r"];

const lineArbitrary = fc.tuple(fc.constantFrom(...FRONTS), fc.constantFrom(...RESTS)).map(([front, rest]) => front + rest);
const textArbitrary = fc.array(lineArbitrary, { maxLength: 30 }).map((lines) => lines.join("\n"));
const sizesArbitrary = fc.array(fc.constantFrom(1, 2, 3, 5, 16, 17, 40, 100_000), { minLength: 1, maxLength: 5 });

/** The findings of a recognizer fed `chunks`, given every chunk's line feeds or searching for them. */
function found(vocabulary: CallVocabulary, chunks: string[], given: boolean): string {
  const recognizer = new DialectRecognizer(vocabulary);
  const findings: unknown[] = [];
  let start = 0;
  for (const chunk of chunks) {
    if (given) recognizer.feedWithLineFeeds(chunk, Int32Array.from(lineFeedsOf(chunk, start)), start + chunk.length);
    else recognizer.feed(chunk);
    start += chunk.length;
    findings.push(...recognizer.found.splice(0));
  }
  recognizer.finish();
  findings.push(...recognizer.found);
  return JSON.stringify(findings);
}

describe("the recognizer passing over lines that cannot open a call", () => {
  for (const [name, vocabulary] of [
    ["the usual names", SMALL_VOCABULARY],
    ["a one-letter tool name and a two-letter one", SHORT_NAMES],
  ] as const) {
    it(`finds what reading every line's front finds, with ${name}`, () => {
      let calls = 0;
      fc.assert(
        fc.property(textArbitrary, sizesArbitrary, (text, sizes) => {
          const chunks = chunksOf(text, sizes);
          const searching = found(vocabulary, chunks, false);
          expect(found(vocabulary, chunks, true)).toBe(searching);
          // The one-shot reading, given the line feeds, agrees with every chunking.
          expect(found(vocabulary, [text], true)).toBe(searching);
          if (searching.includes('"mapped"')) calls++;
        }),
        { numRuns: 500 },
      );
      // Not vacuous: calls at a line's beginning were found.
      expect(calls).toBeGreaterThan(100);
    });
  }

  it("gives the one-shot result through the call scanner in any chunking", () => {
    fc.assert(
      fc.property(textArbitrary, sizesArbitrary, (text, sizes) => {
        const { chunked, whole } = chunkedAndWhole(SHORT_NAMES, text, chunksOf(text, sizes));
        expect(chunked).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});
