/** The reply as the terminal shows it: tables lined up, emphasis without its markers even without colour. */
import { describe, expect, it } from "vitest";
import { Chalk } from "chalk";
import { MarkdownRenderer } from "../../src/ui/markdown.js";

function render(text: string, chunk = 3, level: 0 | 1 = 0): string {
  let out = "";
  const renderer = new MarkdownRenderer(new Chalk({ level }), (piece) => (out += piece));
  for (let at = 0; at < text.length; at += chunk) renderer.push(text.slice(at, at + chunk));
  renderer.end();
  return out;
}

describe("markdown in the terminal", () => {
  it("draws a table as aligned columns with a rule under the header, however it streams in", () => {
    const table = "Sizes:\n| file | lines |\n|---|---:|\n| src/main.ts | 120 |\n| a.ts | 7 |\nDone.\n";
    expect(render(table)).toBe("Sizes:\nfile        │ lines\n────────────┼──────\nsrc/main.ts │ 120  \na.ts        │ 7    \nDone.\n");
    expect(render(table, 1)).toBe(render(table, 50));
  });

  it("with NO_COLOR shows emphasis without literal asterisks, and keeps inline code quoted", () => {
    expect(render("This is **very** *important* and `code`.\n")).toBe("This is very important and `code`.\n");
  });
});
