import { rm, stat, writeFile } from "node:fs/promises";
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
