import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionStore } from "../../src/sessions/index.js";
import { readJournal } from "../../src/sessions/journal.js";
import { makeTempDir, rejection, startChild } from "./helpers.js";

let directory: string;

beforeEach(async () => {
  directory = await makeTempDir("sessions-atomic");
});

afterEach(async () => {
  await fs.rm(directory, { recursive: true, force: true });
});

async function readWhole(file: string) {
  const read = readJournal(await fs.readFile(file));
  if (!read.ok || read.wholeLength !== undefined) throw new Error(`not a whole journal: ${JSON.stringify(read)}`);
  return read.data;
}

describe("saving", () => {
  it("appends one line per record: a failed append is cut back, kept in memory and saved with the next change", async () => {
    let failNext = false;
    const store = new SessionStore(directory, {
      openWriter: (file) => ({
        append: async (text) => {
          if (!failNext) return fs.appendFile(file, text);
          failNext = false;
          await fs.appendFile(file, text.slice(0, 7)); // a partial write, as a full disk leaves it
          throw new Error("no space left on device");
        },
        truncate: (length) => fs.truncate(file, length),
      }),
    });
    const session = await store.create({ workspace: "/w", provider: "p", model: "m" });
    await session.appendMessage({ role: "user", content: "kept", turn: 1 });
    const before = await fs.readFile(session.file, "utf8");

    failNext = true;
    const error = await rejection(session.appendMessage({ role: "assistant", content: "not saved yet", turn: 1 }));
    expect(error.code).toBe("internal_error");
    expect(error.message).toBe(`Could not save session ${session.id} to ${session.file}: no space left on device`);
    expect(await fs.readFile(session.file, "utf8")).toBe(before);
    expect(session.data.messages.map((message) => message.content)).toEqual(["kept", "not saved yet"]);

    await session.appendMessage({ role: "assistant", content: "saved", turn: 1 });
    expect((await readWhole(session.file)).messages.map((message) => message.content)).toEqual(["kept", "not saved yet", "saved"]);
    await session.close();
  });

  it("writes lines in the order the records were made and loses nothing when many appends overlap", async () => {
    const session = await new SessionStore(directory).create({ workspace: "/w", provider: "p", model: "m" });
    await Promise.all(Array.from({ length: 50 }, (_, index) => session.appendMessage({ role: "user", content: `message ${index}`, turn: index + 1 })));
    await session.close();
    const messages = (await readWhole(session.file)).messages;
    expect(messages.map((message) => message.sequence)).toEqual(messages.map((_, index) => index + 1));
    expect(messages.map((message) => message.content)).toEqual(messages.map((_, index) => `message ${index}`));
    expect(await fs.readdir(directory)).toEqual([path.basename(session.file)]);
  });

  it("costs one append per record, however long the session is", async () => {
    const appended: string[] = [];
    const store = new SessionStore(directory, {
      openWriter: (file) => ({
        append: async (text) => {
          appended.push(text);
          await fs.appendFile(file, text);
        },
        truncate: (length) => fs.truncate(file, length),
      }),
    });
    const session = await store.create({ workspace: "/w", provider: "p", model: "m" });
    for (let turn = 1; turn <= 200; turn++) await session.appendMessage({ role: "user", content: "x".repeat(100), turn });
    await session.close();
    const lengths = appended.slice(1).map((text) => text.length);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThan(10);
  });

  it("uses the injected writer, and a failed first save creates nothing and frees the id", async () => {
    const writes: string[] = [];
    const store = new SessionStore(directory, {
      openWriter: (file) => ({
        append: async (text) => {
          writes.push(text);
          await fs.writeFile(file, text.slice(0, 5));
          throw new Error("disk full");
        },
        truncate: (length) => fs.truncate(file, length),
      }),
    });
    const error = await rejection(store.create({ workspace: "/w", provider: "p", model: "m" }));
    expect(error.message).toBe(`Could not create a session in ${directory}: disk full`);
    expect(writes).toHaveLength(1);
    expect(await fs.readdir(directory)).toEqual([]);
  });

  it("survives the process being killed mid-write: a torn last line is dropped on read and cut off on open", async () => {
    for (const runMs of [150, 400]) {
      const child = await startChild(["append", directory]);
      const file = path.join(directory, `${child.readyValue}.jsonl`);
      await new Promise((resolve) => setTimeout(resolve, runMs));
      child.process.kill("SIGKILL");
      await child.exited;

      const store = new SessionStore(directory);
      const data = await store.read(child.readyValue);
      expect(data.messages.length).toBeGreaterThan(0);
      expect(data.messages.map((message) => message.sequence)).toEqual(data.messages.map((_, index) => index + 1));
      // The lock of the killed process is stale and is taken over; appends go on after the last whole line.
      const session = await store.open(child.readyValue);
      await session.appendMessage({ role: "assistant", content: "after the crash", turn: 1 });
      await session.close();
      const after = await readWhole(file);
      expect(after.messages.at(-1)?.content).toBe("after the crash");
      expect(after.messages.length).toBe(data.messages.length + 1);
    }
  });
});
