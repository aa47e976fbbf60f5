import { describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { formatDifferences, unifiedDiff } from "../../src/replay/difference-report.js";
import { compareResults } from "../../src/replay/compare.js";
import { buildExpectationFile, ExpectationFileError, normalisingOf, parseExpectationFile, serialiseExpectationFile, type ExpectedResult } from "../../src/replay/expectations.js";
import { normaliseText } from "../../src/replay/normalise.js";
import { textMatches } from "../../src/replay/patterns.js";

const context = { workspaceRoots: ["/tmp/clio-replay-Ab12Cd"], temporaryFolder: "/tmp" };

describe("normalisers", () => {
  it("replace the workspace root before the temp folder that holds it", () => {
    expect(normaliseText("wrote /tmp/clio-replay-Ab12Cd/notes.txt", context)).toBe("wrote <workspace>/notes.txt");
    expect(normaliseText("outside the workspace /tmp/clio-replay-Ab12Cd.", context)).toBe("outside the workspace <workspace>.");
    expect(normaliseText("/tmp/clio-replay-Ab12Cd.old", context)).toBe("<tmp>");
    expect(normaliseText("see /tmp/clio-other-XyZ987/x.txt", context)).toBe("see <tmp>/x.txt");
  });

  it("replace the system temp folder wherever it is", () => {
    const folder = path.join(os.tmpdir(), "clio-abc123");
    expect(normaliseText(`cached in ${folder}/file`, { workspaceRoots: [] })).toBe("cached in <tmp>/file");
  });

  it("replace timestamps, written dates, clock times and durations", () => {
    expect(normaliseText("at 2026-11-22T02:48:20.123Z", context)).toBe("at <time>");
    expect(normaliseText(".clio/outputs/2026-11-22T02-48-20-123Z-4.txt", context)).toBe(".clio/outputs/<time>-4.txt");
    expect(normaliseText("Date: Sun Nov 22 02:48:20 2026 +0000", context)).toBe("Date: <time>");
    expect(normaliseText("on 2026-11-22 at 02:48:20", context)).toBe("on <date> at <clock>");
    expect(normaliseText("exit 0 after 12 ms, 1.5 s, 250ms, 3 seconds", context)).toBe("exit 0 after <duration>, <duration>, <duration>, <duration>");
    expect(normaliseText('  duration_ms: 1.054425\n# duration_ms 107.7\n"durationMs": 12', context)).toBe(
      '  duration_ms: <duration>\n# duration_ms <duration>\n"durationMs": <duration>',
    );
  });

  it("replace commit ids and process ids, but keep short numbers and words", () => {
    expect(normaliseText("[main 3f2a9c1] first commit", context)).toBe("[main <commit>] first commit");
    expect(normaliseText("commit 3f2a9c1e0b7d4a5f6e7d8c9b0a1f2e3d4c5b6a79", context)).toBe("commit <commit>");
    expect(normaliseText("started (pid 4242)", context)).toBe("started (pid <pid>)");
    expect(normaliseText("read 247 lines of notes.txt", context)).toBe("read 247 lines of notes.txt");
    expect(normaliseText("[main 1234567] all digits, score 1000006.015 and 12345678", context)).toBe("[main <commit>] all digits, score 1000006.015 and 12345678");
  });
});

function result(overrides: Partial<ExpectedResult> = {}): ExpectedResult {
  return { line: 1, column: 1, protocol: "NOTES", action: "get", ok: true, description: "Reading note a", output: ["hello"], ...overrides };
}

describe("expectation files", () => {
  it("round-trip through their text form", () => {
    const file = buildExpectationFile("notes.md", [result(), result({ ok: false, output: [], error: { code: "not_found", message: "No note b." } })]);
    expect(parseExpectationFile(serialiseExpectationFile(file), "notes.expected.json")).toEqual(file);
  });

  it("that are not JSON are refused naming the file", () => {
    expect(() => parseExpectationFile("{ not json", "x.expected.json")).toThrow(ExpectationFileError);
    expect(() => parseExpectationFile("{ not json", "x.expected.json")).toThrow(/x\.expected\.json is not valid JSON/);
  });

  it("that are not JSON name the line and column to fix", () => {
    expect(() => parseExpectationFile('{\n  "version": 1,\n  "script": "a.md",,\n}', "x.expected.json")).toThrow(/x\.expected\.json:3:20: invalid JSON/);
  });

  it("that are not an object say so, instead of naming a format version", () => {
    expect(() => parseExpectationFile("[1, 2]", "x.json")).toThrow(/x\.json is not an expectation file: it holds an array, not an object/);
  });

  it("from another format version are refused with the version named", () => {
    expect(() => parseExpectationFile('{"version": 2, "script": "a", "normalisers": [], "results": []}', "x.json")).toThrow(/format 2; this clio reads format 1/);
  });

  it("with a wrong field are refused naming the field", () => {
    const text = JSON.stringify({ version: 1, script: "a.md", normalisers: [], results: [{ ...result(), ok: "yes" }] });
    expect(() => parseExpectationFile(text, "x.json")).toThrow(/x\.json is not an expectation file: results\.0\.ok/);
  });
});

describe("comparing a run with its expectations", () => {
  it("finds nothing when they match", () => {
    expect(compareResults(buildExpectationFile("a.md", [result()]), "a.md", [result()])).toEqual([]);
  });

  it("names the field, the expected and the actual value, and diffs outputs", () => {
    const expected = buildExpectationFile("a.md", [result({ line: 3, column: 5, output: ["one", "two", "three"] })]);
    const differences = compareResults(expected, "a.md", [result({ line: 3, column: 5, ok: false, output: ["one", "2", "three"], error: { code: "not_found", message: "gone" } })]);
    const report = formatDifferences(differences, { script: "scripts/a.md", expectations: "a.expected.json" });
    expect(report).toContain("scripts/a.md:3:5 NOTES.get (command 1) differs from a.expected.json:");
    expect(report).toContain('ok: expected "true", got "false"');
    expect(report).toContain('error.code: expected "(none)", got "not_found"');
    expect(report).toContain("-two\n    +2");
  });

  it("reports a script that no longer matches: other commands, fewer or more of them, another file", () => {
    const expected = buildExpectationFile("a.md", [result({ command: "[NOTES:action=get:id=a]" }), result({ line: 2, command: "[NOTES:action=get:id=b]" })]);
    const shorter = compareResults(expected, "a.md", [result({ command: "[NOTES:action=get:id=a]" })]);
    expect(formatDifferences(shorter, { script: "a.md", expectations: "a.json" })).toContain(
      'a.json: recorded command 2, "[NOTES:action=get:id=b]" (NOTES.get, then at:2:1), is not in this run',
    );
    const other = compareResults(expected, "a.md", [result({ command: "[NOTES:action=get:id=a]" }), result({ line: 4, action: "set", command: "[NOTES:action=set:id=b]" })]);
    const report = formatDifferences(other, { script: "a.md", expectations: "a.json" });
    expect(report).toContain("a.md:4:1 NOTES.set (command 2) has no recorded result in a.json");
    expect(report).toContain("recorded command 2");
    const renamed = compareResults(expected, "b.md", [result(), result({ line: 2 })]);
    expect(formatDifferences(renamed, { script: "b.md", expectations: "a.json" })).toContain("a.json was recorded for the script a.md, not b.md");
  });

  it("leave out the output of a command marked ignoreOutput, and --update keeps the mark", () => {
    const marked = buildExpectationFile("a.md", [result({ output: ["machine-specific"], ignoreOutput: true })]);
    expect(compareResults(marked, "a.md", [result({ output: ["other machine"] })])).toEqual([]);
    expect(compareResults(marked, "a.md", [result({ ok: false, output: [] })])).toHaveLength(1);
    const rewritten = buildExpectationFile("a.md", [result({ output: ["new"] }), result({ line: 2 })], marked);
    expect(rewritten.results.map((entry) => entry.ignoreOutput)).toEqual([true, undefined]);
    const elsewhere = buildExpectationFile("a.md", [result({ line: 9 })], marked);
    expect(elsewhere.results[0]!.ignoreOutput).toBe(true);
    const other = buildExpectationFile("a.md", [result({ action: "set" })], marked);
    expect(other.results[0]!.ignoreOutput).toBeUndefined();
  });

  it("shows the first differences and counts the rest", () => {
    const expected = buildExpectationFile(
      "a.md",
      [1, 2, 3, 4, 5].map((line) => result({ line })),
    );
    const actual = [1, 2, 3, 4, 5].map((line) => result({ line, output: ["changed"] }));
    const report = formatDifferences(compareResults(expected, "a.md", actual), { script: "a.md", expectations: "a.json", limit: 2 });
    expect(report.match(/differs from/g)).toHaveLength(2);
    expect(report).toContain("… and 3 more difference(s) not shown (--show-all shows them).");
    expect(formatDifferences(compareResults(expected, "a.md", actual), { script: "a.md", expectations: "a.json", limit: Infinity }).match(/differs from/g)).toHaveLength(5);
  });

  it("writes a unified diff with hunk headers", () => {
    expect(unifiedDiff("a\nb\nc\n", "a\nx\nc\n")).toBe("--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c");
  });
});

describe("matching results to commands by order and content (issue 21, 2)", () => {
  const command = (id: string, overrides: Partial<ExpectedResult> = {}) => result({ command: `[NOTES:action=get:id=${id}]`, output: [`note ${id}`], ...overrides });

  it("ignores where commands stand: prose added above every command changes nothing", () => {
    const expected = buildExpectationFile(
      "a.md",
      ["a", "b", "c"].map((id, index) => command(id, { line: index + 1 })),
    );
    const shifted = ["a", "b", "c"].map((id, index) => command(id, { line: index + 10, column: 3 }));
    expect(compareResults(expected, "a.md", shifted)).toEqual([]);
  });

  it("reports a moved command once, as moved, and the others as matching", () => {
    const expected = buildExpectationFile(
      "a.md",
      ["a", "b", "c", "d", "e"].map((id, index) => command(id, { line: index + 1 })),
    );
    const actual = ["b", "c", "d", "e", "a"].map((id, index) => command(id, { line: index + 1 }));
    const differences = compareResults(expected, "a.md", actual);
    expect(differences).toHaveLength(1);
    expect(differences[0]).toMatchObject({ kind: "result", index: 4, movedFrom: 0, fields: [] });
    expect(formatDifferences(differences, { script: "a.md", expectations: "a.json" })).toBe("a.md:5:1 NOTES.get (command 5) moved: it was recorded as command 1.");
  });

  it("pairs the rest when one command is inserted in the middle", () => {
    const expected = buildExpectationFile(
      "a.md",
      ["a", "b", "c"].map((id) => command(id)),
    );
    const actual = ["a", "x", "b", "c"].map((id) => command(id));
    const differences = compareResults(expected, "a.md", actual);
    expect(differences).toEqual([{ kind: "unexpected", index: 1, actual: actual[1] }]);
  });

  it("shows two long one-line texts that differ late around their first difference, never as two equal cut strings", () => {
    const long = "x".repeat(200);
    const expected = buildExpectationFile("a.md", [command("a", { ok: false, output: [], error: { code: "e", message: `${long} one` } })]);
    const report = formatDifferences(compareResults(expected, "a.md", [command("a", { ok: false, output: [], error: { code: "e", message: `${long} two` } })]), {
      script: "a.md",
      expectations: "a.json",
    });
    expect(report).toContain("error.message differs from character 202:");
    expect(report).toMatch(/expected …"x+ one"/);
    expect(report).toMatch(/got +…"x+ two"/);
  });

  it("matches by protocol and action alone when a file recorded no command text", () => {
    const expected = buildExpectationFile("a.md", [result(), result({ action: "set" })]);
    expect(compareResults(expected, "a.md", [command("a", { output: ["hello"] }), command("b", { action: "set", output: ["hello"] })])).toEqual([]);
  });
});

describe("expectations that say what varies (issue 21, 3)", () => {
  it("[..] matches any text up to the next literal part, and a line ... any number of lines", () => {
    expect(textMatches("Wrote [..] bytes in [..]", "Wrote 12 bytes in 3 ms")).toBe(true);
    expect(textMatches("Wrote [..] bytes", "Wrote 12 bytes\nmore")).toBe(false);
    expect(textMatches("a\n...\nz", "a\nb\nc\nz")).toBe(true);
    expect(textMatches("a\n...\nz", "a\nz")).toBe(true);
    expect(textMatches("a\n...\nz", "a\nb")).toBe(false);
    expect(textMatches("...\n[..]end", "x\ny\nthe end")).toBe(true);
    expect(textMatches("a [..] c", "a b d")).toBe(false);
    const expected = buildExpectationFile("a.md", [result({ description: "Ran in [..]", output: ["header", "...", "footer [..]"] })]);
    expect(compareResults(expected, "a.md", [result({ description: "Ran in 5 ms here", output: ["header", "1", "2", "footer 9"] })])).toEqual([]);
    expect(compareResults(expected, "a.md", [result({ description: "Ran in 5 ms", output: ["header", "1"] })])).toHaveLength(1);
  });

  it("--update keeps hand-written wildcards that still match, and rewrites those that do not", () => {
    const previous = buildExpectationFile("a.md", [result({ description: "Ran in [..]", output: ["header", "..."] })]);
    const kept = buildExpectationFile("a.md", [result({ description: "Ran in 2 s", output: ["header", "x"] })], previous);
    expect(kept.results[0]).toMatchObject({ description: "Ran in [..]", output: ["header", "..."] });
    const rewritten = buildExpectationFile("a.md", [result({ description: "Failed", output: ["other"] })], previous);
    expect(rewritten.results[0]).toMatchObject({ description: "Failed", output: ["other"] });
  });

  it("applies the file's redactions, and refuses one that does not compile or matches everything", () => {
    const file = (redactions: unknown) => JSON.stringify({ version: 1, script: "a.md", normalisers: ["workspace"], redactions, results: [] });
    const parsed = parseExpectationFile(file([{ pattern: "build-\\d+", placeholder: "<build>" }]), "x.json");
    expect(normaliseText("made build-1234 at 2026-11-22", { workspaceRoots: [], ...normalisingOf(parsed, "x.json") })).toBe("made <build> at 2026-11-22");
    expect(() => parseExpectationFile(file([{ pattern: "build-(\\d+", placeholder: "<b>" }]), "x.json")).toThrow(
      /x\.json: redactions\.0\.pattern "build-\(\\\\d\+" is not a valid regular expression/,
    );
    expect(() => parseExpectationFile(file([{ pattern: ".*", placeholder: "<b>" }]), "x.json")).toThrow(/matches the empty text, so it would redact everywhere/);
  });

  it("selects normalisers by name; an unknown name or a wildcard key is an error", () => {
    const text = (normalisers: string[], extra: Record<string, unknown> = {}) => JSON.stringify({ version: 1, script: "a.md", normalisers, results: [{ ...result(), ...extra }] });
    expect(() => parseExpectationFile(text(["workspace", "uuids"]), "x.json")).toThrow(/x\.json: unknown normaliser\(s\) "uuids"\. Known: workspace, temp, uuid,/);
    expect(() => parseExpectationFile(text(["workspace"], { "[..]": "x" }), "x.json")).toThrow(
      /x\.json is not an expectation file: results\.0: Unrecognized key\(s\) in object: '\[\.\.\]'/,
    );
    expect(normaliseText("at 2026-11-22 in pid 12", { workspaceRoots: [], names: ["pid"] })).toBe("at 2026-11-22 in pid <pid>");
  });

  it("tightened normalisers: UUIDs, ports and epoch seconds, but never a plain word", () => {
    expect(normaliseText("id 123e4567-e89b-12d3-a456-426614174000 done", context)).toBe("id <uuid> done");
    expect(normaliseText("listening on http://127.0.0.1:43121/ and [::1]:5000, port 8080", context)).toBe("listening on http://127.0.0.1:<port>/ and [::1]:<port>, port <port>");
    expect(normaliseText("created 1764081234, updatedAt 1764081234567;", context)).toBe("created <epoch>, updatedAt <epoch>;");
    expect(normaliseText("the page was defaced; a facade, deadbeef, cafebabe", context)).toBe("the page was defaced; a facade, deadbeef, cafebabe");
    expect(normaliseText("size 123456789 and 42", context)).toBe("size 123456789 and 42");
  });
});

describe("review (issue 21, 6)", () => {
  it("takes accepted changes, keeps skipped ones, records new commands and drops gone ones only when accepted", async () => {
    const { applyReview, reviewItems } = await import("../../src/replay/review.js");
    const { compareFields } = await import("../../src/replay/compare.js");
    const command = (id: string, output: string) => result({ command: `[NOTES:action=get:id=${id}]`, output: [output] });
    const file = buildExpectationFile("a.md", [command("a", "old a"), command("b", "b"), command("gone", "g")]);
    const actual = [command("a", "new a"), command("b", "b"), command("new", "n")];
    const items = reviewItems(file, actual, (expected, got) => compareFields(expected, got).length > 0);
    expect(items.map((item) => [item.expected?.command ?? null, item.actual?.command ?? null])).toEqual([
      ["[NOTES:action=get:id=a]", "[NOTES:action=get:id=a]"],
      [null, "[NOTES:action=get:id=new]"],
      ["[NOTES:action=get:id=gone]", null],
    ]);
    const some = applyReview(file, actual, new Set([items[0]!.position]));
    expect(some.results.map((entry) => entry.output[0])).toEqual(["new a", "b", "g"]);
    const all = applyReview(file, actual, new Set(items.map((item) => item.position)));
    expect(all.results.map((entry) => entry.output[0])).toEqual(["new a", "b", "n"]);
  });
});
