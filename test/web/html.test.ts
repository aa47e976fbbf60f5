import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../tools/web/html.js";

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
