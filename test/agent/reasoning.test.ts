import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import { TerminalView } from "../../src/ui/terminal-view.js";
import { startHarness, type Harness } from "./agent-harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("reasoning", () => {
  it("never runs, stays out of the history sent back, and is kept in the session file", async () => {
    harness = await startHarness({ files: { "a.txt": "alpha\n" } });
    const thought = 'Maybe [FILE_OP:action=write:path="a.txt":content="gone"] — no, just read it.';
    harness.server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]\n', reasoning: { field: "reasoning_content", text: thought } }, { reply: "It says alpha." });

    const outcome = await harness.conversation.prompt("What is in a.txt?");

    expect(outcome).toMatchObject({ reason: "done", finalText: "It says alpha." });
    expect(await readFile(path.join(harness.workspace, "a.txt"), "utf8")).toBe("alpha\n");
    const sent = harness.server.requests[1]!.body.messages as { role: string; content: string }[];
    expect(sent.some((message) => message.content.includes("Maybe"))).toBe(false);
    expect(sent.find((message) => message.role === "assistant")?.content).toBe('[FILE_OP:action=read:path="a.txt"]\n');
    const session = harness.conversation.session!;
    const lines = (await readFile(session.file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { role?: string; reasoning?: string });
    expect(lines.find((line) => line.role === "assistant")?.reasoning).toBe(thought);
    expect(
      harness.agentEvents
        .filter((event) => event.type === "reasoning-delta")
        .map((event) => (event as { text: string }).text)
        .join(""),
    ).toBe(thought);
  });

  it("shows dimmed before the reply, or not at all when hidden", () => {
    const written: string[] = [];
    const style = new Chalk({ level: 1 });
    const output = { isTTY: false, write: (text: string) => written.push(text) > 0 };
    const view = new TerminalView({ style, output });
    view.onAgentEvent({ type: "reasoning-delta", text: "let me\nthink" });
    view.onAgentEvent({ type: "text-delta", text: "Answer.\n" });
    const shown = written.join("");
    expect(shown).toContain(style.dim("let me\n┆ think"));
    expect(shown.indexOf("think")).toBeLessThan(shown.indexOf("Answer"));

    written.length = 0;
    const hidden = new TerminalView({ style, output, reasoning: "hide" });
    hidden.onAgentEvent({ type: "reasoning-delta", text: "secret" });
    hidden.onAgentEvent({ type: "text-delta", text: "Answer.\n" });
    expect(written.join("")).not.toContain("secret");
  });
});
