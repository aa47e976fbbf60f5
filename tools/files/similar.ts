/**
 * Finding the lines of a file that most resemble a piece of text, so a failed replace can show
 * the model what is really there. Similarity is the Dice coefficient over character bigrams,
 * line by line, averaged over a window as tall as the text.
 */

/** Files longer than this are compared on the text's first line only. */
const MAX_WINDOW_SEARCH_LINES = 20_000;
/** Texts taller than this are compared on their first lines. */
const MAX_COMPARED_LINES = 40;
/**
 * Characters of the file times lines of the text compared, at most (about a second of work):
 * in a large file fewer of the text's lines are compared, so a miss never stalls clio.
 */
const MAX_COMPARED_CHARACTERS = 10_000_000;

export interface ClosestLines {
  /** 1-based number of the window's first line. */
  startLine: number;
  lines: string[];
  /** 0 to 1. */
  similarity: number;
  /** How many of the text's first lines were compared. */
  comparedLines: number;
}

interface Bigrams {
  counts: Map<string, number>;
  total: number;
  text: string;
}

function bigrams(line: string): Bigrams {
  const text = line.trim().replace(/\s+/g, " ");
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index++) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return { counts, total: Math.max(text.length - 1, 0), text };
}

function dice(a: Bigrams, b: Bigrams): number {
  if (a.text === b.text) return 1;
  if (a.total === 0 || b.total === 0) return 0;
  let shared = 0;
  for (const [pair, count] of a.counts) shared += Math.min(count, b.counts.get(pair) ?? 0);
  return (2 * shared) / (a.total + b.total);
}

/** The window of `text`'s lines most similar to `needle`, or undefined for an empty file. */
export function closestLines(text: string, needle: string): ClosestLines | undefined {
  const fileLines = text.split(/\r?\n/);
  if (fileLines.length === 0 || text === "") return undefined;
  const needleLines = needle.split(/\r?\n/);
  while (needleLines.length > 1 && needleLines[needleLines.length - 1]!.trim() === "") needleLines.pop();
  const height = Math.min(needleLines.length, fileLines.length);
  const affordable = Math.max(1, Math.floor(MAX_COMPARED_CHARACTERS / text.length));
  const compared = fileLines.length > MAX_WINDOW_SEARCH_LINES ? 1 : Math.min(height, MAX_COMPARED_LINES, affordable);
  const needleGrams = needleLines.slice(0, compared).map(bigrams);
  const fileGrams: Array<Bigrams | undefined> = [];
  const gramsAt = (index: number): Bigrams => (fileGrams[index] ??= bigrams(fileLines[index]!));

  let best = { start: 0, score: -1 };
  for (let start = 0; start + height <= fileLines.length; start++) {
    let score = 0;
    for (let offset = 0; offset < compared; offset++) score += dice(gramsAt(start + offset), needleGrams[offset]!);
    if (score > best.score) best = { start, score };
  }
  return { startLine: best.start + 1, lines: fileLines.slice(best.start, best.start + height), similarity: best.score / compared, comparedLines: compared };
}
