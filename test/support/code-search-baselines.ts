/**
 * The baselines clio's code search is measured against, indexing whole files:
 * - ripgrep: for each file, how many distinct query words it contains (case-insensitive
 *   substrings), ties broken by the number of matches — what a person does with `rg -c`;
 * - MiniSearch with its default settings (a well-kept full-text library: BM25 over words).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import MiniSearch from "minisearch";
import { walkFiles } from "../../tools/index/walk.js";

/** Plain English words a person would leave out of a grep. */
const ENGLISH_STOPWORDS = new Set(
  "a an and are as at be by do does for from how i in into is it its of on or that the this to was what when where which who why with can should".split(" "),
);

export function queryWords(query: string): string[] {
  const words = query.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  return [...new Set(words.filter((word) => word.length >= 2 && !ENGLISH_STOPWORDS.has(word)))];
}

/** Ranks the files under `root` by the distinct query words they contain, with one `rg` run per query. */
export function ripgrepRanker(root: string): (query: string) => string[] {
  return (query) => {
    const words = queryWords(query);
    if (words.length === 0) return [];
    const run = spawnSync(
      "rg",
      ["--only-matching", "--ignore-case", "--fixed-strings", "--no-heading", "--no-line-number", "--with-filename", ...words.flatMap((word) => ["-e", word]), "."],
      {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (run.error !== undefined) throw new Error(`ripgrep could not run: ${run.error.message} (install the Debian package ripgrep)`);
    const perFile = new Map<string, { words: Set<string>; matches: number }>();
    for (const line of run.stdout.split("\n")) {
      const colon = line.lastIndexOf(":");
      if (colon <= 0) continue;
      const file = line.slice(0, colon).replace(/^\.\//, "");
      const entry = perFile.get(file) ?? { words: new Set<string>(), matches: 0 };
      entry.words.add(line.slice(colon + 1).toLowerCase());
      entry.matches++;
      perFile.set(file, entry);
    }
    return [...perFile]
      .sort(([leftFile, left], [rightFile, right]) => right.words.size - left.words.size || right.matches - left.matches || leftFile.localeCompare(rightFile))
      .map(([file]) => file);
  };
}

/** Indexes every file the code index would walk (path and whole text) in MiniSearch with default settings. */
export async function miniSearchRanker(root: string): Promise<(query: string) => string[]> {
  const { files } = await walkFiles(root, root, {});
  const search = new MiniSearch<{ id: string; path: string; text: string }>({ fields: ["path", "text"] });
  search.addAll(files.map((file) => ({ id: file.path, path: file.path, text: readFileSync(path.join(root, file.path), "utf8") })));
  return (query) => search.search(query).map((result) => String(result.id));
}
