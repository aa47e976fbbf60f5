import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSION_FORMAT_VERSION, SessionStore } from "../../src/sessions/index.js";
import { makeTempDir, rejection } from "./helpers.js";

let directory: string;
const clock = Date.UTC(2026, 10, 22, 3, 0, 0);
const store = (): SessionStore => new SessionStore(directory, { now: () => clock });

beforeEach(async () => {
  directory = await makeTempDir("sessions-corrupt");
});

afterEach(async () => {
  await fs.rm(directory, { recursive: true, force: true });
});

async function makeSession(): Promise<{ id: string; file: string; text: string }> {
  const session = await store().create({ workspace: "/w", provider: "p", model: "m" });
  await session.appendMessage({ role: "user", content: "hello", turn: 1 });
  await session.close();
  return { id: session.id, file: session.file, text: await fs.readFile(session.file, "utf8") };
}

describe("a corrupt session file", () => {
  it.each([
    ["a header cut short", (text: string) => text.slice(0, 30), /the header line is cut short/],
    ["garbage", () => "{ not json", /invalid JSON at line 1, column 3/],
    ["empty", () => "", /the file is empty/],
    [
      "a bad record before the last line",
      (text: string) => text.replace('"role":"user"', '"role":7'),
      /line 2: message: role: expected one of system, user, assistant, tool, got number/,
    ],
    ["a record of an unknown kind", (text: string) => text.replace('"kind":"message"', '"kind":"gossip"'), /line 2: unknown record kind "gossip"/],
  ])("(%s) is moved aside, named in a corrupt_file error, and never overwritten", async (_name, damage, reason) => {
    const { id, file, text } = await makeSession();
    const damaged = damage(text);
    await fs.writeFile(file, damaged);

    const error = await rejection(store().open(id));
    const aside = `${file}.corrupt-2026-11-22T03-00-00-000Z`;
    expect(error.code).toBe("corrupt_file");
    expect(error.message).toMatch(reason);
    expect(error.message).toContain(aside);
    expect(error.hint).toContain("start a new one");
    expect(await fs.readFile(aside, "utf8")).toBe(damaged);
    expect((await fs.readdir(directory)).sort()).toEqual([path.basename(aside)]);
    expect((await rejection(store().open(id))).code).toBe("not_found");
  });

  it("with a torn last line (a crash mid-save) loses only that line: read drops it, open cuts it off", async () => {
    const { id, file, text } = await makeSession();
    const torn = `${text}{"kind":"message","sequence":2,"role":"assis`;
    await fs.writeFile(file, torn);
    expect((await store().read(id)).messages.map((message) => message.content)).toEqual(["hello"]);
    expect(await fs.readFile(file, "utf8")).toBe(torn);

    const session = await store().open(id);
    expect(await fs.readFile(file, "utf8")).toBe(text);
    await session.appendMessage({ role: "assistant", content: "again", turn: 1 });
    await session.close();
    expect((await store().read(id)).messages.map((message) => [message.sequence, message.content])).toEqual([
      [1, "hello"],
      [2, "again"],
    ]);
  });

  it("cuts a torn last line at its exact byte, also after a whole line holding a byte that is no UTF-8", async () => {
    const session = await store().create({ workspace: "/w", provider: "p", model: "m" });
    await session.appendMessage({ role: "user", content: "héllo — 🙂 ☃", turn: 1 });
    await session.close();
    // A whole line holding a byte that is no UTF-8 (read as U+FFFD, three bytes when encoded again).
    const written = await fs.readFile(session.file);
    const whole = Buffer.from(written);
    whole[whole.indexOf("é") + 1] = 0xff;
    // Then a crash in the middle of a four-byte character, and more bytes that are no UTF-8.
    const torn = Buffer.concat([whole, Buffer.from('{"kind":"message","content":"\u{1F642}').subarray(0, -2), Buffer.from([0xff, 0xfe])]);
    await fs.writeFile(session.file, torn);

    const reopened = await store().open(session.id);
    expect(await fs.readFile(session.file)).toEqual(whole);
    await reopened.appendMessage({ role: "assistant", content: "again", turn: 1 });
    await reopened.close();
    expect((await store().read(session.id)).messages.map((message) => message.content)).toEqual(["h\ufffd\ufffdllo — 🙂 ☃", "again"]);
  });

  it("is reported by read, which leaves it where it is", async () => {
    const { id, file, text } = await makeSession();
    await fs.writeFile(file, text.slice(0, 10));
    const error = await rejection(store().read(id));
    expect(error.code).toBe("corrupt_file");
    expect(error.message).toContain(file);
    expect(await fs.readFile(file, "utf8")).toBe(text.slice(0, 10));
  });

  it("is skipped and reported by list, which changes nothing", async () => {
    const good = await makeSession();
    const bad = await makeSession();
    await fs.writeFile(bad.file, bad.text.slice(0, 40));
    const listing = await store().list();
    expect(listing.sessions.map((summary) => summary.id)).toEqual([good.id]);
    expect(listing.unreadable).toEqual([{ file: bad.file, code: "corrupt_file", message: expect.stringMatching(/^the header line is cut short/) }]);
    expect(await fs.readFile(bad.file, "utf8")).toBe(bad.text.slice(0, 40));
  });

  it("does not hide other files in the folder: stray names are ignored", async () => {
    await fs.writeFile(path.join(directory, "notes.json"), "{}");
    await fs.writeFile(path.join(directory, ".20261122-0300-abcdef.json.tmp"), "{");
    expect(await store().list()).toEqual({ sessions: [], unreadable: [] });
  });
});

describe("format versions", () => {
  it("migrates the unversioned draft shape (version 0) to a journal when opened", async () => {
    const id = "20261101-1200-00aa11";
    const file = path.join(directory, `${id}.json`);
    const draft = {
      id,
      created: Date.UTC(2026, 10, 1, 12, 0, 0),
      updated: Date.UTC(2026, 10, 1, 12, 5, 0),
      workspace: "/old",
      model: "llama",
      messages: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "answer" },
        { role: "user", content: "second question" },
      ],
    };
    await fs.writeFile(file, JSON.stringify(draft));
    expect((await store().read(id)).title).toBe("first question");
    expect(await fs.readFile(file, "utf8")).toBe(JSON.stringify(draft));

    const session = await store().open(id);
    expect(session.migratedFrom).toBe(0);
    expect(session.data).toMatchObject({
      version: SESSION_FORMAT_VERSION,
      createdAt: "2026-11-01T12:00:00.000Z",
      updatedAt: "2026-11-01T12:05:00.000Z",
      provider: "unknown",
      model: "llama",
      title: "first question",
    });
    expect(session.data.messages.map((message) => [message.sequence, message.turn])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(session.file).toBe(path.join(directory, `${id}.jsonl`));
    expect(await fs.readdir(directory)).toEqual([`${id}.jsonl`, `${id}.lock`]);

    await session.appendMessage({ role: "assistant", content: "more", turn: 2 });
    await session.close();
    const reopened = await store().read(id);
    expect(reopened.messages.at(-1)).toMatchObject({ sequence: 4, content: "more" });
    expect(reopened.title).toBe("first question");
  });

  it("opens a format-1 document (one JSON file) with everything in it, as a journal from then on", async () => {
    const id = "20261120-0900-0f0f0f";
    const document = {
      version: 1,
      id,
      createdAt: "2026-11-20T09:00:00.000Z",
      updatedAt: "2026-11-20T09:10:00.000Z",
      workspace: "/w",
      provider: "openai",
      model: "second",
      title: "fix it",
      messages: [
        { sequence: 1, role: "user", content: "fix it", timestamp: "2026-11-20T09:00:01.000Z", turn: 1 },
        { sequence: 4, role: "assistant", content: "done", timestamp: "2026-11-20T09:05:00.000Z", turn: 1 },
      ],
      commands: [
        {
          sequence: 2,
          protocol: "FILE_OP",
          action: "read",
          args: { path: "a" },
          description: "Reading a",
          ok: true,
          output: "x",
          durationMs: 1,
          turn: 1,
          timestamp: "2026-11-20T09:00:02.000Z",
        },
      ],
      usage: { turns: [{ turn: 1, inputTokens: 10, outputTokens: 2, estimated: false }], totals: { inputTokens: 10, outputTokens: 2, estimated: false } },
      events: [
        {
          sequence: 3,
          type: "model-changed",
          timestamp: "2026-11-20T09:01:00.000Z",
          data: { from: { provider: "openai", model: "first" }, to: { provider: "openai", model: "second" } },
        },
      ],
    };
    await fs.writeFile(path.join(directory, `${id}.json`), JSON.stringify(document, null, 2));
    const session = await store().open(id);
    expect(session.migratedFrom).toBe(1);
    await session.close();
    const { version: _version, ...rest } = document;
    expect(await store().read(id)).toEqual({ ...rest, version: SESSION_FORMAT_VERSION });
  });

  it("refuses a file from a newer clio clearly and leaves it untouched", async () => {
    const { id, file, text } = await makeSession();
    const newer = text.replace(`"version":${SESSION_FORMAT_VERSION}`, '"version":99');
    await fs.writeFile(file, newer);
    const error = await rejection(store().open(id));
    expect(error.code).toBe("unsupported_version");
    expect(error.message).toBe(`${file} is in session format 99, written by a newer clio; this clio reads formats up to ${SESSION_FORMAT_VERSION}.`);
    expect(error.hint).toContain("Upgrade clio");
    expect(await fs.readFile(file, "utf8")).toBe(newer);
    expect(await fs.readdir(directory)).toEqual([path.basename(file)]);
    expect((await store().list()).unreadable).toEqual([{ file, code: "unsupported_version", message: error.message }]);
  });
});
