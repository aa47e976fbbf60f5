/**
 * The scanner hands the line feeds it passed in a chunk to the dialect layer (line-feed-log.ts),
 * which then need not search for them again. Laws: whenever the log says it holds all of a
 * chunk's line feeds, it holds exactly them, in every chunking and every state the scanner can be
 * in (prose, fences, held code spans and tags replayed as prose, inert lines, recovery, heredocs,
 * a lone `\r`); and the recognizer given them finds exactly what it finds searching itself.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { LineFeedLog } from "../../grammar/line-feed-log.js";
import { StreamingScanner } from "../../grammar/scanner.js";
import { chunkedAndWhole, chunksOf, lineFeedsOf, piecesTextArbitrary, SMALL_VOCABULARY } from "./support.js";

const PIECES = [
  '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n',
  '  {"name": "execute_command", "arguments": {"command": "ls"}}\n',
  "<read_file>\n<path>a.ts</path>\n</read_file>\n",
  'FILE_OP.read(path="a.ts")\n',
  '[FILE_OP action=read path="a.ts"]',
  '[FILE_OP:action=read:path="broken\n',
  "[FILE_OP:action=write:path=a:content<<EOF\nbody [x] <b>\n  EOF\nEOF\n]",
  "```\n",
  "~~~ts\n",
  "    indented(code)\n",
  "`",
  "``",
  "a `span\ngoes on` here",
  "<span\nclass=x>",
  "<!-- a\ncomment -->\n",
  "> quoted\n",
  "- item\n",
  "# heading `x\n",
  "<think>\n",
  "</think>\n",
  "<div>\n",
  "\n",
  "\n\n",
  "\r",
  "\r\n",
  "prose (with) {braces} ",
  "the file test ",
  "  ",
  "read_file(",
  ")",
  "[",
  "]",
  "<",
  "x",
  "é",
];

const textArbitrary = piecesTextArbitrary(PIECES, 40);
const sizesArbitrary = fc.array(fc.constantFrom(1, 3, 17, 40, 70, 500, 100_000), { minLength: 1, maxLength: 6 });

/** The scanner keeping a line feed log, as the dialect layer has it kept. */
class LoggingScanner extends StreamingScanner {
  readonly feedLog = new LineFeedLog();
  claims = 0;

  constructor() {
    super();
    this.lineFeeds = this.feedLog;
  }

  /** Pushes a chunk; when the log claims the chunk's line feeds, they must be exactly its line feeds. */
  pushChecked(chunk: string): void {
    const start = this.total;
    const line = this.line;
    this.readAsIs = false;
    this.push(chunk);
    const limit = this.lineStart;
    const claimed = this.readAsIs ? this.feedLog.completeFor(chunk, start, limit, this.line - line) : undefined;
    if (claimed !== undefined) {
      this.claims++;
      expect(Array.from(claimed)).toEqual(lineFeedsOf(chunk.slice(0, limit - start), start));
    }
    this.feedLog.clear();
  }
}

describe("the scanner's line feed log", () => {
  it("holds exactly a chunk's line feeds whenever it says it holds them all, in any chunking", () => {
    let claims = 0;
    fc.assert(
      fc.property(textArbitrary, sizesArbitrary, (text, sizes) => {
        const scanner = new LoggingScanner();
        for (const chunk of chunksOf(text, sizes)) scanner.pushChecked(chunk);
        scanner.end();
        claims += scanner.claims;
      }),
      { numRuns: 600 },
    );
    // The law is not vacuous: most chunks with line feeds are handed over.
    expect(claims).toBeGreaterThan(300);
  });

  it("records a held stretch's line feeds once when it is replayed as prose", () => {
    // A code span and a tag opened and held over lines, then never closed: the held text is read again.
    for (const text of ["a `b\nc d\ne f\n\ng\n", "a <span\nb c\nd\n\ne\n", "x ``y\nz` w\n\nv\n"]) {
      const scanner = new LoggingScanner();
      scanner.pushChecked(text);
      expect(scanner.claims).toBe(1);
    }
  });

  it("is trusted only up to a stretch still held at the chunk's end", () => {
    const scanner = new LoggingScanner();
    scanner.pushChecked("a\nx ``y\nz` w\nv\n");
    expect(scanner.claims).toBe(1);
  });

  it("is not trusted for a chunk whose lone `\\r` the scanner read as a line feed", () => {
    const scanner = new LoggingScanner();
    scanner.pushChecked("a\rb\nc\n");
    expect(scanner.claims).toBe(0);
  });

  it("keeps offsets strictly increasing, whatever order they are offered in", () => {
    const log = new LineFeedLog();
    for (const offset of [3, 3, 1, 7, 5, 9]) log.record(offset);
    expect(Array.from(log.completeFor("x".repeat(10), 0, 10, 3) ?? [])).toEqual([3, 7, 9]);
    expect(Array.from(log.completeFor("x".repeat(10), 0, 8, 2) ?? [])).toEqual([3, 7]);
    expect(log.completeFor("x".repeat(10), 0, 10, 4)).toBeUndefined();
    expect(log.completeFor("x".repeat(10), 4, 10, 3)).toBeUndefined();
  });
});

describe("the recognizer given the scanner's line feeds", () => {
  it("finds exactly what it finds searching for them itself", () => {
    fc.assert(
      fc.property(textArbitrary, sizesArbitrary, (text, sizes) => {
        const searching = new DialectRecognizer(SMALL_VOCABULARY);
        const given = new DialectRecognizer(SMALL_VOCABULARY);
        let start = 0;
        for (const [index, chunk] of chunksOf(text, sizes).entries()) {
          searching.feed(chunk);
          // Line feeds handed over up to a point in the chunk; the recognizer searches on from there.
          const until = start + Math.floor((chunk.length * ((index * 7) % 5)) / 4);
          given.feedWithLineFeeds(chunk, Int32Array.from(lineFeedsOf(chunk.slice(0, until - start), start)), until);
          start += chunk.length;
        }
        searching.finish();
        given.finish();
        expect(JSON.stringify(given.found)).toBe(JSON.stringify(searching.found));
      }),
      { numRuns: 600 },
    );
  });

  it("gives the one-shot result in any chunking through the call scanner", () => {
    fc.assert(
      fc.property(textArbitrary, sizesArbitrary, (text, sizes) => {
        const { chunked, whole } = chunkedAndWhole(SMALL_VOCABULARY, text, chunksOf(text, sizes));
        expect(chunked).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });
});
