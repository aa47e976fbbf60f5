/** A write or replace of a file that changed on disk since the model last read it fails and asks for a fresh read. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PermissionRequest } from "../../src/manager/permissions.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
let asked: PermissionRequest[];
beforeEach(async () => {
  folder = await temporaryFolder();
  asked = [];
  runtime = await createRuntime({
    workspace: folder.path,
    permissionMode: "ask",
    asker: async (request) => {
      asked.push(request);
      return "yes";
    },
  });
});
afterEach(async () => {
  await runtime.manager.dispose();
  await folder.remove();
});

const run = async (text: string) => (await runtime.manager.runAll(scriptSubmissions(text).submissions))[0]!;
const file = (name: string) => path.join(folder.path, name);

describe("stale files", () => {
  it("refuses to write a file the person changed after the model read it, without asking; a fresh read lets it through", async () => {
    await writeFile(file("a.txt"), "one\n");
    expect((await run('[FILE_OP:action=read:path="a.txt"]')).ok).toBe(true);
    await writeFile(file("a.txt"), "one, edited by the person\n");
    const refused = await run('[FILE_OP:action=write:path="a.txt":content="model text\\n"]');
    expect(refused.error?.code).toBe("stale_file");
    expect(refused.error?.message).toContain("changed on disk since you last read it");
    expect(refused.error?.hint).toContain('[FILE_OP:action=read:path="a.txt"]');
    expect(asked).toHaveLength(0);
    expect(await readFile(file("a.txt"), "utf8")).toBe("one, edited by the person\n");

    expect((await run('[FILE_OP:action=read:path="a.txt"]')).ok).toBe(true);
    expect((await run('[FILE_OP:action=replace:path="a.txt":old="edited":new="changed"]')).ok).toBe(true);
    expect(await readFile(file("a.txt"), "utf8")).toBe("one, changed by the person\n");
  });

  it("notices a change that keeps the size, and one after the model's own write", async () => {
    await writeFile(file("b.txt"), "abc\n");
    expect((await run('[FILE_OP:action=write:path="b.txt":content="xyz\\n"]')).ok).toBe(true);
    await writeFile(file("b.txt"), "XYZ\n");
    await utimes(file("b.txt"), new Date(), new Date(Date.now() + 5000));
    expect((await run('[FILE_OP:action=replace:path="b.txt":old="XYZ":new="q"]')).error?.code).toBe("stale_file");
  });

  it("says so when the file was deleted since, and lets a file the model never read be written", async () => {
    await writeFile(file("c.txt"), "c\n");
    await run('[FILE_OP:action=read:path="c.txt"]');
    await import("node:fs/promises").then(({ rm }) => rm(file("c.txt")));
    expect((await run('[FILE_OP:action=write:path="c.txt":content="again"]')).error?.message).toContain("was deleted since you last read it");
    expect((await run('[FILE_OP:action=write:path="c.txt":content="again"]')).ok).toBe(true);
    await writeFile(file("d.txt"), "d\n");
    expect((await run('[FILE_OP:action=write:path="d.txt":content="new"]')).ok).toBe(true);
  });
});
