/**
 * The chat's reasoning split (src/agent/reasoning-split.ts) beside what it stands on, in CPU
 * time, one run: the streaming scanner alone (the pass the split needs: it reads the scanner's
 * region log), and a plain `indexOf` split on the tags (the fastest way, but wrong for a tag in
 * code). Chat-shaped text with a `<think>` block every ~4 KB and a fenced `<think>` now and then;
 * one-shot and in 1-character chunks, at 1 MB and 2 MB (linear: 2 MB at about twice the time).
 *
 *     npm run bench -- reasoning-split
 */
import { ReasoningSplitter } from "../src/agent/reasoning-split.js";
import { StreamingScanner } from "../grammar/scanner.js";
import { cpuBestMs as cpuMs, seededRandom } from "./support.js";

const MB = 1024 * 1024;
const WORDS = ["the", "file", "reads", "a", "value", "config", "then", "we", "check", "parser", "returns", "list", "of", "items", "test"];

function replyText(bytes: number): string {
  const next = seededRandom(7);
  const words = (count: number) => Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
  const parts: string[] = [];
  let length = 0;
  let sinceThink = 0;
  while (length < bytes) {
    const roll = next();
    let part: string;
    if (sinceThink > 4_000) {
      part = `<think>${words(40)}\n${words(30)} [FILE_OP:action=read:path="a.ts"]</think>\n\n`;
      sinceThink = 0;
    } else if (roll < 0.05) part = `\`\`\`html\n<think>${words(5)}</think>\n\`\`\`\n\n`;
    else if (roll < 0.4) part = `- \`${words(1)}()\` ${words(8)}\n- ${words(10)}\n\n`;
    else part = `${words(30)} \`${words(1)}\` ${words(12)}.\n\n`;
    parts.push(part);
    length += part.length;
    sinceThink += part.length;
  }
  return parts.join("").slice(0, bytes);
}

function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return chunks;
}

function scanOnly(chunks: readonly string[]): number {
  const scanner = new StreamingScanner();
  const log = scanner.regions;
  for (const chunk of chunks) scanner.push(chunk);
  scanner.end();
  return log.settledUntil;
}

function split(chunks: readonly string[]): number {
  let said = 0;
  const splitter = new ReasoningSplitter({ text: (piece) => (said += piece.length), reasoning: () => {}, reasoningEnded: () => {} });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return said;
}

/** The plain way: every `<think>` to its `</think>` is reasoning, wherever it stands. */
function indexOfSplit(text: string): number {
  let said = 0;
  let from = 0;
  for (;;) {
    const open = text.indexOf("<think>", from);
    if (open < 0) return said + text.length - from;
    said += open - from;
    const close = text.indexOf("</think>", open);
    if (close < 0) return said;
    from = close + "</think>".length;
  }
}

const texts = { "1 MB": replyText(MB), "2 MB": replyText(2 * MB) };
// Warm-up, so the first row is not the one that pays for compiling.
for (let round = 0; round < 3; round++)
  for (const text of Object.values(texts)) for (const chunks of [[text], chunksOf(text, 1)]) split(chunks) + scanOnly(chunks) + indexOfSplit(text);
console.log("text  chunks   indexOf ms  scanner ms  split ms  split/scanner  split/indexOf");
const splitTimes: Record<string, number> = {};
for (const [name, text] of Object.entries(texts)) {
  for (const [label, chunks] of [
    ["whole", [text]],
    ["1-char", chunksOf(text, 1)],
  ] as const) {
    const plain = cpuMs(() => indexOfSplit(text), 9);
    const scanner = cpuMs(() => scanOnly(chunks), 9);
    const splitter = cpuMs(() => split(chunks), 9);
    splitTimes[`${name} ${label}`] = splitter;
    console.log(
      `${name}  ${label.padEnd(7)} ${plain.toFixed(2).padStart(10)} ${scanner.toFixed(1).padStart(11)} ${splitter.toFixed(1).padStart(9)} ${(splitter / scanner).toFixed(2).padStart(14)} ${(splitter / plain).toFixed(0).padStart(14)}`,
    );
  }
}
for (const label of ["whole", "1-char"]) console.log(`linear, ${label}: 2 MB / 1 MB = ${(splitTimes[`2 MB ${label}`]! / splitTimes[`1 MB ${label}`]!).toFixed(2)}`);
