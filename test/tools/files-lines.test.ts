/**
 * A file held whole is windowed by decoding it in one piece; the result must be what the streaming
 * walk over a file handle gives for the same bytes and options, whatever the bytes (multi-byte and
 * broken UTF-8, `\r\n`, long lines, no final break, empty).
 */
import fc from "fast-check";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLineWindow, type LineWindowOptions } from "../../tools/files/lines.js";

let folder: string;
beforeAll(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "clio-lines-"));
});
afterAll(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

/** The walk's answer: the same bytes read through a handle (never the whole-file shortcut). */
async function walked(content: Buffer, options: LineWindowOptions) {
  const file = path.join(folder, "file.txt");
  await fs.writeFile(file, content);
  const handle = await fs.open(file);
  try {
    return await readLineWindow(handle, { ...options, size: content.length });
  } finally {
    await handle.close();
  }
}

const piece = fc.constantFrom("a", "line", "é", "日本", "😀", "\n", "\r\n", "\r", "\t", " ", "x".repeat(30), Buffer.from([0xe2, 0x82]).toString("latin1"), "\n\n");

describe("a window of a file held whole", () => {
  it("counts a broken UTF-8 sequence as the replacement character the walk counts (found by a long property run)", async () => {
    const content = Buffer.concat([Buffer.from("日本a"), Buffer.from([0xe2, 0x82])]);
    const options: LineWindowOptions = {
      firstLine: 1,
      maxLines: Number.POSITIVE_INFINITY,
      maxBytes: 21,
      lineOverheadBytes: 10,
      maxLineBytes: 9,
      countUpToBytes: 1 << 20,
      initial: content,
      size: content.length,
    };
    const whole = await readLineWindow(undefined, options);
    expect(whole).toEqual(await walked(content, options));
    expect(whole.stoppedForBytes).toBe(true);
  });

  it("is the streaming walk's window for any bytes and options", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.integer({ min: 1, max: 10 })),
        fc.integer({ min: 8, max: 200 }),
        fc.integer({ min: 20, max: 2000 }),
        async (pieces, broken, firstLine, limit, maxLineBytes, maxBytes) => {
          // "broken" writes the latin1 piece as raw bytes: an unfinished UTF-8 sequence.
          const content = Buffer.concat(pieces.map((text) => Buffer.from(text, broken && text.length === 2 && text.charCodeAt(0) === 0xe2 ? "latin1" : "utf8")));
          const options: LineWindowOptions = {
            firstLine,
            maxLines: limit ?? Number.POSITIVE_INFINITY,
            maxBytes,
            lineOverheadBytes: 10,
            maxLineBytes,
            countUpToBytes: 64 * 1024 * 1024,
            initial: content,
            size: content.length,
          };
          const whole = await readLineWindow(undefined, options);
          expect(whole).toEqual(await walked(content, options));
        },
      ),
      { numRuns: 300 },
    );
  });
});
