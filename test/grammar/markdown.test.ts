import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkingArbitrary } from "../../grammar/arbitraries.js";
import { parse } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

/** Each mention as `context:text`, and the protocols of the commands. */
function verdicts(text: string): { commands: string[]; mentions: string[] } {
  const result = parse(text);
  expect(result.errors).toEqual([]);
  return { commands: result.commands.map((command) => command.protocol), mentions: result.mentions.map((mention) => `${mention.context}:${mention.text}`) };
}

describe("Markdown containers", () => {
  it("a fence inside a nested list item is code, with indentation from the item's content column", () => {
    const text = '1. Install:\n\n   - then run:\n\n     ```sh\n     [EXEC:action=run:command="rm -rf /"]\n     ```\n\n[B:k=1]';
    expect(verdicts(text)).toEqual({ commands: ["B"], mentions: ['fence:[EXEC:action=run:command="rm -rf /"]'] });
  });

  it("indented code is code at top level and inside list items, but not as a paragraph's continuation", () => {
    expect(verdicts("Example:\n\n    [A:k=1]\n\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["indented-code:[A:k=1]"] });
    expect(verdicts("- item\n\n      [A:k=1]\n")).toEqual({ commands: [], mentions: ["indented-code:[A:k=1]"] });
    expect(verdicts("text\n    [A:k=1]")).toEqual({ commands: ["A"], mentions: [] });
  });

  it("block quotes are quoted material, lazy continuation lines included; a blank line ends them", () => {
    expect(verdicts("> the page says\n> [A:k=1]\nstill quoted [B:k=1]\n\n[C:k=1]")).toEqual({ commands: ["C"], mentions: ["quote:[A:k=1]", "quote:[B:k=1]"] });
    expect(verdicts("> ```\n> [A:k=1]\n> ```\n")).toEqual({ commands: [], mentions: ["fence:[A:k=1]"] });
    expect(verdicts("> ```\n[A:k=1]")).toEqual({ commands: ["A"], mentions: [] });
  });

  it("tabs expand to the next multiple of 4 columns, also mixed with spaces in list items", () => {
    expect(verdicts("\t[A:k=1]")).toEqual({ commands: [], mentions: ["indented-code:[A:k=1]"] });
    expect(verdicts("- a\n\n \t  [A:k=1]")).toEqual({ commands: [], mentions: ["indented-code:[A:k=1]"] });
    expect(verdicts("-\tx\n\n  [A:k=1]")).toEqual({ commands: ["A"], mentions: [] });
  });

  it("reads CRLF line endings like LF", () => {
    expect(verdicts("- a\r\n\r\n      [A:k=1]\r\n\r\n[B:k=1]\r\n")).toEqual({ commands: ["B"], mentions: ["indented-code:[A:k=1]"] });
  });

  it("reads a lone \\r as a line ending, alone and mixed with \\n and \\r\\n", () => {
    expect(verdicts("- a\r\r      [A:k=1]\r\r[B:k=1]\r")).toEqual({ commands: ["B"], mentions: ["indented-code:[A:k=1]"] });
    expect(verdicts("> ```\r\n> [A:k=1]\r> ```\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["fence:[A:k=1]"] });
    expect(verdicts("<div>\r[A:k=1]\r\r[B:k=1]")).toEqual({ commands: ["B"], mentions: ["html:[A:k=1]"] });
    expect(verdicts("a `b\r[A:k=1]` c\r\r`d\r\r[B:k=1]`")).toEqual({ commands: ["B"], mentions: ["inline-code:[A:k=1]"] });
  });

  it("gives a lone \\r back in the text of commands and mentions", () => {
    const [command] = parse("[A:k<<EOF\ra\rb\rEOF\r]").commands;
    expect(command!.parameters[0]!.text).toBe("a\rb");
    expect(command!.span.end).toEqual({ offset: 19, line: 5, column: 2 });
    const [mention] = parse("```\r[A:k<<EOF\ra\rEOF\r]\r```").mentions;
    expect(mention!.text).toBe("[A:k<<EOF\ra\rEOF\r]");
  });

  it("10,000 levels of block quotes or list items are linear and use no call stack", () => {
    const quotes = `${">".repeat(10_000)} [A:k=1]\n\n[B:k=1]`;
    expect(verdicts(quotes)).toEqual({ commands: ["B"], mentions: ["quote:[A:k=1]"] });
    const lines = Array.from({ length: 2_000 }, (_, depth) => `${"  ".repeat(depth)}- level`).join("\n");
    expect(verdicts(`${lines}\n${"  ".repeat(2_000)}    [A:k=1]\n\n[B:k=1]`).commands).toEqual(["A", "B"]);
    expect(verdicts(`${lines}\n\n${"  ".repeat(2_000)}    [A:k=1]\n\n[B:k=1]`)).toEqual({ commands: ["B"], mentions: ["indented-code:[A:k=1]"] });
    const bullets = `${"- ".repeat(10_000)}[A:k=1]`;
    expect(verdicts(bullets)).toEqual({ commands: ["A"], mentions: [] });
  });
});

describe("raw HTML", () => {
  it("an HTML block runs to its end condition, or to a blank line", () => {
    expect(verdicts("<div>\n[A:k=1]\n</div>\n\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["html:[A:k=1]"] });
    expect(verdicts("<!-- note\n[A:k=1]\n-->\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["html:[A:k=1]"] });
    expect(verdicts("<custom-tag>\n[A:k=1]\n\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["html:[A:k=1]"] });
  });

  it("inline tags hold what is inside them, also over lines of a paragraph; other text stays live", () => {
    expect(verdicts('a <span title="[A:k=1]">x</span> [B:k=1]')).toEqual({ commands: ["B"], mentions: ["html:[A:k=1]"] });
    expect(verdicts('a <span\ntitle="[A:k=1]">x</span>')).toEqual({ commands: [], mentions: ["html:[A:k=1]"] });
    expect(verdicts('a <span title="[A:k=1]\n\n[B:k=1]')).toEqual({ commands: ["A", "B"], mentions: [] });
  });

  it("names with an underscore are no HTML: <tool_call>, <read_file> and <FILE_OP> stay live text", () => {
    for (const name of ["tool_call", "read_file", "FILE_OP"]) {
      expect(verdicts(`<${name}>[A:k=1]</${name}>`)).toEqual({ commands: ["A"], mentions: [] });
      expect(verdicts(`<${name}>\n[A:k=1]\n</${name}>`)).toEqual({ commands: ["A"], mentions: [] });
    }
  });
});

describe("reasoning", () => {
  it("<think>, <thinking> and <reasoning> blocks are inert; an unclosed one runs to the end", () => {
    expect(verdicts("<think>\nmaybe [A:k=1]\n</think>\n[B:k=1]")).toEqual({ commands: ["B"], mentions: ["reasoning:[A:k=1]"] });
    expect(verdicts("<thinking>[A:k=1]</thinking> [B:k=1]")).toEqual({ commands: ["B"], mentions: ["reasoning:[A:k=1]"] });
    expect(verdicts("<reasoning>\n- draft:\n  [A:k=1]\n\n[B:k=1]")).toEqual({ commands: [], mentions: ["reasoning:[A:k=1]", "reasoning:[B:k=1]"] });
  });

  it("a <think> inside a fence is code", () => {
    expect(verdicts("```\n<think>\n```\n[A:k=1]")).toEqual({ commands: ["A"], mentions: [] });
  });
});

describe("bad input", () => {
  it("unclosed fences, HTML blocks and code spans at the end of a reply", () => {
    expect(verdicts("- a\n\n  ```\n  [A:k=1]")).toEqual({ commands: [], mentions: ["fence:[A:k=1]"] });
    expect(verdicts("<pre>\n[A:k=1]")).toEqual({ commands: [], mentions: ["html:[A:k=1]"] });
    expect(verdicts("a ``b\n[A:k=1]")).toEqual({ commands: ["A"], mentions: [] });
  });

  it("markdown in any chunking gives the one-shot result", () => {
    const pieces = [
      "[A:k=1]",
      "`",
      "``",
      "```",
      "\n",
      "\n\n",
      "> ",
      "- ",
      "1. ",
      "    ",
      "\t",
      "<div>",
      '<a b="',
      '"',
      ">",
      "<!--",
      "-->",
      "<think>",
      "</think>",
      "~~~",
      "\r\n",
      "x ",
      "# ",
      "[B:k<<E\n",
      "\nE\n]",
      "\\",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 25 }).chain((list) => {
          const text = list.join("");
          return fc.tuple(fc.constant(text), chunkingArbitrary({ text }));
        }),
        ([text, chunks]) => {
          expect(parseChunks(chunks)).toEqual(parse(text));
        },
      ),
      { numRuns: 400 },
    );
  });
});
