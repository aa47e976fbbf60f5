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

const DROPPED_ELEMENTS = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "form", "nav", "button", "select"];

/** Converts an HTML page to markdown of its main content, with links made absolute against `pageUrl`. */
export function htmlToMarkdown(html: string, pageUrl: URL): PageMarkdown {
  const { document } = parseHTML(html);
  absolutizeLinks(document, pageUrl);
  const pageTitle = document.querySelector("title")?.textContent?.trim() || undefined;
  const fallbackHtml = bodyHtml(document);
  let parsed: ReturnType<Readability["parse"]> = null;
  try {
    parsed = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { keepClasses: true }).parse();
  } catch {
    parsed = null;
  }
  const turndown = markdownConverter();
  if (parsed?.content && parsed.textContent?.trim()) {
    const title = parsed.title?.trim() || pageTitle;
    return { title, markdown: withTitle(title, turndown.turndown(parsed.content)), article: true };
  }
  return { title: pageTitle, markdown: withTitle(pageTitle, turndown.turndown(fallbackHtml)), article: false };
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
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
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
