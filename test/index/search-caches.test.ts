import { rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { searchIndex } from "../../tools/index/search.js";
import { bestWindow, linesOfFile } from "../../tools/index/snippets.js";
import { splitIdentifier, stem, stemHead, tokenize } from "../../tools/index/tokenize.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  folder = await temporaryFolder("clio-search-caches-");
});
afterEach(() => folder.remove());

const stampOf = async (file: string) => {
  const { size, mtimeMs } = await stat(file);
  return { size, mtimeMs };
};

describe("search caches", () => {
  it("every word starts with the head of its stem, so a text without the head holds no word of that stem", () => {
    const words = ["parse", "parsing", "parser", "retries", "retry", "bigger", "running", "configurations", "studies", "make", "abbing", "is", "queries", "dictionaries", "uses"];
    for (const word of words) {
      const stemmed = stem(word);
      expect(word.startsWith(stemHead(stemmed)), `${word} → ${stemmed}`).toBe(true);
      for (const part of splitIdentifier(word)) expect(part.startsWith(stemHead(stem(part)))).toBe(true);
    }
    expect(stemHead("retry")).toBe("retr");
  });

  it("shows a file's lines as the index holds them until the index sees the change, then as they are", async () => {
    const file = path.join(folder.path, "a.py");
    await writeFile(file, "one\ntwo\nthree\nfour\n");
    const indexed = await stampOf(file);
    expect(linesOfFile(file, indexed, 2, 3)).toEqual(["", "two", "three"]);
    await writeFile(file, "uno\ndos\ntres\ncuatro\ncinco\n");
    expect(linesOfFile(file, indexed, 2, 3)).toEqual(["", "two", "three"]);
    // Lines not shown before are read as the file is now (only shown lines are kept, not the file).
    expect(linesOfFile(file, indexed, 1, 1)).toEqual(["uno"]);
    expect(linesOfFile(file, await stampOf(file), 2, 3)).toEqual(["", "dos", "tres"]);
    expect(linesOfFile(file, await stampOf(file), 5, 9)).toEqual(["", "", "", "", "cinco", ""]);
    expect(linesOfFile(file, await stampOf(file), 8, 9)).toEqual([]);
    await rm(file);
    expect(() => linesOfFile(file, { size: 1, mtimeMs: 1 }, 1, 2)).toThrow();
  });

  it("reads a large file only through the lines asked for, with lines and UTF-8 cut across its read blocks", async () => {
    const file = path.join(folder.path, "large.ts");
    // Lines of varied lengths with a three-byte character in each, so block edges fall inside lines and characters.
    const lines = Array.from({ length: 6000 }, (_, line) => `const value${line} = "€${"x".repeat(line % 37)}";`);
    await writeFile(file, `${lines.join("\n")}\n`);
    const indexed = await stampOf(file);
    const expectLines = (start: number, end: number) => expect(linesOfFile(file, indexed, start, end).slice(start - 1)).toEqual(lines.slice(start - 1, end));
    expectLines(1, 3);
    expectLines(2990, 3010);
    expectLines(5990, 6000);
    expectLines(10, 12);
    // A larger file read in between leaves other bytes in the reused read buffer.
    const other = path.join(folder.path, "other.ts");
    await writeFile(other, "\n".repeat(200_000));
    expect(linesOfFile(other, await stampOf(other), 199_999, 200_001).slice(199_998)).toEqual(["", "", ""]);
    expectLines(4000, 4002);
    expectLines(6000, 6000);
    // Past the last line: the lines that exist, then the empty text after the final newline.
    expect(linesOfFile(file, indexed, 5999, 6005).slice(5998)).toEqual([lines[5998], lines[5999], ""]);
  });

  it("stores each chunk's bytes, and reads only them while the file keeps its indexed size and mtime", async () => {
    const file = path.join(folder.path, "spans.ts");
    // Multi-byte characters before and inside chunks, and no newline at the end.
    const body = Array.from({ length: 400 }, (_, line) =>
      line % 50 === 0 ? `export function step${line}(value: number) {` : `  const naïve${line} = "€${"é".repeat(line % 5)}";`,
    );
    await writeFile(file, body.join("\n"));
    // A whole second, which utimes sets back exactly.
    await utimes(file, 1_700_000_000, 1_700_000_000);
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const bytes = Buffer.from(body.join("\n"), "utf8");
    const chunks = index.chunkIdsOf("spans.ts").map((id) => index.chunk(id));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      const text = bytes.subarray(chunk.startByte, chunk.endByte).toString("utf8");
      expect(text.replace(/\n$/, "").split("\n")).toEqual(body.slice(chunk.startLine - 1, chunk.endLine));
    }
    const indexed = await stampOf(file);
    const last = chunks.at(-1)!;
    expect(linesOfFile(file, indexed, last.startLine, last.endLine, last).slice(last.startLine - 1)).toEqual(body.slice(last.startLine - 1, last.endLine));
    // The same size and mtime, but a line break moved from before the chunk to after it: the stamp says unchanged, so the
    // span is trusted (a read from the start would show the next line at each place).
    const middle = chunks[1]!;
    const moved = Buffer.from(bytes);
    moved[moved.indexOf(10)] = 32;
    moved[moved.indexOf(32, middle.endByte)] = 10;
    await writeFile(file, moved);
    await utimes(file, 1_700_000_000, 1_700_000_000);
    expect(linesOfFile(file, indexed, middle.startLine, middle.endLine, middle).slice(middle.startLine - 1)).toEqual(body.slice(middle.startLine - 1, middle.endLine));
    // A span that does not fit the bytes (no line break before it) is not trusted: the file is read from its start.
    const shifted = { startByte: middle.startByte + 1, endByte: middle.endByte };
    const first = chunks[0]!;
    const expected = moved
      .toString("utf8")
      .split("\n")
      .slice(first.startLine - 1, first.endLine);
    expect(linesOfFile(file, indexed, first.startLine, first.endLine, shifted).slice(first.startLine - 1)).toEqual(expected);
    // A changed file is read as it is now, whatever the span says.
    await writeFile(file, `// a new first line\n${body.join("\n")}`);
    const now = await stampOf(file);
    expect(linesOfFile(file, now, middle.startLine, middle.endLine, middle).slice(middle.startLine - 1)).toEqual(body.slice(middle.startLine - 2, middle.endLine - 1));
  });

  it("picks the window with the most query words, also when lines without them are skipped untokenized", () => {
    const lines = ["alpha", "beta", "x = retries + 1", "retries()", "gamma", "delta", "epsilon", "zeta"];
    const tokens = new Set(tokenize("retry"));
    expect(bestWindow(lines, 1, 8, tokens, 2)).toEqual({ start: 3, end: 4 });
  });

  it("answers a repeated search from its caches with the same hits, and a changed file's new lines after an update", async () => {
    await writeFile(path.join(folder.path, "retry.py"), "def retry_backoff(delay):\n    '''Waits delay, then tries again.'''\n    return delay * 2\n");
    await writeFile(path.join(folder.path, "other.py"), "def unrelated():\n    return 'nothing to see'\n");
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const first = await searchIndex(index, "retry backoff delay");
    expect(first.hits[0]?.snippet).toContain("def retry_backoff(delay)");
    expect(await searchIndex(index, "retry backoff delay")).toEqual(first);
    await writeFile(path.join(folder.path, "retry.py"), "def retry_backoff(delay, factor):\n    '''Waits delay, then tries again.'''\n    return delay * factor\n");
    await index.update();
    expect((await searchIndex(index, "retry backoff delay")).hits[0]?.snippet).toContain("def retry_backoff(delay, factor)");
  });
});
