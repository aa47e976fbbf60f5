/** What a permission question shows: the diff of the files a change touches, the whole command line, the address. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import type { PermissionRequest } from "../../src/manager/permissions.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime } from "../../src/runtime.js";
import { permissionPreview, permissionQuestion } from "../../src/ui/prompt.js";
import { temporaryFolder } from "../support/workspace.js";

const plain = new Chalk({ level: 0 });
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

/** Runs `text` in ask mode, answering no to every question; returns the questions and results. */
async function ask(text: string) {
  const asked: PermissionRequest[] = [];
  const runtime = await createRuntime({
    workspace: folder.path,
    permissionMode: "ask",
    asker: async (request) => {
      asked.push(request);
      return "no";
    },
  });
  const results = await runtime.manager.runAll(scriptSubmissions(text).submissions);
  await runtime.manager.dispose();
  return { asked, results };
}

describe("the question before a change", () => {
  it("shows exactly what a replace changes, as a unified diff", async () => {
    await writeFile(path.join(folder.path, "a.txt"), "one\ntwo\nthree\n");
    const { asked } = await ask('[FILE_OP:action=replace:path="a.txt":old="two":new="TWO"]');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.changes).toEqual([{ path: "a.txt", before: "one\ntwo\nthree\n", after: "one\nTWO\nthree\n" }]);
    const shown = permissionPreview(asked[0]!, plain).text;
    expect(shown).toContain("@@ -1,3 +1,3 @@");
    expect(shown).toMatch(/^ {2}-two$/m);
    expect(shown).toMatch(/^ {2}\+TWO$/m);
    expect(await readFile(path.join(folder.path, "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("does not ask about a replace that cannot work, and says why", async () => {
    await writeFile(path.join(folder.path, "a.txt"), "one\n");
    const { asked, results } = await ask('[FILE_OP:action=replace:path="a.txt":old="absent":new="x"]');
    expect(asked).toHaveLength(0);
    expect(results[0]!.error?.code).toBe("no_match");
  });

  it("lists every file a folder delete or a move would remove or overwrite", async () => {
    await mkdir(path.join(folder.path, "dir/sub"), { recursive: true });
    await writeFile(path.join(folder.path, "dir/x.txt"), "x\n");
    await writeFile(path.join(folder.path, "dir/sub/y.txt"), "y\n");
    await writeFile(path.join(folder.path, "old.txt"), "old\n");
    await writeFile(path.join(folder.path, "new.txt"), "new\n");
    const { asked } = await ask('[FILE_OP:action=delete:path="dir":recursive=true]\n[FILE_OP:action=move:path="old.txt":to="new.txt":overwrite=true]');
    expect(asked[0]!.changes).toEqual([
      { path: "dir/sub/y.txt", before: "y\n", after: null },
      { path: "dir/x.txt", before: "x\n", after: null },
    ]);
    expect(asked[1]!.changes).toEqual([
      { path: "old.txt", before: "old\n", after: null },
      { path: "new.txt", before: "new\n", after: "old\n" },
    ]);
    expect(permissionPreview(asked[1]!, plain).text).toContain("old.txt (deleted)");
  });

  it("cuts a 50,000-line diff to a screenful, with the count and the key that shows it all", async () => {
    const content = Array.from({ length: 50_000 }, (_, index) => `row ${index}`).join("\n");
    const { asked } = await ask(`[FILE_OP:action=write:path="big.txt":content<<EOF\n${content}\nEOF\n]`);
    const preview = permissionPreview(asked[0]!, plain);
    expect(preview.text.split("\n").length).toBeLessThan(70);
    expect(preview.hidden).toBeGreaterThan(49_900);
    expect(preview.text).toContain(`${preview.hidden.toLocaleString("en-US")} more lines of diff`);
    expect(permissionQuestion(asked[0]!, plain, preview.hidden)).toContain("[d]iff in full");
    const whole = permissionPreview(asked[0]!, plain, Number.POSITIVE_INFINITY);
    expect(whole.hidden).toBe(0);
    expect(whole.text).toContain("+row 49999");
  });

  it("names a binary file without printing it", async () => {
    await writeFile(path.join(folder.path, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    const { asked } = await ask('[FILE_OP:action=delete:path="image.png"]');
    expect(permissionPreview(asked[0]!, plain).text).toContain("image.png (binary: its content is not shown)");
  });

  it("shows the whole command line of a command and the address of a request", async () => {
    const command = `printf '%s\\n' ${"x".repeat(300)} && echo done`;
    const { asked } = await ask(`[EXEC:action=run:command=${JSON.stringify(command)}]\n[WEB:action=fetch:url="http://127.0.0.1:9/a/very/long/path?query=1"]`);
    expect(permissionPreview(asked[0]!, plain).text).toContain(`$ ${command}`);
    expect(permissionPreview(asked[1]!, plain).text).toContain("→ http://127.0.0.1:9/a/very/long/path?query=1");
  });
});
