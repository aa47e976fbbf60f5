import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkingArbitrary } from "../../grammar/arbitraries.js";
import { RegionRecorder } from "../../grammar/region-log.js";
import type { InertRegionKind } from "../../grammar/regions.js";
import { StreamingScanner } from "../../grammar/scanner.js";

/** Feeds `chunks` and, after each push, asks the log about every newly settled offset. */
function kinds(chunks: string[]): { kinds: (InertRegionKind | undefined)[]; settledAfterPush: number[] } {
  const scanner = new StreamingScanner();
  const log = scanner.regions;
  const found: (InertRegionKind | undefined)[] = [];
  const settledAfterPush: number[] = [];
  const drain = () => {
    const settled = log.settledUntil;
    settledAfterPush.push(settled);
    while (found.length < settled) found.push(log.kindAt(found.length));
  };
  for (const chunk of chunks) {
    scanner.push(chunk);
    drain();
  }
  scanner.end();
  drain();
  return { kinds: found, settledAfterPush };
}

/** One letter per offset: . live, F fence, I inline code, C command. */
function letters(text: string): string {
  const code: Record<string, string> = { fence: "F", "inline-code": "I", command: "C", "indented-code": "N", html: "H", quote: "Q", reasoning: "R" };
  return kinds([text])
    .kinds.map((kind) => (kind === undefined ? "." : code[kind]))
    .join("");
}

describe("the inert region log", () => {
  it("marks fences from their run to the end of the closing line", () => {
    expect(letters("a\n```\n[A:k=1]\n```\nb")).toBe("..FFFFFFFFFFFFFFFF.");
  });

  it("marks code spans and commands", () => {
    expect(letters("x `[A:k=1]` y [B:j=2] z")).toBe("..IIIIIIIII...CCCCCCC..");
  });

  it("marks a broken command through its recovery", () => {
    expect(letters("[A:k=1!] x")).toBe("CCCCCCCC..");
  });

  it("settles text after an unmatched backtick only when its paragraph ends", () => {
    const { settledAfterPush } = kinds(["ab `c [A:k=1]", " d\n", "\n", "e"]);
    expect(settledAfterPush).toEqual([3, 3, 17, 18, 18]);
  });

  it("answers the same in any chunking, and settledUntil only grows", () => {
    const text = fc.array(
      fc.constantFrom(
        "a",
        "`",
        "``",
        "```\n",
        "~~~\n",
        "[A:k=1]",
        "[B:k<<E\nx\nE\n]",
        "[C:k=1!",
        "]",
        "\n",
        "\r\n",
        " ",
        "\\",
        "> ",
        "- ",
        "    ",
        "<div>",
        '<b t="',
        "<think>",
        "</think>",
        "<|channel|>analysis<|message|>",
        "<|start|>assistant",
        "<|end|>",
        "<!--",
        "-->",
        "```json\n",
        "{",
        "<｜tool▁call▁end｜>",
        "<|tool_calls_end|>",
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(
        text.map((pieces) => pieces.join("")).chain((joined) => fc.tuple(fc.constant(joined), chunkingArbitrary({ text: joined }))),
        ([joined, chunks]) => {
          const whole = kinds([joined]);
          const streamed = kinds(chunks);
          expect(streamed.kinds).toEqual(whole.kinds);
          expect(whole.kinds).toHaveLength(joined.length);
          for (let i = 1; i < streamed.settledAfterPush.length; i++) expect(streamed.settledAfterPush[i]).toBeGreaterThanOrEqual(streamed.settledAfterPush[i - 1]!);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ends a ```json fence whose first line is a JSON object at its closing run followed by DeepSeek's end tokens; any other fence stays open", () => {
    const closed = "```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n";
    expect(letters(`${closed}b`)).toBe(`${"F".repeat(closed.length)}.`);
    for (const open of ["```json\n{}\n```<｜tool▁call▁end｜>x\nb", "```\n{}\n```<｜tool▁call▁end｜>\nb", "```json\n[]\n```<｜tool▁call▁end｜>\nb"]) {
      expect(letters(open), open).toBe("F".repeat(open.length));
    }
  });

  it("a tag with attributes, blanks after it, and the line feed in the next chunk: the blanks are HTML in any chunking (found by a long property run)", () => {
    for (const [line, end] of [
      ['<b t="x"> ', "\n"],
      ['<b t="<b t="> ', "\r\n"],
      ["<b t='y'>\t ", "\n"],
    ] as const) {
      const whole = kinds([line + end]).kinds;
      expect(whole.every((kind) => kind === "html")).toBe(true);
      expect(kinds([line, end]).kinds).toEqual(whole);
      expect(kinds(["", line, "", end]).kinds).toEqual(whole);
    }
  });

  it("reasoning streamed in small chunks: closers cut anywhere, stray < and >, commands before and after, as the whole text reads it", () => {
    const piece = fc.constantFrom(
      "<think>",
      "</think>",
      "</thi",
      "nk>",
      "</TH",
      "INK>",
      "<",
      ">",
      "a",
      " b",
      "\n",
      "<|end|>",
      "<|e",
      "nd|>",
      "<|channel|>analysis<|message|>",
      "[A:k=1]",
      "<b>",
      "<di",
      "x>y",
      "</",
      "|>",
      "<|x",
    );
    const events = (chunks: string[]) => {
      const scanner = new StreamingScanner();
      const seen = chunks.flatMap((chunk) => scanner.push(chunk));
      return JSON.stringify([...seen, ...scanner.end()]);
    };
    fc.assert(
      fc.property(
        fc
          .array(piece, { maxLength: 40 })
          .map((pieces) => pieces.join(""))
          .chain((joined) => fc.tuple(fc.constant(joined), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }))),
        ([joined, sizes]) => {
          const chunks: string[] = [];
          for (let at = 0, turn = 0; at < joined.length; turn++) {
            chunks.push(joined.slice(at, at + sizes[turn % sizes.length]!));
            at += sizes[turn % sizes.length]!;
          }
          expect(kinds(chunks).kinds).toEqual(kinds([joined]).kinds);
          expect(events(chunks)).toBe(events([joined]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("marks indented code, HTML, quotes and reasoning", () => {
    expect(letters("    [A:k=1]\n\nb")).toBe(`${"N".repeat(13)}.`);
    expect(letters("> q\n\nb")).toBe("QQQQ..");
    expect(letters("<div>\n\nb")).toBe("HHHHHH..");
    expect(letters("a <i> b")).toBe("..HHH..");
    expect(letters("<think>x</think>b")).toBe(`${"R".repeat(16)}.`);
  });

  it("keeps bounded memory when the reader keeps up", () => {
    const scanner = new StreamingScanner();
    const log = scanner.regions;
    let asked = 0;
    for (let i = 0; i < 20_000; i++) {
      scanner.push("x `a` y\n");
      while (asked < log.settledUntil) log.kindAt(asked++);
    }
    const { count, offsets } = log as unknown as { count: number; offsets: Float64Array };
    expect(count).toBeLessThan(2_100);
    expect(offsets.length).toBeLessThanOrEqual(4_096);
  });

  it("answers as a plain list of change points would, over thousands of marks read as they come", () => {
    const kindsToMark: (InertRegionKind | undefined)[] = [undefined, "fence", "inline-code", "command", "html"];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.nat(kindsToMark.length - 1), fc.boolean()), { minLength: 1, maxLength: 3_000 }), (steps) => {
        const recorder = new RegionRecorder({ settledOffset: () => Number.POSITIVE_INFINITY }, 0);
        // The model: every mark kept; a mark at the place of the one before replaces it.
        const marks: { offset: number; kind: InertRegionKind | undefined }[] = [{ offset: 0, kind: undefined }];
        const modelAt = (at: number) => {
          let index = marks.length - 1;
          while (marks[index]!.offset > at) index--;
          return marks[index]!.kind;
        };
        let offset = 0;
        let asked = 0;
        for (const [advance, kindIndex, read] of steps) {
          offset += advance;
          const kind = kindsToMark[kindIndex];
          recorder.mark(offset, kind);
          if (marks.at(-1)!.offset === offset) marks.at(-1)!.kind = kind;
          else marks.push({ offset, kind });
          // As the scanner's readers do: only below the place still being decided.
          for (; read && asked < offset; asked++) expect(recorder.kindAt(asked)).toBe(modelAt(asked));
        }
      }),
      { numRuns: 30 },
    );
  });
});
