/** Forking a session (its records and undo checkpoints under a new id), and which session --continue picks. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Session, SessionStore } from "../../src/sessions/index.js";
import { headerLine } from "../../src/sessions/journal.js";
import { makeTempDir, rejection } from "./helpers.js";

let directory: string;
let clock: number;
const opened: Session[] = [];

function makeStore(): SessionStore {
  return new SessionStore(directory, { now: () => clock });
}

async function track(session: Promise<Session>): Promise<Session> {
  const result = await session;
  opened.push(result);
  return result;
}

beforeEach(async () => {
  directory = path.join(await makeTempDir("fork"), "sessions");
  clock = Date.UTC(2026, 10, 22, 2, 43, 10);
});

afterEach(async () => {
  for (const session of opened.splice(0)) await session.close();
  await fs.rm(path.dirname(directory), { recursive: true, force: true });
});

describe("forking a session", () => {
  it("copies its records and checkpoints under a new id; the original stays byte for byte as it was", async () => {
    const store = makeStore();
    const original = await track(store.create({ workspace: "/work/project", provider: "custom", model: "m", mode: "chat" }));
    await original.appendMessage({ role: "user", content: "write the notes", turn: 1 });
    await original.appendMessage({ role: "assistant", content: "Written.", turn: 1 });
    await original.appendCommand({ protocol: "FILE_OP", action: "write", args: { path: "notes.md" }, ok: true, output: "Wrote notes.md", durationMs: 3, turn: 1 });
    const checkpoints = path.join(directory, `${original.id}.checkpoints`);
    await fs.mkdir(path.join(checkpoints, "blobs"), { recursive: true });
    await fs.writeFile(path.join(checkpoints, "index.json"), '{"version":1,"checkpoints":[]}\n');
    await fs.writeFile(path.join(checkpoints, "blobs", "a".repeat(64)), "old text");
    const before = await fs.readFile(original.file, "utf8");

    clock += 60_000;
    // The original is open (locked) in this very process: forking only reads it.
    const copy = await track(store.fork(original.id.slice(0, 15)));
    expect(copy.id).not.toBe(original.id);
    expect(copy.data.mode).toBe("chat");
    expect(copy.data.messages.map((message) => message.content)).toEqual(["write the notes", "Written."]);
    expect(copy.data.commands.map((command) => command.output)).toEqual(["Wrote notes.md"]);
    expect(copy.data.events.at(-1)).toMatchObject({ type: "session-forked", data: { from: original.id } });
    expect(copy.data.createdAt).toBe(new Date(clock).toISOString());
    expect(await fs.readFile(path.join(directory, `${copy.id}.checkpoints`, "blobs", "a".repeat(64)), "utf8")).toBe("old text");

    await copy.appendMessage({ role: "user", content: "only in the copy", turn: 2 });
    expect(await fs.readFile(original.file, "utf8")).toBe(before);
    const reread = await store.read(copy.id);
    expect(reread.messages.at(-1)!.content).toBe("only in the copy");
    expect(reread.events.at(-1)!.sequence).toBeGreaterThan(reread.commands.at(-1)!.sequence);
  });

  it("names a session that does not exist and makes nothing", async () => {
    const store = makeStore();
    const error = await rejection(store.fork("20990101"));
    expect(error.code).toBe("not_found");
    expect(await fs.readdir(directory).catch(() => [])).toEqual([]);
  });
});

describe("which session --continue picks", () => {
  it("in a chat the latest chat, even when a -p run came later; the latest of any kind otherwise", async () => {
    const store = makeStore();
    const chat = await track(store.create({ workspace: "/work/project", provider: "custom", model: "m", mode: "chat" }));
    await chat.appendMessage({ role: "user", content: "a chat", turn: 1 });
    clock += 60_000;
    const print = await track(store.create({ workspace: "/work/project", provider: "custom", model: "m", mode: "print" }));
    await print.appendMessage({ role: "user", content: "a script step", turn: 1 });
    expect((await store.latest("/work/project", "chat"))?.id).toBe(chat.id);
    expect((await store.latest("/work/project"))?.id).toBe(print.id);
    expect((await store.latest("/work/project", "chat"))?.mode).toBe("chat");
  });

  it("counts a session from before the kind was recorded as a chat, and falls back to a -p run when there is no chat", async () => {
    const store = makeStore();
    const print = await track(store.create({ workspace: "/work/project", provider: "custom", model: "m", mode: "print" }));
    expect((await store.latest("/work/project", "chat"))?.id).toBe(print.id);
    clock -= 3_600_000;
    const oldId = "20261122-0100-0a0a0a";
    const header = headerLine({ id: oldId, createdAt: new Date(clock).toISOString(), workspace: "/work/project", provider: "custom", model: "m" });
    await fs.writeFile(path.join(directory, `${oldId}.jsonl`), header);
    expect((await store.latest("/work/project", "chat"))?.id).toBe(oldId);
  });
});
