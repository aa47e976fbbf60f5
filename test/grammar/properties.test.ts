import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkingArbitrary, documentArbitrary, printableCommandArbitrary } from "../../grammar/arbitraries.js";
import { decodeBase64, parse, print } from "../../grammar/index.js";
import { allPositions, parseChunks, piecesTextArbitrary, positionOf } from "./support.js";

const PIECES = [
  "[A:",
  "k=1",
  "]",
  "[B:j=",
  '"x]"',
  "<<EOF\n",
  "\nEOF\n",
  "EOF",
  "```\n",
  "~~~\n",
  "`",
  "``",
  "\\",
  "\n",
  "\r\n",
  "\r",
  " ",
  ":",
  "!",
  "é",
  "😀",
  "<|channel|>analysis<|message|>",
  "<|start|>assistant",
  "<|channel|>",
  "<|end|>",
  "<|",
];
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ unit: fc.constantFrom("[", "]", ":", "=", "<", "A", "k", " ", "\n", "\r", "`", "~", "\\", '"', "E", "O", "F"), maxLength: 80 }),
  piecesTextArbitrary(PIECES, 30),
);

describe("laws", () => {
  it("parse never throws, and every position it reports is consistent with its offset", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const result = parse(text);
        for (const position of allPositions(result)) expect(position).toEqual(positionOf(text, position.offset));
        expect(result.errors.filter((error) => error.message.startsWith("internal"))).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  it("parse(print(c)) gives back c: protocol, keys, forms and text", () => {
    fc.assert(
      fc.property(printableCommandArbitrary(), (command) => {
        const result = parse(print(command));
        expect(result.errors).toEqual([]);
        expect(result.commands.map((found) => ({ protocol: found.protocol, parameters: found.parameters.map(({ key, form, text }) => ({ key, form, text })) }))).toEqual([command]);
      }),
      { numRuns: 400 },
    );
  });

  it("any chunking of a generated document gives exactly the one-shot result", () => {
    fc.assert(
      fc.property(
        documentArbitrary().chain((document) => fc.tuple(fc.constant(document.text), chunkingArbitrary({ text: document.text }))),
        ([text, chunks]) => {
          expect(parseChunks(chunks)).toEqual(parse(text));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("any chunking of arbitrary text gives exactly the one-shot result", () => {
    fc.assert(
      fc.property(
        anyText.chain((text) => fc.tuple(fc.constant(text), chunkingArbitrary({ text }))),
        ([text, chunks]) => {
          expect(parseChunks(chunks)).toEqual(parse(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("any chunking of a document broken by random edits gives the one-shot result, with consistent positions", () => {
    const broken = documentArbitrary({ maxPieces: 8 })
      .chain((document) => fc.tuple(fc.constant(document.text), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...PIECES)), { maxLength: 6 })))
      .map(([text, edits]) =>
        edits.reduce((edited, [at, piece]) => {
          const index = at % (edited.length + 1);
          return edited.slice(0, index) + piece + edited.slice(index);
        }, text),
      );
    fc.assert(
      fc.property(
        broken.chain((text) => fc.tuple(fc.constant(text), chunkingArbitrary({ text }))),
        ([text, chunks]) => {
          const result = parse(text);
          for (const position of allPositions(result)) expect(position).toEqual(positionOf(text, position.offset));
          expect(parseChunks(chunks)).toEqual(result);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("commands placed in prose and markdown are found exactly where live, and as mentions where inert", () => {
    fc.assert(
      fc.property(documentArbitrary(), ({ text, expected }) => {
        const result = parse(text);
        expect(result.errors).toEqual([]);
        expect(
          result.commands.map((command) => ({
            offset: command.span.start.offset,
            command: { protocol: command.protocol, parameters: command.parameters.map(({ key, form, text }) => ({ key, form, text })) },
          })),
        ).toEqual(expected.commands);
        expect(result.mentions.map((mention) => ({ offset: mention.span.start.offset, text: mention.text, context: mention.context }))).toEqual(expected.mentions);
      }),
      { numRuns: 200 },
    );
  });
});

describe("base64 agrees with Node's Buffer", () => {
  const bytes = fc.uint8Array({ maxLength: 64 }).map((array) => Buffer.from(array));
  const variants = (encoded: string) => {
    const unpadded = encoded.replace(/=+$/, "");
    const urlSafe = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_");
    return [encoded, unpadded, urlSafe(encoded), urlSafe(unpadded), encoded.replace(/(.{3})/g, "$1\n "), ` ${encoded}\r\n`];
  };

  it("decodes every accepted spelling of any bytes", () => {
    fc.assert(
      fc.property(bytes, (buffer) => {
        for (const variant of variants(buffer.toString("base64"))) expect(decodeBase64(variant)).toEqual(buffer);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a corrupted spelling: a foreign character, a dropped character, or flipped trailing bits", () => {
    fc.assert(
      fc.property(
        bytes.filter((buffer) => buffer.length > 0),
        fc.nat(),
        fc.constantFrom("!", "*", "\u00e9", "."),
        (buffer, at, foreign) => {
          const encoded = buffer.toString("base64").replace(/=+$/, "");
          const index = at % encoded.length;
          expect(decodeBase64(encoded.slice(0, index) + foreign + encoded.slice(index))).toBeUndefined();
          if (encoded.length % 4 === 2) expect(decodeBase64(encoded.slice(0, -1))).toBeUndefined();
          if (encoded.length % 4 !== 0) {
            const last = encoded.at(-1)!;
            const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            const flipped = alphabet[alphabet.indexOf(last) ^ 1]!;
            expect(decodeBase64(encoded.slice(0, -1) + flipped)).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
