import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Session, SessionStore, makeSessionId } from "../../src/sessions/index.js";
import { readJournal } from "../../src/sessions/journal.js";
import { makeTempDir, rejection } from "./helpers.js";

let directory: string;
let clock: number;
let suffixes: string[];
const opened: Session[] = [];

function makeStore(options: ConstructorParameters<typeof SessionStore>[1] = {}): SessionStore {
  return new SessionStore(directory, {
    now: () => clock,
    randomSuffix: () => suffixes.shift() ?? "ffffff",
    ...options,
  });
}

async function track(session: Promise<Session>): Promise<Session> {
  const result = await session;
  opened.push(result);
  return result;
}

/** The session as the file on disk holds it now. */
async function readStored(session: Session): Promise<Record<string, any>> {
  const read = readJournal(await fs.readFile(session.file));
  if (!read.ok || read.wholeLength !== undefined) throw new Error(`not a whole journal: ${JSON.stringify(read)}`);
  return read.data;
}

beforeEach(async () => {
  directory = path.join(await makeTempDir("sessions"), "sessions");
  clock = Date.UTC(2026, 10, 22, 2, 43, 10);
  suffixes = ["a1b2c3", "a1b2c4", "0b0b0b", "0c0c0c"];
});

afterEach(async () => {
  for (const session of opened.splice(0)) await session.close();
  await fs.rm(path.dirname(directory), { recursive: true, force: true });
});

describe("ids", () => {
  it("are the UTC date and minute followed by six hex digits", () => {
    expect(makeSessionId(Date.UTC(2026, 10, 22, 2, 43, 59), "a1b2c3")).toBe("20261122-0243-a1b2c3");
  });

  it("draw a new random part when the id is taken", async () => {
    suffixes = ["a1b2c3", "a1b2c3", "0d0d0d"];
    const first = await track(makeStore().create({ workspace: "/w", provider: "p", model: "m" }));
    const second = await track(makeStore().create({ workspace: "/w", provider: "p", model: "m" }));
    expect(first.id).toBe("20261122-0243-a1b2c3");
    expect(second.id).toBe("20261122-0243-0d0d0d");
  });
});

describe("create and record", () => {
  it("saves a new session at once, with its workspace, provider and model", async () => {
    const session = await track(makeStore().create({ workspace: "/work/app", provider: "openai", model: "gpt-x" }));
    expect(session.file).toBe(path.join(directory, "20261122-0243-a1b2c3.jsonl"));
    expect(await readStored(session)).toMatchObject({
      version: 2,
      id: "20261122-0243-a1b2c3",
      createdAt: "2026-11-22T02:43:10.000Z",
      workspace: "/work/app",
      provider: "openai",
      model: "gpt-x",
      title: "",
      messages: [],
    });
  });

  it("persists each message, command, usage and event before the call returns", async () => {
    const session = await track(makeStore().create({ workspace: "/w", provider: "p", model: "m" }));
    clock += 1000;
    await session.appendMessage({ role: "user", content: "  Fix the\n failing   test  ", turn: 1 });
    expect((await readStored(session)).messages).toEqual([{ sequence: 1, role: "user", content: "  Fix the\n failing   test  ", timestamp: "2026-11-22T02:43:11.000Z", turn: 1 }]);
    expect((await readStored(session)).title).toBe("Fix the failing test");

    await session.appendCommand({
      protocol: "FILE_OP",
      action: "read",
      args: { path: "src/main.c", limit: 20, payload: Buffer.from("hi"), skipped: undefined },
      description: "Reading src/main.c",
      ok: false,
      output: "",
      error: { code: "not_found", message: "src/main.c does not exist", hint: "List the folder first." },
      durationMs: 4,
      turn: 1,
    });
    expect((await readStored(session)).commands[0]).toEqual({
      sequence: 2,
      protocol: "FILE_OP",
      action: "read",
      args: { path: "src/main.c", limit: 20, payload: { base64: "aGk=" } },
      description: "Reading src/main.c",
      ok: false,
      output: "",
      error: { code: "not_found", message: "src/main.c does not exist", hint: "List the folder first." },
      durationMs: 4,
      turn: 1,
      timestamp: "2026-11-22T02:43:11.000Z",
    });

    expect(await session.addUsage({ turn: 1, inputTokens: 100, outputTokens: 20 })).toEqual({ inputTokens: 100, outputTokens: 20, estimated: false });
    expect(await session.addUsage({ turn: 1, inputTokens: 5, outputTokens: 1, estimated: true })).toEqual({ inputTokens: 105, outputTokens: 21, estimated: true });
    await session.addUsage({ turn: 2, inputTokens: 50, outputTokens: 10 });
    expect((await readStored(session)).usage).toEqual({
      turns: [
        { turn: 1, inputTokens: 105, outputTokens: 21, estimated: true },
        { turn: 2, inputTokens: 50, outputTokens: 10, estimated: false },
      ],
      totals: { inputTokens: 155, outputTokens: 31, estimated: true },
    });

    clock += 5000;
    await session.addEvent({ type: "turn-cancelled", turn: 2, data: { reason: "ctrl-c" } });
    const stored = await readStored(session);
    expect(stored.events).toEqual([{ sequence: 3, type: "turn-cancelled", timestamp: "2026-11-22T02:43:16.000Z", turn: 2, data: { reason: "ctrl-c" } }]);
    expect(stored.updatedAt).toBe("2026-11-22T02:43:16.000Z");
    expect(session.lastTurn).toBe(2);
  });

  it("keeps the first user prompt as the title, on one line and at most 80 characters", async () => {
    const session = await track(makeStore().create({ workspace: "/w", provider: "p", model: "m" }));
    await session.appendMessage({ role: "system", content: "You are clio.", turn: 1 });
    await session.appendMessage({ role: "user", content: `Refactor ${"the parser ".repeat(20)}`, turn: 1 });
    await session.appendMessage({ role: "user", content: "second prompt", turn: 2 });
    expect(session.title.length).toBeLessThanOrEqual(80);
    expect(session.title.length).toBeGreaterThan(70);
    expect(session.title).toMatch(/^Refactor the parser the parser .*\S…$/);
  });

  it("shortens long command output in the middle and records the original length", async () => {
    const session = await track(makeStore({ maxOutputChars: 200 }).create({ workspace: "/w", provider: "p", model: "m" }));
    const output = `${"a".repeat(500)}${"z".repeat(500)}`;
    const record = await session.appendCommand({ protocol: "EXEC", action: "run", ok: true, output, durationMs: 1, turn: 1 });
    expect(record.outputLength).toBe(1000);
    expect(record.output.length).toBeLessThanOrEqual(200);
    expect(record.output).toMatch(/^a{70}\n… \[860 characters not kept in the session\] …\nz{70}$/);
  });

  it("records a model change as an event", async () => {
    const session = await track(makeStore().create({ workspace: "/w", provider: "p", model: "m" }));
    await session.setModel("ollama", "qwen");
    const stored = await readStored(session);
    expect(stored).toMatchObject({ provider: "ollama", model: "qwen" });
    expect(stored.events[0]).toMatchObject({ type: "model-changed", data: { from: { provider: "p", model: "m" }, to: { provider: "ollama", model: "qwen" } } });
  });

  it("refuses to record into a closed session", async () => {
    const session = await makeStore().create({ workspace: "/w", provider: "p", model: "m" });
    await session.close();
    await session.close();
    const error = await rejection(session.appendMessage({ role: "user", content: "late", turn: 1 }));
    expect(error.message).toContain("is closed");
  });
});

describe("open, list, latest, delete", () => {
  async function makeThree(): Promise<string[]> {
    const store = makeStore();
    const ids: string[] = [];
    for (const [workspace, prompt] of [
      ["/one", "first"],
      ["/two", "second"],
      ["/one", "third"],
    ] as const) {
      const session = await store.create({ workspace, provider: "p", model: "m" });
      await session.appendMessage({ role: "user", content: prompt, turn: 1 });
      await session.close();
      ids.push(session.id);
      clock += 60_000;
    }
    return ids;
  }

  it("opens by full id or unique prefix and continues where it left off", async () => {
    const [first] = await makeThree();
    const session = await track(makeStore().open("20261122-0243"));
    expect(session.id).toBe(first);
    expect(session.data.messages).toHaveLength(1);
    expect(session.lastTurn).toBe(1);
    await session.appendMessage({ role: "assistant", content: "again", turn: 2 });
    expect((await readStored(session)).messages.map((message: { sequence: number }) => message.sequence)).toEqual([1, 2]);
  });

  it("says how to see the ids when nothing matches", async () => {
    await makeThree();
    const error = await rejection(makeStore().open("1999"));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe(`No session matches "1999" in ${directory}.`);
    expect(error.hint).toContain('Run "clio sessions"');
  });

  it("lists the matches when a prefix matches several", async () => {
    const ids = await makeThree();
    const error = await rejection(makeStore().open("2026"));
    expect(error.code).toBe("ambiguous_match");
    expect(error.message).toBe(`"2026" matches 3 sessions: ${ids.join(", ")}.`);
  });

  it("lists newest first, with title, update time, model and message count, optionally by workspace", async () => {
    const ids = await makeThree();
    const { sessions, unreadable } = await makeStore().list();
    expect(sessions.map((summary) => summary.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(sessions[0]).toMatchObject({ title: "third", model: "m", provider: "p", messageCount: 1, workspace: "/one" });
    expect(unreadable).toEqual([]);
    expect((await makeStore().list({ workspace: "/one" })).sessions.map((summary) => summary.title)).toEqual(["third", "first"]);
    expect((await makeStore().latest("/two"))?.id).toBe(ids[1]);
    expect(await makeStore().latest("/nowhere")).toBeUndefined();
  });

  it("matches a workspace given through a symlink to the real folder", async () => {
    const real = path.join(path.dirname(directory), "real-workspace");
    const link = path.join(path.dirname(directory), "linked-workspace");
    await fs.mkdir(real);
    await fs.symlink(real, link);
    const session = await track(makeStore().create({ workspace: real, provider: "p", model: "m" }));
    expect((await makeStore().latest(link))?.id).toBe(session.id);
  });

  it("lists nothing when the folder does not exist yet", async () => {
    expect(await makeStore().list()).toEqual({ sessions: [], unreadable: [] });
  });

  it("deletes by prefix, leaving the others", async () => {
    const ids = await makeThree();
    expect(await makeStore().delete(ids[1]!.slice(0, 16))).toBe(ids[1]);
    expect((await makeStore().list()).sessions.map((summary) => summary.id)).toEqual([ids[2], ids[0]]);
    expect(await fs.readdir(directory)).not.toContain(`${ids[1]}.lock`);
  });
});
