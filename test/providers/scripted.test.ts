import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClioError } from "../../grammar/errors.js";
import { createProvider } from "../../src/providers/index.js";
import { resolveProviderSettings } from "../../src/providers/presets.js";
import { loadScript, parseTextScript, ScriptedProvider } from "../../src/providers/scripted.js";
import { collect, collectUntilError, conversation, eventsOfType, replyText } from "./helpers.js";

describe("the scripted provider", () => {
  it("plays its replies in order, streamed in chunks of the given size", async () => {
    const provider = new ScriptedProvider({ replies: ["first reply here", "second"], chunkSize: 5 });

    const first = await collect(provider.stream({ messages: conversation }));
    const second = await collect(provider.stream({ messages: conversation }));

    expect(eventsOfType(first, "text-delta").map((event) => event.text)).toEqual(["first", " repl", "y her", "e"]);
    expect(replyText(second)).toBe("second");
    expect(first.slice(-2).map((event) => event.type)).toEqual(["usage", "finish"]);
    expect(eventsOfType(first, "usage")[0]?.estimated).toBe(true);
    expect(provider.remaining).toBe(0);
  });

  it("cuts a reply at the first stop string, as a server does", async () => {
    const provider = new ScriptedProvider({ replies: ["run this [X] then that [Y] end"] });

    const events = await collect(provider.stream({ messages: conversation, stop: ["[Y]", "[X]"] }));

    expect(replyText(events)).toBe("run this ");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("ends with a clear error when its replies run out", async () => {
    const provider = new ScriptedProvider({ replies: ["only one"], origin: "The reply script demo.json" });
    await collect(provider.stream({ messages: conversation }));

    const { error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect((error as ClioError).code).toBe("provider_error");
    expect((error as ClioError).message).toBe("The reply script demo.json has no reply left: all 1 recorded replies were played and the model was asked for one more.");
  });

  it("ends with cancelled when the signal aborts mid-reply", async () => {
    const provider = new ScriptedProvider({ replies: ["a long reply in many chunks"], chunkSize: 2 });
    const controller = new AbortController();

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation, signal: controller.signal }), () => controller.abort());

    expect(events).toHaveLength(1);
    expect((error as ClioError).code).toBe("cancelled");
  });
});

describe("script files", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), "clio-script-"));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("reads the JSON format", async () => {
    const path = join(folder, "replies.json");
    await writeFile(path, JSON.stringify({ version: 1, replies: ["one", 'two\n[FILE_OP:action=read:path="a"]'] }));

    expect(await loadScript(path)).toEqual(["one", 'two\n[FILE_OP:action=read:path="a"]']);
  });

  it("reads the text format, replies separated by --- reply --- lines", () => {
    const text = "First reply\nover two lines\n--- reply ---\nSecond reply\n--- reply ---\n\nThird, after a blank line\n";

    expect(parseTextScript(text)).toEqual(["First reply\nover two lines", "Second reply", "\nThird, after a blank line"]);
  });

  it("says what a broken script should look like", async () => {
    const path = join(folder, "broken.json");
    await writeFile(path, JSON.stringify({ version: 2, replies: [] }));

    const error = await loadScript(path).catch((caught: unknown) => caught as ClioError);

    expect(error).toMatchObject({ code: "corrupt_file", message: `The reply script ${path} has version 2; clio reads version 1.` });
    expect((error as ClioError).hint).toContain('"replies"');
    await expect(loadScript(join(folder, "absent.json"))).rejects.toMatchObject({ code: "not_found" });
  });

  it("is played by createProvider from --script", async () => {
    const path = join(folder, "replies.md");
    await writeFile(path, "hello\n--- reply ---\nagain\n");
    const provider = await createProvider(resolveProviderSettings({ flags: { script: path }, env: {} }), { chunkSize: 3 });

    expect(provider.api).toBe("scripted");
    expect(replyText(await collect(provider.stream({ messages: conversation })))).toBe("hello");
    expect(replyText(await collect(provider.stream({ messages: conversation })))).toBe("again");
  });
});
