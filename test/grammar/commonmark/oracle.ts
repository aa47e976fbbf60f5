/**
 * The differential oracle: what commonmark.js (the CommonMark reference implementation) makes of
 * a marker command placed in a document, against what clio's parser makes of it.
 */
import { Parser } from "commonmark";
import { parse } from "../../../grammar/index.js";

/** The marker: a command no spec example contains. */
export const MARKER = "[ZQ:k=1]";

/**
 * Where commonmark.js puts the marker: in code, in raw HTML, in prose, in a link reference
 * definition (its label, destination or title: no node, nothing rendered), or nowhere whole.
 */
export type ReferenceVerdict = "code" | "html" | "prose" | "definition" | "other";
/** Where clio puts it: a command it would run, a mention (with its region), or neither. */
export type ClioVerdict = "command" | `mention:${string}` | "none";

const reader = new Parser();

/** Concatenated literals of runs of adjacent text nodes (commonmark.js splits text at brackets). */
function referenceVerdicts(markdown: string): ReferenceVerdict[] {
  const found: ReferenceVerdict[] = [];
  const walker = reader.parse(markdown).walker();
  let prose = "";
  const flushProse = () => {
    for (let i = prose.indexOf(MARKER); i >= 0; i = prose.indexOf(MARKER, i + 1)) found.push("prose");
    prose = "";
  };
  for (let event = walker.next(); event; event = walker.next()) {
    const node = event.node;
    if (!event.entering) {
      if (node.isContainer) flushProse();
      continue;
    }
    if (node.type === "text") {
      prose += node.literal ?? "";
      continue;
    }
    if (node.type === "softbreak" || node.type === "linebreak") {
      prose += "\n";
      continue;
    }
    flushProse();
    const literal = node.literal ?? "";
    const kind: ReferenceVerdict | undefined =
      node.type === "code" || node.type === "code_block" ? "code" : node.type === "html_block" || node.type === "html_inline" ? "html" : undefined;
    if (kind === undefined) continue;
    for (let i = literal.indexOf(MARKER); i >= 0; i = literal.indexOf(MARKER, i + 1)) found.push(kind);
  }
  flushProse();
  found.push(...definitionVerdicts());
  return found;
}

/** One "definition" verdict per marker in the link reference definitions of the last document read. */
function definitionVerdicts(): ReferenceVerdict[] {
  const found: ReferenceVerdict[] = [];
  const definitions = (reader as unknown as { refmap: Record<string, { destination: string; title: string }> }).refmap;
  // commonmark.js keeps a label case-folded, a destination URL-encoded, a title as written.
  const asLabel = MARKER.slice(1, -1).toUpperCase();
  for (const [label, { destination, title }] of Object.entries(definitions)) {
    if (label === asLabel) found.push("definition");
    if (destination.includes(encodeURI(MARKER))) found.push("definition");
    if (title.includes(MARKER)) found.push("definition");
  }
  return found;
}

/** commonmark.js's verdict on the one marker in `markdown` ("other" when it is not found whole, once). */
export function referenceVerdict(markdown: string): ReferenceVerdict {
  const verdicts = referenceVerdicts(markdown);
  return verdicts.length === 1 ? verdicts[0]! : "other";
}

/** clio's verdict on the marker starting at `offset` of `markdown`. */
export function clioVerdict(markdown: string, offset: number): ClioVerdict {
  const result = parse(markdown);
  if (result.commands.some((command) => command.span.start.offset === offset && command.protocol === "ZQ")) return "command";
  const mention = result.mentions.find((found) => found.span.start.offset === offset && found.text.startsWith(MARKER));
  return mention ? `mention:${mention.context}` : "none";
}

export interface Disagreement {
  markdown: string;
  offset: number;
  reference: ReferenceVerdict;
  clio: ClioVerdict;
}

/** Every offset of `markdown` with the marker inserted there, and both verdicts. */
export function* withMarkerEverywhere(markdown: string, step = 1): Generator<Disagreement> {
  for (let offset = 0; offset <= markdown.length; offset += step) {
    // Never split a \r\n pair: CommonMark and clio both read it as one line ending.
    if (markdown[offset - 1] === "\r" && markdown[offset] === "\n") continue;
    const variant = markdown.slice(0, offset) + MARKER + markdown.slice(offset);
    yield { markdown: variant, offset, reference: referenceVerdict(variant), clio: clioVerdict(variant, offset) };
  }
}

/** The spec's examples, with its → written as the tab it stands for. */
export function specExamples(): { number: number; section: string; markdown: string }[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return specTests.map((test) => ({ number: test.number, section: test.section, markdown: test.markdown.replaceAll("→", "\t") }));
}

import { createRequire } from "node:module";
const specTests = createRequire(import.meta.url)("commonmark-spec").tests as { number: number; section: string; markdown: string }[];

/** The example as the item content of a list `depth` levels deep (bullets, ordered, or mixed). */
function inList(markdown: string, depth: number, ordered: boolean): string {
  let text = markdown;
  for (let level = 0; level < depth; level++) {
    const marker = ordered && level % 2 === 0 ? "1. " : "- ";
    const indent = " ".repeat(marker.length);
    const lines = text.split("\n");
    text = lines.map((line, index) => (index === 0 ? marker + line : line === "" ? "" : indent + line)).join("\n");
  }
  return text;
}

/** The example's line endings cycling through `\n`, `\r\n` and a lone `\r`. */
function mixedLineEndings(markdown: string): string {
  const endings = ["\n", "\r\n", "\r"];
  let line = 0;
  return markdown.replace(/\n/g, () => endings[line++ % endings.length]!);
}

/**
 * Variations beyond the spec's examples: inside list items (1–3 levels, bullets and ordered),
 * after a paragraph (what can interrupt it), with tab indentation, CRLF, lone CR and mixed line
 * endings, and cut short at every line (unclosed fences, HTML blocks, code spans).
 */
export function variations(markdown: string): { name: string; markdown: string }[] {
  const found: { name: string; markdown: string }[] = [];
  for (const depth of [1, 2, 3]) {
    found.push({ name: `bullet list ${depth} deep`, markdown: inList(markdown, depth, false) });
    found.push({ name: `ordered list ${depth} deep`, markdown: inList(markdown, depth, true) });
  }
  found.push({ name: "after a paragraph", markdown: `text before\n${markdown}` });
  found.push({ name: "after a list item", markdown: `- item\n${markdown}` });
  found.push({ name: "tabs for 4 spaces", markdown: markdown.replaceAll("    ", "\t") });
  found.push({ name: "CRLF", markdown: markdown.replaceAll("\n", "\r\n") });
  found.push({ name: "lone CR", markdown: markdown.replaceAll("\n", "\r") });
  found.push({ name: "mixed line endings", markdown: mixedLineEndings(markdown) });
  const lines = markdown.split("\n");
  for (let cut = 1; cut < lines.length - 1; cut++) found.push({ name: `cut after line ${cut}`, markdown: lines.slice(0, cut).join("\n") });
  return found;
}

/**
 * Documents built around link reference definitions: titles in each quote style and over lines,
 * destinations in angle brackets and on the next line, definitions in list items and quotes, and
 * look-alikes that are no definition (after a paragraph line, with text after the title).
 */
export function definitionDocuments(): string[] {
  return [
    '[foo]: /url "title"\n\n[foo]\n',
    "[foo]: <my url> 'title'\n[bar]: /b (title)\n\n[foo] [bar]\n",
    '[foo]:\n/url\n"title"\n',
    '   [foo]: /url "the\ntitle"\nafter\n',
    '- [foo]: /url "title"\n  text\n',
    '> [foo]: /url "title"\n',
    'para\n[foo]: /url "title"\n',
    '[foo]: /url "title" trailing\n',
    "[foo]:\n",
    '[foo]: /url "title"\r[bar]: /b\r\n',
  ];
}
