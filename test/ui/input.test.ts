/** Input handling: bracketed pastes arrive whole, @ attaches files or says why it cannot. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { attachMentionedFiles } from "../../src/agent/attachments.js";
import { chatCompleter } from "../../src/ui/completion.js";
import { PasteCollector } from "../../src/ui/paste.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

async function through(chunks: string[]): Promise<{ text: string; collector: PasteCollector }> {
  const collector = new PasteCollector();
  let text = "";
  collector.on("data", (data: Buffer) => (text += data.toString()));
  for (const chunk of chunks) collector.write(chunk);
  await new Promise((resolve) => setImmediate(resolve));
  return { text, collector };
}

describe("bracketed paste", () => {
  it("turns a multi-line paste into one placeholder, even with its markers split across chunks", async () => {
    const { text, collector } = await through(["ask \x1b[2", "00~one\r\ntwo\rthree\x1b[20", "1~ please"]);
    expect(text).toBe("ask [Pasted text #1, 3 lines] please");
    expect(collector.expand(text)).toBe("ask one\ntwo\nthree please");
  });

  it("types a short one-line paste in as it is, and keeps a 1 MB paste whole without passing it to readline", async () => {
    expect((await through(["\x1b[200~short\x1b[201~"])).text).toBe("short");
    const big = "x".repeat(1024 * 1024);
    const { text, collector } = await through(["\x1b[200~", big.slice(0, 500_000), big.slice(500_000), "\x1b[201~"]);
    expect(text).toBe("[Pasted text #1, 1,048,576 characters]");
    expect(collector.expand(text)).toBe(big);
    expect(collector.expand("[Pasted text #9, 2 lines]")).toBe("[Pasted text #9, 2 lines]");
  });
});

describe("@ attachments", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let workspace: Workspace;
  beforeEach(async () => {
    folder = await temporaryFolder();
    workspace = await Workspace.open(folder.path);
    await mkdir(path.join(folder.path, "src"));
    await writeFile(path.join(folder.path, "src", "a.ts"), "one\ntwo\nthree\n");
    await writeFile(path.join(folder.path, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]));
  });
  afterEach(async () => {
    await folder.remove();
  });

  it("attaches a whole file and a line range; leaves e-mail addresses alone", async () => {
    const result = await attachMentionedFiles("compare @src/a.ts with @src/a.ts:2-3, mail me@example.com", workspace);
    expect(result).toEqual({
      prompt:
        'compare @src/a.ts with @src/a.ts:2-3, mail me@example.com\n\n<attached file="src/a.ts">\none\ntwo\nthree\n</attached>\n\n<attached file="src/a.ts" lines="2-3">\ntwo\nthree\n</attached>',
      attached: ["src/a.ts", "src/a.ts:2-3"],
    });
  });

  it("names a missing file, a folder, a binary file, a range past the end and a path outside", async () => {
    const error = async (text: string) => ((await attachMentionedFiles(text, workspace)) as { error: string }).error;
    expect(await error("@nope.ts")).toContain("no such file");
    expect(await error("@src")).toContain("is a folder");
    expect(await error("@logo.png")).toContain("looks binary");
    expect(await error("@src/a.ts:10-20")).toContain("has 4 lines");
    expect(await error("@../outside.txt")).toMatch(/outside|workspace/);
  });

  it("completes paths after @ and slash commands with Tab", () => {
    const complete = chatCompleter(folder.path, ["/undo", "/rewind"]);
    expect(complete("look at @sr")).toEqual([["@src/"], "@sr"]);
    expect(complete("look at @src/")).toEqual([["@src/a.ts"], "@src/"]);
    expect(complete("/un")).toEqual([["/undo"], "/un"]);
    expect(complete("@../../")[0]).toEqual([]);
  });
});
