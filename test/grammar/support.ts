/** Shared helpers for the grammar specifications. */
import fc from "fast-check";
import { expect } from "vitest";
import type { Command, ParseResult } from "../../grammar/ast.js";
import { CallScanner } from "../../grammar/dialects/call-scanner.js";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { CallVocabulary } from "../../grammar/dialects/vocabulary.js";
import { collectEvents, parse } from "../../grammar/parse.js";
import { StreamingScanner } from "../../grammar/scanner.js";

/** Feeds `chunks` to one scanner and collects everything it reports. */
export function parseChunks(chunks: string[]): ParseResult {
  const scanner = new StreamingScanner();
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  for (const chunk of chunks) collectEvents(scanner.push(chunk), result);
  return collectEvents(scanner.end(), result);
}

/** A command as `NAME key=text ...` pairs, for compact expectations. */
export function shape(command: Command): { protocol: string; parameters: [string, string, string][] } {
  return { protocol: command.protocol, parameters: command.parameters.map((parameter) => [parameter.key, parameter.form, parameter.text]) };
}

/** The line/column of every offset, computed the slow, obvious way (a line ends at \n or a lone \r). */
export function positionOf(text: string, offset: number): { offset: number; line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] !== "\n")) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/** Every position the result reports, with what it belongs to. */
export function allPositions(result: ParseResult): { offset: number; line: number; column: number }[] {
  const spans = [
    ...result.commands.map((command) => command.span),
    ...result.commands.flatMap((command) => command.parameters.map((parameter) => parameter.span)),
    ...result.mentions.map((mention) => mention.span),
    ...result.errors.map((error) => error.span),
  ];
  return spans.flatMap((span) => [span.start, span.end]);
}

/** A small vocabulary as an application would pass it in (the grammar itself names no protocol). */
export const SMALL_VOCABULARY = new CallVocabulary({
  protocols: [
    { name: "FILE_OP", actions: { read: { parameters: { path: "text", limit: "word" } }, write: { parameters: { path: "text", content: "text" } } } },
    { name: "EXEC", actions: { run: { parameters: { command: "text", timeout: "word" } } } },
  ],
  aliases: { read_file: { protocol: "FILE_OP", action: "read" }, execute_command: { protocol: "EXEC", action: "run" } },
});

/** `text` cut into chunks of the given sizes, taken in turn. */
export function chunksOf(text: string, sizes: number[]): string[] {
  const chunks: string[] = [];
  for (let at = 0, turn = 0; at < text.length; turn++) {
    const size = sizes[turn % sizes.length]!;
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/** The absolute offsets of the line feeds in `text`, which starts at absolute `base`. */
export function lineFeedsOf(text: string, base: number): number[] {
  const offsets: number[] = [];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) offsets.push(base + at);
  return offsets;
}

/** What a call scanner with `vocabulary` reports for `text` in `chunks`, and what `parse` reports for it whole. */
export function chunkedAndWhole(vocabulary: CallVocabulary, text: string, chunks: string[]): { chunked: ParseResult; whole: ParseResult } {
  const scanner = new CallScanner(vocabulary);
  const chunked: ParseResult = { commands: [], mentions: [], errors: [] };
  for (const chunk of chunks) collectEvents(scanner.push(chunk), chunked);
  collectEvents(scanner.end(), chunked);
  return { chunked, whole: parse(text, vocabulary) };
}

/** A dialect recognizer's findings, as JSON, for `text` fed in one chunk (`whole`) or a character at a time. */
export function dialectFindings(vocabulary: CallVocabulary, text: string, whole: boolean): string {
  const recognizer = new DialectRecognizer(vocabulary);
  if (whole) recognizer.feed(text);
  else for (const character of text) recognizer.feed(character);
  recognizer.finish();
  return JSON.stringify(recognizer.found);
}

/** Texts made of up to `maxLength` of `pieces`, each any number of times, joined as they are. */
export function piecesTextArbitrary(pieces: readonly string[], maxLength: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength }).map((chosen) => chosen.join(""));
}

/** `text` in every two-piece chunking and in 1-character chunks gives the one-shot result (with `SMALL_VOCABULARY`); returns that result. */
export function expectEveryChunking(text: string): ParseResult {
  const whole = parse(text, SMALL_VOCABULARY);
  for (let cut = 1; cut < text.length; cut++) expect(chunkedAndWhole(SMALL_VOCABULARY, text, [text.slice(0, cut), text.slice(cut)]).chunked, `cut at ${cut}`).toEqual(whole);
  expect(chunkedAndWhole(SMALL_VOCABULARY, text, [...text]).chunked).toEqual(whole);
  return whole;
}

/** The errors of `text` (the same in every chunking) as [hint, line, column]; nothing ran and nothing was mentioned. */
export function errorsOf(text: string): [string | undefined, number, number][] {
  const result = expectEveryChunking(text);
  expect(result.commands).toEqual([]);
  expect(result.mentions).toEqual([]);
  return result.errors.map((error) => [error.hint, error.span.start.line, error.span.start.column]);
}

/** The chunking law over texts of up to `maxLength` of `pieces`: chunks of mixed sizes, and of one character, give the one-shot result. */
export function expectChunkingLaw(pieces: readonly string[], maxLength: number): void {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pieces), { maxLength }), fc.array(fc.constantFrom(1, 1, 2, 3, 7, 40), { minLength: 1, maxLength: 6 }), (chosen, sizes) => {
      const text = chosen.join("");
      const { chunked, whole } = chunkedAndWhole(SMALL_VOCABULARY, text, chunksOf(text, sizes));
      expect(chunked).toEqual(whole);
      expect(chunkedAndWhole(SMALL_VOCABULARY, text, [...text]).chunked).toEqual(whole);
    }),
    { numRuns: 300 },
  );
}

/** The mentions of `text` (the same in every chunking) as [context, hint]; nothing ran and nothing was an error. */
export function mentionsOf(text: string): [string, string | undefined][] {
  const result = expectEveryChunking(text);
  expect(result.commands).toEqual([]);
  expect(result.errors).toEqual([]);
  return result.mentions.map((mention) => [mention.context, mention.hint]);
}

/** Each of `texts` is plain text in every chunking: no command, mention or error. */
export function expectText(texts: readonly string[]): void {
  for (const text of texts) expect(expectEveryChunking(text), text).toEqual({ commands: [], mentions: [], errors: [] });
}
