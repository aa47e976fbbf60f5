import { describe, expect, it } from "vitest";
import { parse, StreamingScanner } from "../../grammar/index.js";
import { MARKER, referenceVerdict } from "./commonmark/oracle.js";

/**
 * A scanner that counts the characters it is handed to scan, replays of held text included (an
 * upper bound: a scan that stops early to replay counts the rest of its input too).
 */
class CountingScanner extends StreamingScanner {
  scanned = 0;

  protected override scan(input: string, index: number, base: number): void {
    this.scanned += input.length - index;
    super.scan(input, index, base);
  }
}

/** The characters scanned for `text` fed in chunks of `size`, and what was found. */
function work(text: string, size: number): { scanned: number; found: number } {
  const scanner = new CountingScanner();
  let found = 0;
  for (let i = 0; i < text.length; i += size) found += scanner.push(text.slice(i, i + size)).length;
  found += scanner.end().length;
  return { scanned: scanner.scanned, found };
}

/** Bad inputs of the issue, each built to `size` repetitions. */
const BAD_INPUTS: Record<string, (size: number) => string> = {
  "an unclosed fence at the end": (size) => `\`\`\`\n${"x [A:k=1] `y\n".repeat(size)}`,
  "an unclosed HTML block at the end": (size) => `<div>\n${"x [A:k=1] <b\n".repeat(size)}`,
  "an unclosed think block at the end": (size) => `<think>\n${"x [A:k=1] `y <b\n".repeat(size)}`,
  "backtick runs pairing over lines": (size) => "`a [A:k=1]\n".repeat(size),
  "backtick runs of two lengths on one line": (size) => `${"` ``x ".repeat(size)}[A:k=1]`,
  "an unmatched backtick run before many paired ones": (size) => `\`x ${"``y [A:k=1]`` ".repeat(size)}[B:k=1]`,
  "a block quote as deep as the text is long": (size) => `${">".repeat(size)} [A:k=1]\n${"lazy `x [B:k=1]\n".repeat(size)}`,
  "list items indented with tabs and spaces": (size) => "- a\n \t [A:k=1]\n\n\t  [B:k=1]\n".repeat(size),
  "an unclosed harmony analysis message at the end": (size) => `<|channel|>analysis<|message|>\n${"x [A:k=1] `y <b <|end|\n".repeat(size)}`,
  "<think> inside a fence": (size) => `\`\`\`\n${"<think>\n[A:k=1]\n".repeat(size)}\`\`\`\n[B:k=1]`,
};

describe("bad input (issue 16)", () => {
  it("each bad input is scanned in linear work: twice the text, at most 2.1 times the characters scanned, in any chunking", () => {
    for (const [name, build] of Object.entries(BAD_INPUTS)) {
      for (const size of [Number.POSITIVE_INFINITY, 7, 1]) {
        const small = build(2_000);
        const large = build(4_000);
        const once = work(small, Math.min(size, small.length));
        const twice = work(large, Math.min(size, large.length));
        expect({ name, size, ratio: twice.scanned / once.scanned <= 2.1 }).toEqual({ name, size, ratio: true });
        expect({ name, size, scannedPerCharacter: once.scanned / small.length <= 3 }).toEqual({ name, size, scannedPerCharacter: true });
        expect(twice.found).toBeGreaterThanOrEqual(once.found);
      }
    }
  });

  it("tags held on one long line are scanned in linear work, in chunks (in one chunk each tag held counts the rest of the text)", () => {
    const inputs: Record<string, (size: number) => string> = {
      "harmony headers that never reach <|message|>": (size) => "<|channel|>analysis x [A:k=1] ".repeat(size),
      "think blocks closed and opened again on one line": (size) => `${"<think>a [A:k=1]</think> b ".repeat(size)}\n`,
      "harmony analysis messages one after another on one line": (size) => `${"<|channel|>analysis<|message|>a [A:k=1]<|end|><|start|>assistant".repeat(size)}\n`,
    };
    for (const [name, build] of Object.entries(inputs)) {
      for (const size of [7, 1]) {
        const once = work(build(2_000), size);
        const twice = work(build(4_000), size);
        expect({ name, size, ratio: twice.scanned / once.scanned <= 2.1, found: twice.found }).toEqual({ name, size, ratio: true, found: 4_000 });
        expect(once.scanned / build(2_000).length).toBeLessThanOrEqual(3);
      }
    }
    // One chunk: the count above does not apply (see the title); when the search was quadratic, 40,000 blocks took 34 s, past the 30 s test timeout.
    expect(parse("<think>a [A:k=1]</think> b ".repeat(100_000)).mentions).toHaveLength(100_000);
  });

  it("an unclosed fence, HTML block or think block runs to the end of the reply", () => {
    expect(parse(BAD_INPUTS["an unclosed fence at the end"]!(3)).commands).toEqual([]);
    expect(parse(BAD_INPUTS["an unclosed HTML block at the end"]!(3)).commands).toEqual([]);
    const thinking = parse(BAD_INPUTS["an unclosed think block at the end"]!(3));
    expect(thinking.commands).toEqual([]);
    expect(thinking.mentions.map((mention) => mention.context)).toEqual(["reasoning", "reasoning", "reasoning"]);
  });

  it("a <think> inside a fence is code, not reasoning: its lines are fence mentions and the fence's end ends it", () => {
    const result = parse(BAD_INPUTS["<think> inside a fence"]!(2));
    expect(result.mentions.map((mention) => mention.context)).toEqual(["fence", "fence"]);
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(parse("`<think>` [A:k=1]").commands).toHaveLength(1);
    expect(parse("    <think>\n\n[A:k=1]").commands).toHaveLength(1);
  });

  it("100,000 backtick runs: those that pair make code, the rest are literal", () => {
    expect(parse(BAD_INPUTS["backtick runs of two lengths on one line"]!(50_000)).commands).toHaveLength(1);
    const unmatched = parse(BAD_INPUTS["an unmatched backtick run before many paired ones"]!(100_000));
    expect(unmatched.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(unmatched.mentions).toHaveLength(100_000);
    expect(parse(`${"`x` ".repeat(100_000)}[A:k=1]`).commands).toHaveLength(1);
  });

  it("a block quote 10,000 levels deep quotes its lazy lines until a blank line", () => {
    const result = parse(`${BAD_INPUTS["a block quote as deep as the text is long"]!(10_000).slice(0, 10_030)}\n\n[C:k=1]`);
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(result.mentions.every((mention) => mention.context === "quote")).toBe(true);
  });

  it("list items indented with tabs and spaces: the marker after every mix of up to 6 tabs and spaces is what commonmark.js makes of it", () => {
    const mixes: string[] = [""];
    for (let length = 1; length <= 6; length++) {
      for (let bits = 0; bits < 1 << length; bits++) mixes.push(Array.from({ length }, (_, bit) => ((bits >> bit) & 1 ? "\t" : " ")).join(""));
    }
    const disagreements: string[] = [];
    for (const before of ["- a\n", "- a\n\n", "1. a\n\n", "-\ta\n\n", " - a\n   - b\n\n", "> - a\n>\n> "]) {
      for (const indent of mixes) {
        const text = `${before}${indent}${MARKER}\n`;
        const reference = referenceVerdict(text);
        const result = parse(text);
        const clio = result.commands.length > 0 ? "command" : result.mentions.length > 0 ? "mention" : "none";
        const agrees = reference === "prose" ? clio === "command" || before.startsWith(">") : reference === "code" ? clio === "mention" : true;
        if (!agrees) disagreements.push(`${JSON.stringify(text)}: commonmark.js ${reference}, clio ${clio}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
