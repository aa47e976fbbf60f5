/**
 * Search on awkward input and the ranking rules of issue 22, on a generated workspace: queries
 * of stop words only, 10,000 characters, other scripts, a regular expression or a path, a symbol
 * defined in 500 files; tests below the code they test; names written as one word; synonyms;
 * and the reasons a hit ranked.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { searchIndex } from "../../tools/index/search.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
let index: CodeIndex;

const FILES: Record<string, string> = {
  "src/cookies.py": [
    "def cookiejar_from_dict(cookie_dict, cookiejar=None):",
    '    """Returns a CookieJar from a key/value dictionary."""',
    "    jar = cookiejar or RequestsCookieJar()",
    "    for name in cookie_dict:",
    "        jar.set_cookie(create_cookie(name, cookie_dict[name]))",
    "    return jar",
    "",
  ].join("\n"),
  "src/utils.py": [
    "def dict_from_cookiejar(cj):",
    '    """Returns a key/value dictionary from a CookieJar."""',
    "    cookie_dict = {}",
    "    for cookie in cj:",
    "        cookie_dict[cookie.name] = cookie.value",
    "    return cookie_dict",
    "",
  ].join("\n"),
  "src/net/retry.ts": "export function retryWithBackoff(attempts: number): number {\n  return attempts * 2;\n}\n",
  "src/flags.go": "package cli\n\n// stripFlags removes flags from args so only positional arguments stay.\nfunc stripFlags(args []string) []string {\n\treturn args\n}\n",
  "src/help.go":
    "package cli\n\n// ActiveHelp messages shown while the shell completes a command.\nfunc AppendActiveHelp(messages []string, help string) []string {\n\treturn append(messages, help)\n}\n",
  "src/help_test.go":
    'package cli\n\nimport "testing"\n\n// TestActiveHelp checks active help messages during completion: active help, active help, help messages.\nfunc TestActiveHelp(t *testing.T) {\n\tmessages := AppendActiveHelp(nil, "active help message")\n\t_ = messages\n}\n',
  "src/tokens.ts": "export function createToken(config: { name: string }): { name: string } {\n  return { name: config.name };\n}\n",
  "src/lexer.ts": "export function tokenize(text: string): string[] {\n  return text.split(/\\s+/);\n}\n",
};

beforeAll(async () => {
  folder = await temporaryFolder("clio-search-input-");
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(folder.path, name)), { recursive: true });
    await writeFile(path.join(folder.path, name), text);
  }
  // One symbol name defined in 500 files.
  for (let number = 0; number < 500; number++) {
    const file = path.join(folder.path, "handlers", `h${Math.floor(number / 50)}`, `route${number}.ts`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `export function handler(request: Request${number}): Response {\n  return respond(request, ${number});\n}\n`);
  }
  index = await CodeIndex.open(folder.path, { workers: 0 });
  await index.update();
}, 60_000);
afterAll(() => folder.remove());

describe("search on awkward input", () => {
  it("refuses a query of stop words only, saying what to write instead", async () => {
    await expect(searchIndex(index, "how is it the of and a to")).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("only common words"),
      hint: expect.stringContaining("identifiers"),
    });
  });

  it("answers a 10,000-character query from its most distinctive words, saying so", async () => {
    const long = `retry backoff attempts ${Array.from({ length: 3000 }, (_, position) => `word${position}`).join(" ")}`.slice(0, 10_000);
    expect(long).toHaveLength(10_000);
    const { hits, notes } = await searchIndex(index, long);
    expect(notes.join(" ")).toMatch(/the 16 most distinctive were used/);
    expect(hits.length).toBeGreaterThan(0);
  });

  it("refuses a query wholly in another script, and leaves such words out of a mixed one, saying so", async () => {
    for (const query of ["解析配置文件", "разобрать файл"]) {
      await expect(searchIndex(index, query)).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("script the index does not hold") });
    }
    const { hits, notes } = await searchIndex(index, "повтор retry backoff");
    expect(hits[0]?.path).toBe("src/net/retry.ts");
    expect(notes.join(" ")).toContain("повтор");
  });

  it("reads a regular expression as its words, and says how to search for a pattern", async () => {
    const { hits, notes } = await searchIndex(index, "retry.*Backoff\\(");
    expect(hits[0]?.path).toBe("src/net/retry.ts");
    expect(notes.join(" ")).toMatch(/not as a regular expression.*rg/);
    // Words in parentheses are not a pattern.
    expect((await searchIndex(index, "retry with backoff (attempts)")).notes.join(" ")).not.toContain("regular expression");
  });

  it("puts the file first when the query is its path", async () => {
    expect((await searchIndex(index, "src/lexer.ts")).hits[0]?.path).toBe("src/lexer.ts");
    expect((await searchIndex(index, "./src/tokens.ts")).hits[0]?.path).toBe("src/tokens.ts");
  });

  it("answers a symbol defined in 500 files with one hit per defining file and a note on narrowing", async () => {
    const { hits, notes } = await searchIndex(index, "handler", { limit: 10 });
    expect(hits).toHaveLength(10);
    expect(new Set(hits.map((hit) => hit.path)).size).toBe(10);
    for (const hit of hits) expect(hit).toMatchObject({ symbol: "handler", path: expect.stringMatching(/^handlers\//) });
    expect(notes.join(" ")).toContain("handler is defined in 500 files; narrow with path=");
    const narrowed = await searchIndex(index, "handler", { path: "handlers/h3" });
    expect(narrowed.hits.every((hit) => hit.path.startsWith("handlers/h3/"))).toBe(true);
  });
});

describe("ranking rules", () => {
  it("matches a name written as one word, in the query's order", async () => {
    const forward = await searchIndex(index, "cookie jar from dict");
    expect(forward.hits[0]).toMatchObject({ path: "src/cookies.py", symbol: "cookiejar_from_dict" });
    const backward = await searchIndex(index, "dict from cookie jar");
    expect(backward.hits[0]).toMatchObject({ path: "src/utils.py", symbol: "dict_from_cookiejar" });
  });

  it("puts tests below the code they test unless the query asks for tests", async () => {
    expect((await searchIndex(index, "active help messages during completion")).hits.map((hit) => hit.path).slice(0, 2)).toEqual(["src/help.go", "src/help_test.go"]);
    expect((await searchIndex(index, "tests of active help messages")).hits[0]?.path).toBe("src/help_test.go");
  });

  it("bridges vocabulary with curated synonyms and abbreviations, below the words themselves", async () => {
    expect((await searchIndex(index, "remove flags from arguments")).hits[0]).toMatchObject({ path: "src/flags.go", symbol: "stripFlags" });
    expect((await searchIndex(index, "define a new token")).hits[0]).toMatchObject({ path: "src/tokens.ts", symbol: "createToken" });
  });

  it("shows why a hit ranked: the name that reads as the query, the words found and those not found", async () => {
    const { hits } = await searchIndex(index, "cookie jar from dict zeppelin");
    expect(hits[0]).toMatchObject({ path: "src/cookies.py", nameMatch: "cookiejar_from_dict" });
    expect(hits[0]!.matched).toEqual(expect.arrayContaining(["cookie", "jar", "dict"]));
    expect(hits[0]!.missing).toEqual(["zeppelin"]);
  });
});
