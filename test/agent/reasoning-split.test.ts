import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkingArbitrary } from "../../grammar/arbitraries.js";
import { ReasoningSplitter, splitReasoning, withoutReasoning } from "../../src/agent/reasoning-split.js";
import { StreamingScanner } from "../../grammar/scanner.js";

/** What a splitter passes on, fed `chunks`: text and reasoning in order, each block closed by "|". */
function pieces(chunks: string[]): { text: string; reasoning: string[]; trace: string[] } {
  let text = "";
  const reasoning: string[] = [];
  let current = "";
  const trace: string[] = [];
  const splitter = new ReasoningSplitter({
    text: (piece) => {
      text += piece;
      trace.push(`T${piece}`);
    },
    reasoning: (piece) => {
      current += piece;
      trace.push(`R${piece}`);
    },
    reasoningEnded: () => {
      reasoning.push(current);
      current = "";
      trace.push("|");
    },
  });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { text, reasoning, trace };
}

const SAMPLES = [
  'Before.\n<think>draft [FILE_OP:action=write:path="a":content="x"]</think>\nAfter.\n',
  "The answer is <think>yes</think>.\n",
  "```\n<think>fenced</think>\n```\nafter\n",
  "Use `<think>` and ``<thinking>x</thinking>`` tags.\n",
  "Sure.\n<thinking>still going\nand on",
  "- item\n  <reasoning>x\n  y</reasoning> z\n",
  "> <think>quoted</think>\n",
  "  <Think>weigh</THINK>\nAnswer\n",
  "a <think>one</think> b <reasoning>two</reasoning>\nc\n",
  "a `open <think>x</think> b\n\nc\n",
  "    <think>indented code</think>\n",
  "1. step\n   ```\n   <think>in a fenced list item</think>\n   ```\n2. next <think>real</think> done\n",
  "<thinking>line one\r\nline two</thinking>\r\nafter\r\n",
  "<think>a\n</thinking>\n</think>\nb",
  "<think>a</think><THINKING>b</thinking><think>c</think>\nd",
  "x <think data-note=\"a>b\" id='c>d'>body</think> y",
  "<thi<THINKING></thinking>\r<div></reasoning>",
  '<|channel|>analysis<|message|>I need a.ts [FILE_OP:action=read:path="a.ts"]<|end|><|start|>assistant<|channel|>final<|message|>Reading a.ts.<|return|>',
  "<|start|>assistant<|channel|>analysis<|message|>line one\r\nline two<|start|>assistant<|channel|>final<|message|>Answer\r\n",
  "```\n<|channel|>analysis<|message|>fenced<|end|>\n```\n<|channel|>analysis<|message|>cut off",
  "<|start|>assistant<|channel|>final<|message|>Done.<|return|>",
  "Sure. <|channel|>final<|message|>Done.<|end|>\n```\n<|channel|>final<|message|>quoted<|return|>\n```\nUse `<|return|>` to end.",
  '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "a.ts"}<|call|>',
  "<|end|> no begin <|start|>assistant <|chan",
];

describe("reasoning split by the scanner's regions", () => {
  it("takes a block in the middle of a reply out of its text", () => {
    expect(splitReasoning(SAMPLES[0]!)).toEqual({ text: "Before.\nAfter.\n", reasoning: ['draft [FILE_OP:action=write:path="a":content="x"]'] });
    expect(splitReasoning(SAMPLES[1]!)).toEqual({ text: "The answer is .\n", reasoning: ["yes"] });
    expect(splitReasoning(SAMPLES[8]!)).toEqual({ text: "a b c\n", reasoning: ["one", "two"] });
  });

  it("leaves a tag in a fence, a code span, an indented code block or a block quote as text: it is code or quoted", () => {
    for (const sample of [SAMPLES[2]!, SAMPLES[3]!, SAMPLES[6]!, SAMPLES[10]!]) expect(splitReasoning(sample)).toEqual({ text: sample, reasoning: [] });
    expect(splitReasoning(SAMPLES[11]!)).toEqual({
      text: "1. step\n   ```\n   <think>in a fenced list item</think>\n   ```\n2. next done\n",
      reasoning: ["real"],
    });
  });

  it("runs an unclosed block to the end of the reply", () => {
    expect(splitReasoning(SAMPLES[4]!)).toEqual({ text: "Sure.\n", reasoning: ["still going\nand on"] });
    expect(splitReasoning("x <think>")).toEqual({ text: "x ", reasoning: [""] });
  });

  it("reads blocks inside list items, any case, CRLF, and a close of another name as body", () => {
    expect(splitReasoning(SAMPLES[5]!)).toEqual({ text: "- item\n  z\n", reasoning: ["x\n  y"] });
    expect(splitReasoning(SAMPLES[7]!)).toEqual({ text: "  Answer\n", reasoning: ["weigh"] });
    expect(splitReasoning(SAMPLES[12]!)).toEqual({ text: "after\r\n", reasoning: ["line one\r\nline two"] });
    expect(splitReasoning(SAMPLES[13]!)).toEqual({ text: "b", reasoning: ["a\n</thinking>\n"] });
  });

  it("splits blocks that touch, and skips an opening tag's quoted values", () => {
    expect(splitReasoning(SAMPLES[14]!)).toEqual({ text: "d", reasoning: ["a", "b", "c"] });
    expect(splitReasoning(SAMPLES[15]!)).toEqual({ text: "x y", reasoning: ["body"] });
  });

  it("takes gpt-oss's harmony analysis messages as reasoning: the header and its <|end|> belong to neither side", () => {
    expect(splitReasoning(SAMPLES[17]!)).toEqual({ text: "Reading a.ts.", reasoning: ['I need a.ts [FILE_OP:action=read:path="a.ts"]'] });
    expect(splitReasoning(SAMPLES[18]!)).toEqual({ text: "Answer\r\n", reasoning: ["line one\r\nline two"] });
    expect(splitReasoning(SAMPLES[19]!)).toEqual({ text: "```\n<|channel|>analysis<|message|>fenced<|end|>\n```\n", reasoning: ["cut off"] });
    expect(withoutReasoning("<|channel|>analysis<|message|>plan<|end|>\n\nThe answer.")).toBe("The answer.");
  });

  it("takes the framing of a final message out of live text: its header and its <|return|> or <|end|>", () => {
    expect(splitReasoning(SAMPLES[20]!)).toEqual({ text: "Done.", reasoning: [] });
    expect(withoutReasoning(SAMPLES[20]!)).toBe("Done.");
    expect(withoutReasoning("<|channel|>final<|message|>Done.")).toBe("Done.");
  });

  it("leaves harmony framing in a fence or a code span, a tool call's header, and tokens that frame nothing", () => {
    expect(splitReasoning(SAMPLES[21]!).text).toBe("Sure. Done.\n```\n<|channel|>final<|message|>quoted<|return|>\n```\nUse `<|return|>` to end.");
    expect(splitReasoning(SAMPLES[22]!)).toEqual({ text: SAMPLES[22], reasoning: [] });
    expect(withoutReasoning(SAMPLES[22]!)).toBe(SAMPLES[22]);
    expect(splitReasoning(SAMPLES[23]!).text).toBe(" no begin <|start|>assistant <|chan");
  });

  it("reads framing where the scanner reads harmony headers, so a broken header before it does not hide it", () => {
    expect(splitReasoning("Broken <|start|>assistant<|END|> then <|channel|>final<|message|>Done.<|return|>").text).toBe("Broken <|start|>assistant then Done.");
    expect(splitReasoning("<|start|>assistant<|start|>assistant<|channel|>final<|message|>Done.<|end|>").text).toBe("<|start|>assistantDone.");
    const toTool = "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{}<|call|>";
    expect(splitReasoning(toTool).text).toBe(toTool);
    const scanner = new StreamingScanner();
    const regions = scanner.regions;
    scanner.push("Hi <|channel|>final<|message|>x");
    scanner.end();
    expect([2, 3, 29, 30].map((offset) => regions.kindAt(offset))).toEqual([undefined, "framing", "framing", undefined]);
  });

  it("a code span left open is prose when its paragraph ends, so the tag in it is reasoning", () => {
    expect(splitReasoning(SAMPLES[9]!)).toEqual({ text: "a `open b\n\nc\n", reasoning: ["x"] });
  });

  it("gives the same split in any chunking, one character at a time included", () => {
    for (const sample of SAMPLES) {
      const whole = pieces([sample]);
      const singles = pieces([...sample]);
      expect({ text: singles.text, reasoning: singles.reasoning }).toEqual({ text: whole.text, reasoning: whole.reasoning });
      fc.assert(
        fc.property(chunkingArbitrary({ text: sample }), (chunks) => {
          const split = pieces(chunks);
          return split.text === whole.text && JSON.stringify(split.reasoning) === JSON.stringify(whole.reasoning);
        }),
        { numRuns: 60 },
      );
    }
  });

  it("keeps the line feed of a CRLF after a block closed mid-line and a held backtick run, in any chunking (found by the property below, seed 1971016849)", () => {
    const text = "<THINKING></thinking>``\r\n<THINKING>~~~\n``";
    const whole = pieces([text]);
    expect(whole.text).toBe("``\r\n");
    expect(whole.reasoning).toEqual(["", "~~~\n``"]);
    const single = pieces([...text]);
    expect([single.text, single.reasoning]).toEqual([whole.text, whole.reasoning]);
  });

  it("gives the same split in any chunking of generated Markdown around tags, and never throws", () => {
    const fragments = [
      "<think>",
      "</think>",
      "<THINKING>",
      "</thinking>",
      "<reasoning>",
      "</reasoning>",
      "<thi",
      "nk>",
      "<|channel|>analysis<|message|>",
      "<|start|>assistant",
      "<|channel|>final<|message|>",
      "<|channel|>commentary to=functions.x<|message|>",
      "<|constrain|>json",
      "<|call|>",
      "<|channel|>",
      "analysis",
      "<|message|>",
      "<|end|>",
      "<|return|>",
      "<|",
      "```\n",
      "~~~\n",
      "`",
      "``",
      "> ",
      "- ",
      "1. ",
      "    ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "\n\n",
      "<div>",
      "</div>",
      "word ",
      "[A:k=1]",
      '"',
      ">",
    ];
    const text = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        text.chain((sample) => fc.tuple(fc.constant(sample), chunkingArbitrary({ text: sample }))),
        ([sample, chunks]) => {
          const whole = pieces([sample]);
          const chunked = pieces(chunks);
          return chunked.text === whole.text && JSON.stringify(chunked.reasoning) === JSON.stringify(whole.reasoning);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("decides harmony framing by the text alone, not by where pieces were cut (found by a long property run)", () => {
    for (const sample of [
      "\t<|<|start|>assistant<div><|channel|>analysis<|message|>\r<|end|>",
      "Done.<|end|>",
      "<|start|>assistant<|channel|>final<|message|>Done.<|return|>",
      "a <|start|>assistant<b> x\n<|end|>",
    ]) {
      const whole = pieces([sample]);
      const atEachLess = sample.split("<").map((part, at) => (at === 0 ? part : `<${part}`));
      for (const chunks of [[...sample], [sample.slice(0, 6), sample.slice(6)], atEachLess]) {
        const cut = pieces(chunks);
        expect({ text: cut.text, reasoning: cut.reasoning }, JSON.stringify(chunks)).toEqual({ text: whole.text, reasoning: whole.reasoning });
      }
    }
    expect(pieces(["Done.<", "|end|>"]).text).toBe("Done.");
  });

  it("passes text on as it streams, holding only what may still open a block", () => {
    const seen: string[] = [];
    const splitter = new ReasoningSplitter({ text: (piece) => seen.push(piece), reasoning: (piece) => seen.push(`R:${piece}`), reasoningEnded: () => seen.push("|") });
    splitter.push("Hello wor");
    expect(seen.join("")).toBe("Hello wor");
    splitter.push("ld <b>bold</b> and <thi");
    expect(seen.join("")).toBe("Hello world <b>bold</b> and ");
    splitter.push("nk>first line\nsecond");
    expect(seen.join("")).toBe("Hello world <b>bold</b> and R:first line\n");
    splitter.push(" line</think>\nafter");
    expect(seen.join("")).toBe("Hello world <b>bold</b> and R:first line\nR:second line|after");
    splitter.end();
  });

  it("what goes back to the model: reasoning out, a reply without any unchanged", () => {
    expect(withoutReasoning("  <think>plan</think>\n\nThe answer.\n")).toBe("The answer.\n");
    expect(withoutReasoning(SAMPLES[0]!)).toBe("Before.\nAfter.\n");
    expect(withoutReasoning("<thinking>cut off mid-thought")).toBe("");
    for (const unchanged of ["  plain reply\n", SAMPLES[2]!, SAMPLES[3]!, "a <thi"]) expect(withoutReasoning(unchanged)).toBe(unchanged);
  });
});
