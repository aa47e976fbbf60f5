import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../../tools/web/html.js";

const LONG = "A paragraph long enough for Readability to take this as the article, with commas, words, and more words, so that it scores.";

function page(body: string): string {
  return `<html><head><title>Doc</title></head><body><nav><a href="/">Home</a></nav><article><h1>Doc</h1><p>${LONG}</p><p>${LONG}</p>${body}</article></body></html>`;
}

describe("HTML to markdown keeps code exactly", () => {
  it("a <pre> without <code> (Sphinx, Pygments) becomes a fenced block with its text unescaped", () => {
    const html = page(
      '<div class="highlight-python"><pre><span class="n">x</span> <span class="o">=</span> <span class="n">a_b</span> <span class="o">*</span> 2\n' +
        '<span class="k">if</span> x:\n    print(<span class="s2">"[x] &lt;ok&gt;"</span>)\n</pre></div>',
    );
    const { markdown } = htmlToMarkdown(html, new URL("https://example.com/docs/"));
    expect(markdown).toContain('```python\nx = a_b * 2\nif x:\n    print("[x] <ok>")\n```');
  });

  it("a fence inside the code gets a longer fence around it", () => {
    const html = page("<pre>before\n```\nafter\n</pre>");
    const { markdown } = htmlToMarkdown(html, new URL("https://example.com/"));
    expect(markdown).toContain("````\nbefore\n```\nafter\n````");
  });
});

describe("HTML to markdown of a page without an article", () => {
  const convert = (body: string) =>
    htmlToMarkdown(`<html><head><title>T</title></head><body>${body}<script>var s = 1;</script></body></html>`, new URL("https://example.com/base/"));

  it("converts the whole body as the page had it before Readability looked, links absolute, scripts gone", () => {
    expect(convert('<div hidden>secret</div><aside>side <a href="a">l</a></aside>')).toEqual({
      title: "T",
      markdown: "# T\n\nsecret\n\nside [l](https://example.com/base/a)",
      article: false,
    });
  });

  it("converts the whole body when the page is too deep for Readability", () => {
    const deep = convert(`${"<div>".repeat(300)}<p>deep <a href="d">l</a></p>${"</div>".repeat(300)}`);
    expect(deep).toEqual({ title: "T", markdown: "# T\n\ndeep [l](https://example.com/base/d)", article: false });
  });
});

describe("HTML to markdown on hostile pages", () => {
  it.each([1000, 5000, 200_000])("a page of divs nested %i deep comes back as its text, without freezing or overflowing the stack", (depth) => {
    const html = `<html><head><title>Deep</title></head><body>${"<div>".repeat(depth)}<p>the bottom <a href="/x">link</a></p>${"</div>".repeat(depth)}</body></html>`;
    const page = htmlToMarkdown(html, new URL("https://example.com/"));
    expect(page.title).toBe("Deep");
    expect(page.markdown).toContain("the bottom");
  });

  it("a page too deep to parse keeps its title and text and drops its scripts and styles", () => {
    const html = `<title>Deep &amp; dark</title><script>var evil = "<div>";</script><style>p{}</style>${"<div>".repeat(20_000)}text &lt;here&gt;${"</div>".repeat(20_000)}`;
    const page = htmlToMarkdown(html, new URL("https://example.com/"));
    expect(page.title).toBe("Deep & dark");
    expect(page.markdown).toBe("# Deep & dark\n\ntext <here>");
  });

  it.each([
    ["unclosed tags", "<a".repeat(1_000_000)],
    ["unclosed scripts", "<script>".repeat(500_000)],
  ])("a 3 MB page of %s is read in one pass, not rescanned per tag, and does not throw", (_name, html) => {
    expect(htmlToMarkdown(html, new URL("https://example.com/")).article).toBe(false);
  });
});
