import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionStore, decodeSession } from "../../src/sessions/index.js";
import { makeTempDir, rejection, startChild } from "./helpers.js";

let directory: string;

beforeEach(async () => {
  directory = await makeTempDir("sessions-atomic");
});

afterEach(async () => {
  await fs.rm(directory, { recursive: true, force: true });
});

async function readDecoded(file: string) {
  const decoded = decodeSession(JSON.parse(await fs.readFile(file, "utf8")));
  if (!decoded.ok) throw new Error(`not a valid session: ${JSON.stringify(decoded.failure)}`);
  return decoded.data;
}

describe("saving", () => {
  it("goes through a temp file and a rename: a failed save leaves the previous file whole", async () => {
    const session = await new SessionStore(directory).create({ workspace: "/w", provider: "p", model: "m" });
    await session.appendMessage({ role: "user", content: "kept", turn: 1 });
    const before = await fs.readFile(session.file, "utf8");

    // steno writes `.<name>.tmp` first; a folder in its way makes that real write fail.
    const temp = path.join(directory, `.${path.basename(session.file)}.tmp`);
    await fs.mkdir(temp);
    const error = await rejection(session.appendMessage({ role: "assistant", content: "not saved yet", turn: 1 }));
    expect(error.code).toBe("internal_error");
    expect(error.message).toContain(`Could not save session ${session.id} to ${session.file}`);
    expect(await fs.readFile(session.file, "utf8")).toBe(before);

    await fs.rmdir(temp);
    await session.appendMessage({ role: "assistant", content: "saved", turn: 1 });
    expect((await readDecoded(session.file)).messages.map((message) => message.content)).toEqual(["kept", "not saved yet", "saved"]);
    await session.close();
  });

  it("leaves no temp files and loses nothing when many appends overlap", async () => {
    const session = await new SessionStore(directory).create({ workspace: "/w", provider: "p", model: "m" });
    await Promise.all(Array.from({ length: 50 }, (_, index) => session.appendMessage({ role: "user", content: `message ${index}`, turn: index + 1 })));
    await session.close();
    expect((await readDecoded(session.file)).messages).toHaveLength(50);
    expect(await fs.readdir(directory)).toEqual([path.basename(session.file)]);
  });

  it("uses the injected writer, and a failed first save creates nothing and frees the id", async () => {
    const writes: string[] = [];
    const store = new SessionStore(directory, {
      openWriter: () => ({
        write: async (text) => {
          writes.push(text);
          throw new Error("disk full");
        },
      }),
    });
    const error = await rejection(store.create({ workspace: "/w", provider: "p", model: "m" }));
    expect(error.message).toBe(`Could not create a session in ${directory}: disk full`);
    expect(writes).toHaveLength(1);
    expect(await fs.readdir(directory)).toEqual([]);
  });

  it("survives the process being killed mid-write: the file is always a whole session", async () => {
    for (const runMs of [150, 400]) {
      const child = await startChild(["append", directory]);
      const file = path.join(directory, `${child.readyValue}.json`);
      await new Promise((resolve) => setTimeout(resolve, runMs));
      child.process.kill("SIGKILL");
      await child.exited;

      const data = await readDecoded(file);
      expect(data.messages.length).toBeGreaterThan(0);
      expect(data.messages.map((message) => message.sequence)).toEqual(data.messages.map((_, index) => index + 1));
      // The lock of the killed process is stale and is taken over.
      const session = await new SessionStore(directory).open(child.readyValue);
      await session.close();
    }
  });
});
