/**
 * HTML to markdown of a page's main content: Readability picks the article; title, headings,
 * links and code blocks stay; scripts, styles and navigation go. Its libraries are large, so
 * this module is loaded only when a page is converted.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

export interface PageMarkdown {
  /** The page title, when it has one. */
  title?: string;
  markdown: string;
  /** True when Readability found an article; false when the whole body was converted. */
  article: boolean;
}

/**
 * Readability's work grows steeply with nesting (a page of 1000 nested <div>s takes seconds,
 * 10000 minutes, all synchronous, so no timeout can stop it); real pages stay far below this.
 * Deeper pages skip Readability, and a page too deep for Turndown's recursion comes back as text.
 */
const MAX_ARTICLE_DEPTH = 256;
/** Tag nesting (estimated from the raw text) beyond which the page is not parsed at all. */
const MAX_PARSE_DEPTH = 5000;
/** Elements that never hold others, or whose end tag may be left out: they do not deepen the estimate. */
const FLAT_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  "p",
  "li",
  "dt",
  "dd",
  "option",
  "tr",
  "td",
  "th",
]);

/** The deepest open-tag nesting in `html`, counted from its tags without building a tree. */
function estimatedDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const match of html.matchAll(/<(\/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*?(\/?)>/g)) {
    const name = match[2]!.toLowerCase();
    if (FLAT_ELEMENTS.has(name) || match[3] === "/") continue;
    depth = match[1] === "/" ? Math.max(0, depth - 1) : depth + 1;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/** A page's text without a DOM: scripts, styles and tags removed, common entities decoded. */
function roughText(html: string): PageMarkdown {
  const decode = (text: string) =>
    text.replace(/&(lt|gt|quot|apos|amp|nbsp|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
      const named: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&", nbsp: " " };
      const lower = name.toLowerCase();
      if (named[lower] !== undefined) return named[lower];
      const code = lower.startsWith("#x") ? parseInt(lower.slice(2), 16) : Number(lower.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    });
  const title = /<title[^<>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  const text = decode(withoutElements(html, ["script", "style", "title"]).replace(/<[^<>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
  const shownTitle = title ? decode(title) : undefined;
  return { title: shownTitle, markdown: withTitle(shownTitle, text), article: false };
}

/** `html` without the named elements and their content (an unclosed one runs to the end), in one pass. */
function withoutElements(html: string, names: string[]): string {
  const lower = html.toLowerCase();
  const next = new Map(names.map((name) => [name, -1]));
  let kept = "";
  let position = 0;
  for (;;) {
    // Each name's next start is searched again only once the scan has passed it, so the whole pass stays linear.
    for (const [name, index] of next) {
      if (index === Infinity || index >= position) continue;
      const found = lower.indexOf(`<${name}`, position);
      next.set(name, found === -1 ? Infinity : found);
    }
    const [name, start] = [...next].reduce((first, candidate) => (candidate[1] < first[1] ? candidate : first));
    if (start === Infinity) return kept + html.slice(position);
    kept += `${html.slice(position, start)} `;
    const end = lower.indexOf(`</${name}`, start);
    if (end === -1) return kept;
    const close = lower.indexOf(">", end);
    position = close === -1 ? html.length : close + 1;
  }
}

/** Turndown, too, slows steeply and then overflows the stack on deep nesting: beyond this, text only. */
const MAX_MARKDOWN_DEPTH = 1000;

const DROPPED_ELEMENTS = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "form", "nav", "button", "select"];

/** Converts an HTML page to markdown of its main content, with links made absolute against `pageUrl`. */
export function htmlToMarkdown(html: string, pageUrl: URL): PageMarkdown {
  // linkedom's parser itself slows quadratically with nesting (100 000 levels: seconds); such a page is read as text.
  if (estimatedDepth(html) > MAX_PARSE_DEPTH) return roughText(html);
  try {
    return domToMarkdown(html, pageUrl);
  } catch {
    // Markup the DOM libraries cannot take (linkedom yields no document element for some) is read as text.
    return roughText(html);
  }
}

function domToMarkdown(html: string, pageUrl: URL): PageMarkdown {
  const document = parsedPage(html, pageUrl);
  const pageTitle = document.querySelector("title")?.textContent?.trim() || undefined;
  const depth = nestingDepth(document.documentElement, MAX_MARKDOWN_DEPTH);
  if (depth > MAX_MARKDOWN_DEPTH) {
    const text = (document.body ?? document.documentElement)?.textContent?.replace(/\s+/g, " ").trim() ?? "";
    return { title: pageTitle, markdown: withTitle(pageTitle, text), article: false };
  }
  let parsed: ReturnType<Readability["parse"]> = null;
  const readabilityRuns = depth <= MAX_ARTICLE_DEPTH;
  try {
    if (readabilityRuns) {
      parsed = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { keepClasses: true }).parse();
    }
  } catch {
    parsed = null;
  }
  const turndown = markdownConverter();
  if (parsed?.content && parsed.textContent?.trim()) {
    const title = parsed.title?.trim() || pageTitle;
    return { title, markdown: withTitle(title, turndown.turndown(parsed.content)), article: true };
  }
  // Only now is the whole body needed (a page with an article never pays for serialising it). Readability
  // changes the tree while it looks for an article, so after it the body is read from a fresh one.
  const whole = readabilityRuns ? parsedPage(html, pageUrl) : document;
  return { title: pageTitle, markdown: withTitle(pageTitle, turndown.turndown(bodyHtml(whole))), article: false };
}

/** The page's tree with its links made absolute. */
function parsedPage(html: string, pageUrl: URL): LinkedDocument {
  const { document } = parseHTML(html);
  absolutizeLinks(document, pageUrl);
  return document;
}

interface TreeNode {
  firstElementChild: TreeNode | null;
  nextElementSibling: TreeNode | null;
}

/**
 * How deep elements nest under `root`, counted without recursion; stops at `limit` + 1. Walks
 * sibling links: linkedom builds a fresh `children` list on every read, so indexing it per
 * child would be quadratic in a node's number of children.
 */
function nestingDepth(root: TreeNode | null, limit: number): number {
  let deepest = 0;
  const stack: Array<[TreeNode, number]> = root === null ? [] : [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (depth > limit) return depth;
    for (let child = node.firstElementChild; child !== null; child = child.nextElementSibling) stack.push([child, depth + 1]);
  }
  return deepest;
}

type LinkedDocument = ReturnType<typeof parseHTML>["document"];

function absolutizeLinks(document: LinkedDocument, pageUrl: URL): void {
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  let base = pageUrl;
  try {
    if (baseHref) base = new URL(baseHref, pageUrl);
  } catch {
    base = pageUrl;
  }
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (value === null || value.startsWith("#")) continue;
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        // Leave a link that cannot be resolved as written.
      }
    }
  }
}

function bodyHtml(document: LinkedDocument): string {
  const clone = (document.body ?? document.documentElement).cloneNode(true) as LinkedDocument["body"];
  for (const element of clone.querySelectorAll(DROPPED_ELEMENTS.join(","))) element.remove();
  return clone.innerHTML;
}

function markdownConverter(): TurndownService {
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
  turndown.remove(DROPPED_ELEMENTS as TurndownService.Filter);
  // Turndown fences only <pre><code>; a bare <pre> (Sphinx, Pygments, many docs) would come out
  // as markdown-escaped prose (`a\_b \* 2`), so it is fenced here with its text as written.
  turndown.addRule("preformatted", {
    filter: (node) => node.nodeName === "PRE" && node.firstChild?.nodeName !== "CODE",
    replacement: (_content, node) => {
      const element = node as unknown as PreElement;
      const code = (element.textContent ?? "").replace(/\n$/, "");
      const classes = `${element.getAttribute("class") ?? ""} ${element.parentElement?.getAttribute("class") ?? ""}`;
      const language = /(?:^|\s)(?:language|lang|highlight)-([\w+#-]+)/.exec(classes)?.[1] ?? "";
      const longest = Math.max(2, ...(code.match(/^`{3,}/gm) ?? []).map((run: string) => run.length));
      const fence = "`".repeat(longest + 1);
      return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
    },
  });
  return turndown;
}

interface PreElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  parentElement: { getAttribute(name: string): string | null } | null;
}

function withTitle(title: string | undefined, markdown: string): string {
  const body = markdown.trim();
  if (title === undefined || body.startsWith(`# ${title}`) || body.startsWith(`## ${title}`)) return body;
  return `# ${title}\n\n${body}`;
}
