import { describe, expect, it } from "vitest";
import { definitionDocuments, specExamples, variations, withMarkerEverywhere, type Disagreement } from "./commonmark/oracle.js";

/**
 * The differential check against commonmark.js (contract §4): a marker command at every offset
 * of every CommonMark 0.31.2 example, and of variations of them (nested in lists, after a
 * paragraph, tabs, CRLF, lone CR and mixed line endings, cut short). clio must never run what CommonMark reads as code or raw
 * HTML; the only prose it leaves inert is quoted material (block quotes, documented).
 */
function check(markdown: string, step: number, runs: Disagreement[], inert: Disagreement[]): number {
  let cases = 0;
  for (const found of withMarkerEverywhere(markdown, step)) {
    cases++;
    if ((found.reference === "code" || found.reference === "html") && found.clio === "command") runs.push(found);
    if (found.reference === "prose" && found.clio.startsWith("mention") && found.clio !== "mention:quote") inert.push(found);
  }
  return cases;
}

describe("CommonMark differential", () => {
  it("never runs a marker that commonmark.js reads as code or HTML, in any spec example", () => {
    const runs: Disagreement[] = [];
    const inert: Disagreement[] = [];
    let cases = 0;
    for (const example of specExamples()) cases += check(example.markdown, 1, runs, inert);
    expect(cases).toBeGreaterThan(15_000);
    expect(runs.slice(0, 5)).toEqual([]);
    expect(inert.slice(0, 5)).toEqual([]);
  });

  it("nor in variations: nested in lists, after a paragraph, tabs, CRLF, lone CR, mixed line endings, cut short", () => {
    const runs: Disagreement[] = [];
    const inert: Disagreement[] = [];
    let cases = 0;
    for (const example of specExamples()) {
      for (const variant of variations(example.markdown)) cases += check(variant.markdown, 3, runs, inert);
    }
    expect(cases).toBeGreaterThan(40_000);
    expect(runs.slice(0, 5)).toEqual([]);
    expect(inert.slice(0, 5)).toEqual([]);
  });

  it("reads lone CR and mixed line endings as CommonMark does, at every offset", () => {
    const runs: Disagreement[] = [];
    const inert: Disagreement[] = [];
    let cases = 0;
    for (const example of specExamples()) {
      if (!example.markdown.includes("\n")) continue;
      for (const variant of variations(example.markdown)) {
        if (variant.name === "lone CR" || variant.name === "mixed line endings") cases += check(variant.markdown, 1, runs, inert);
      }
    }
    expect(cases).toBeGreaterThan(30_000);
    expect(runs.slice(0, 5)).toEqual([]);
    expect(inert.slice(0, 5)).toEqual([]);
  });

  it("reads a link reference definition as paragraph text, a documented deviation: what commonmark.js hides there runs", () => {
    const runs: Disagreement[] = [];
    const inert: Disagreement[] = [];
    const inDefinitions: string[] = [];
    for (const document of definitionDocuments()) {
      check(document, 1, runs, inert);
      for (const found of withMarkerEverywhere(document)) if (found.reference === "definition") inDefinitions.push(found.clio);
    }
    expect(runs).toEqual([]);
    expect(inert).toEqual([]);
    expect(inDefinitions.length).toBeGreaterThan(90);
    expect(new Set(inDefinitions)).toEqual(new Set(["command", "mention:quote"]));
  });
});
