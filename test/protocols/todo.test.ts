import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { todoProtocol } from "../../protocols/todo.js";
import { createRuntime } from "../../src/runtime.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { Workspace } from "../../tools/workspace.js";
import type { TodoStore } from "../../tools/todo/store.js";
import { environmentFor, invoke } from "./invoke.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
let state: TodoStore;
let call: (action: string, raw: Record<string, string>) => ReturnType<typeof invoke>;
const todoFile = () => path.join(folder.path, ".clio", "todo.json");

beforeEach(async () => {
  folder = await temporaryFolder("clio-todo-");
  const environment = environmentFor(await Workspace.open(folder.path));
  state = (await todoProtocol.setup!(environment)) as TodoStore;
  call = (action, raw) => invoke(todoProtocol, action, raw, { environment, state });
});
afterEach(() => folder.remove());

describe("TODO protocol", () => {
  it("asks no permission (it changes only clio's own list), and runs changes alone and in order", () => {
    expect(Object.fromEntries(Object.entries(todoProtocol.actions).map(([name, action]) => [name, [action.permission, action.exclusive === true]]))).toEqual({
      read: ["read", false],
      write: ["read", true],
      add: ["read", true],
      update: ["read", true],
    });
  });

  it("writes, adds, updates and reads a checklist, stored in .clio/todo.json", async () => {
    expect((await call("read", {})).output).toBe("Todo list:\n(the todo list is empty)\n(0 done, 0 in progress, 0 pending)");
    const written = await call("write", { items: '["Read the parser", {"text": "Fix the bug", "status": "in_progress"}]' });
    expect(written.display).toEqual(["[ ] 1. Read the parser", "[~] 2. Fix the bug"]);
    await call("add", { text: "Run the tests" });
    const updated = await call("update", { id: "1", status: "done" });
    expect(updated.output).toBe("Item 1 is now done:\n[x] 1. Read the parser\n[~] 2. Fix the bug\n[ ] 3. Run the tests\n(1 done, 1 in progress, 1 pending)");
    await call("update", { id: "3", status: "pending", text: "Run npm test" });
    const stored = JSON.parse(await readFile(todoFile(), "utf8"));
    expect(stored).toEqual({
      version: 1,
      nextId: 4,
      items: [
        { id: 1, text: "Read the parser", status: "done" },
        { id: 2, text: "Fix the bug", status: "in_progress" },
        { id: 3, text: "Run npm test", status: "pending" },
      ],
    });
    expect(await todoProtocol.promptContext!(state, "", 100)).toEqual(["Todo list (TODO action=read): [x] 1. Read the parser; [~] 2. Fix the bug; [ ] 3. Run npm test"]);
  });

  it("refuses an unknown id, a bad status and a list that is not a list, changing nothing", async () => {
    await call("add", { text: "one" });
    const before = await readFile(todoFile(), "utf8");
    await expect(call("update", { id: "7", status: "done" })).rejects.toMatchObject({ code: "not_found", hint: expect.stringContaining("Its ids are 1") });
    await expect(call("update", { id: "1", status: "finished" })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(call("update", { id: "one", status: "done" })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("whole number") });
    await expect(call("write", { items: '{"text": "x"}' })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(call("write", { items: '[""]' })).rejects.toMatchObject({ code: "invalid_argument" });
    expect(await readFile(todoFile(), "utf8")).toBe(before);
  });

  it("names a corrupt file, never overwrites it by an add, and keeps it aside when the list is written anew", async () => {
    await mkdir(path.dirname(todoFile()), { recursive: true });
    await writeFile(todoFile(), "{ not json");
    await expect(call("read", {})).rejects.toMatchObject({ code: "corrupt_file", message: expect.stringContaining(todoFile()) });
    await expect(call("add", { text: "x" })).rejects.toMatchObject({ code: "corrupt_file" });
    expect(await readFile(todoFile(), "utf8")).toBe("{ not json");
    const written = await call("write", { items: '["fresh"]' });
    expect(written.output).toMatch(/kept as .*todo\.json\.corrupt-\d+/);
    const aside = (await readdir(path.dirname(todoFile()))).filter((name) => name.startsWith("todo.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(await readFile(path.join(path.dirname(todoFile()), aside[0]!), "utf8")).toBe("{ not json");
  });

  it("loses no item when two processes add at once", async () => {
    const script = `
      import { TodoStore } from ${JSON.stringify(path.resolve("tools/todo/store.ts"))};
      const store = new TodoStore(process.argv[1]);
      for (let index = 0; index < 15; index++) await store.add(process.argv[2] + "-" + index);
    `;
    const run = (label: string) =>
      new Promise<number>((resolve) =>
        spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, folder.path, label], { stdio: "ignore" }).on("exit", (code) => resolve(code ?? -1)),
      );
    expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
    const list = await state.read();
    expect(list.items).toHaveLength(30);
    expect(new Set(list.items.map((item) => item.id)).size).toBe(30);
  });

  it("requires the integer id through the manager, which says how to add it; works in plan mode", async () => {
    const runtime = await createRuntime({ workspace: folder.path, permissionMode: "plan", registry: new ProtocolRegistry([todoProtocol]), env: {} });
    const [missing, added, updated] = await runtime.manager.runAll(
      scriptSubmissions('[TODO:action=update:status=done] [TODO:action=add:text="Ship it"] [TODO:action=update:id=1:status=done]').submissions,
    );
    expect(missing).toMatchObject({ ok: false, error: { code: "missing_parameter", hint: "Add :id=… to the command." } });
    expect(added).toMatchObject({ ok: true, display: ["[ ] 1. Ship it"] });
    expect(updated).toMatchObject({ ok: true, display: ["[x] 1. Ship it"] });
    await runtime.manager.dispose();
  });
});
