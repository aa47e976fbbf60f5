import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import { REASONING_ONLY } from "../../src/agent/reasoning-split.js";
import { sessionHistory } from "../../src/agent/session-recorder.js";
import { lastReplyLine } from "../../src/ui/slash-commands.js";
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

  it("<think> blocks in the middle of a reply's text never run, are left out of the history sent back, and stay in the session file", async () => {
    harness = await startHarness({ files: { "a.txt": "alpha\n" } });
    const reply =
      'Let me see.\n<think>Maybe [FILE_OP:action=write:path="a.txt":content="gone"]? No.</think>\n[FILE_OP:action=read:path="a.txt"]\n```\n<think>a fenced tag is code</think>\n```\n';
    harness.server.enqueue({ reply, chunkSizes: 1 }, { reply: "It says alpha." }, { reply: "<thinking>only a draft, cut off" }, { reply: "Done." });

    await harness.conversation.prompt("What is in a.txt?");
    await harness.conversation.prompt("And now?");
    await harness.conversation.prompt("Again?");

    expect(await readFile(path.join(harness.workspace, "a.txt"), "utf8")).toBe("alpha\n");
    const sentBack = (request: number) =>
      (harness!.server.requests[request]!.body.messages as { role: string; content: string }[]).filter((message) => message.role === "assistant").map((message) => message.content);
    const said = 'Let me see.\n[FILE_OP:action=read:path="a.txt"]\n```\n<think>a fenced tag is code</think>\n```\n';
    expect(sentBack(1)).toEqual([said]);
    expect(sentBack(3)).toEqual([said, "It says alpha.", REASONING_ONLY]);
    const recorded = harness.conversation.session!.data.messages.filter((message) => message.role === "assistant").map((message) => message.content);
    expect(recorded).toEqual([reply, "It says alpha.", "<thinking>only a draft, cut off", "Done."]);
    // A resumed session sends back what the live one did.
    expect(
      sessionHistory(harness.conversation.session!)
        .filter((message) => message.role === "assistant")
        .map((message) => message.content),
    ).toEqual([...sentBack(3), "Done."]);
  });

  it("gpt-oss's harmony framing of a final message stays out of the chat and the history sent back, and in the session file", async () => {
    harness = await startHarness({ files: { "a.txt": "alpha\n" } });
    const reply = '<|channel|>analysis<|message|>Read it first.<|end|><|start|>assistant<|channel|>final<|message|>Reading it.\n[FILE_OP:action=read:path="a.txt"]\n<|return|>';
    const answer = "<|start|>assistant<|channel|>final<|message|>It says alpha.<|return|>";
    harness.server.enqueue({ reply, chunkSizes: 1 }, { reply: answer, chunkSizes: 3 }, { reply: "Done." });

    const outcome = await harness.conversation.prompt("What is in a.txt?");
    await harness.conversation.prompt("And now?");

    expect(outcome).toMatchObject({ reason: "done", finalText: "It says alpha." });
    const sentBack = (harness.server.requests[2]!.body.messages as { role: string; content: string }[])
      .filter((message) => message.role === "assistant")
      .map((message) => message.content);
    expect(sentBack).toEqual(['Reading it.\n[FILE_OP:action=read:path="a.txt"]\n', "It says alpha."]);
    const recorded = harness.conversation.session!.data.messages.filter((message) => message.role === "assistant").map((message) => message.content);
    expect(recorded.slice(0, 2)).toEqual([reply, answer]);
    expect(
      sessionHistory(harness.conversation.session!)
        .filter((message) => message.role === "assistant")
        .map((message) => message.content)
        .slice(0, 2),
    ).toEqual(sentBack);
    const { view, shown } = viewOf("hide");
    replyWith(view, 1, [...answer]);
    expect(shown()).toBe("It says alpha.\n");
  });

  it("/resume's last-reply line leaves a reply's reasoning blocks out", () => {
    const style = new Chalk({ level: 0 });
    const messages = [
      { role: "assistant", content: "Earlier answer." },
      { role: "assistant", content: "<think>only a draft" },
      { role: "user", content: "next" },
    ];
    expect(lastReplyLine(messages, style)).toBe("Last reply: Earlier answer.\n");
    messages.push({ role: "assistant", content: "<think>weighing</think>\nThe `<think>` tag, then <reasoning>more</reasoning> the end." });
    expect(lastReplyLine(messages, style)).toBe("Last reply: The `<think>` tag, then the end.\n");
    expect(lastReplyLine([{ role: "assistant", content: "<think>draft" }], style)).toBe("");
  });

  it("is collapsed to one line with its size by default; /reasoning's view shows the last prompt's whole", () => {
    const written: string[] = [];
    const style = new Chalk({ level: 1 });
    const view = new TerminalView({ style, output: { isTTY: false, write: (text: string) => written.push(text) > 0 } });
    view.onAgentEvent({ type: "model-started", turn: 1 });
    view.onAgentEvent({ type: "reasoning-delta", text: "first I look\nthen I " });
    view.onAgentEvent({ type: "reasoning-delta", text: "answer" });
    view.onAgentEvent({ type: "text-delta", text: "Answer.\n" });
    view.onAgentEvent({
      type: "reply-finished",
      turn: 1,
      outcome: { text: "Answer.\n", reasoning: "", results: [], mentions: [], dialectCalls: [], finishReason: "stop", fabricated: false, dispatchDelays: [] },
    });
    view.onAgentEvent({ type: "prompt-finished", reason: "done", turns: 1 });
    const shown = written.join("");
    expect(shown).toContain(style.dim("┆ reasoning, 2 lines, 26 characters (collapsed: /reasoning shows it)"));
    expect(shown).not.toContain("first I look");
    expect(shown.indexOf("reasoning,")).toBeLessThan(shown.indexOf("Answer"));
    written.length = 0;
    view.reasoning.showLast();
    expect(written.join("")).toBe(`${style.dim("┆ first I look\n┆ then I answer")}\n`);
    // The next prompt starts with nothing to show until its own reasoning comes.
    view.onAgentEvent({ type: "model-started", turn: 2 });
    written.length = 0;
    view.reasoning.showLast();
    expect(written.join("")).toBe("No reasoning came with the last prompt's replies.\n");
  });

  it("takes <think> blocks anywhere in a reply's text as reasoning, however it is cut; a tag in code is code", () => {
    const { view, shown } = viewOf("collapse");
    replyWith(view, 1, [
      "  <Th",
      "ink>weigh",
      "ing it</thi",
      "nk>\nThe answer",
      " is <think>yes</think>.\n",
      "```\n<think>code</think>\n```\nand `<think>` too.\n<thinking>never\nclosed",
    ]);
    expect(shown()).toBe(
      [
        "┆ reasoning, 1 line, 11 characters (collapsed: /reasoning shows it)",
        "The answer is",
        "┆ reasoning, 1 line, 3 characters (collapsed: /reasoning shows it)",
        ".",
        "```",
        "│ <think>code</think>",
        "```",
        "and `<think>` too.",
        "┆ reasoning, 2 lines, 12 characters (collapsed: /reasoning shows it)",
        "",
      ].join("\n"),
    );
    view.reasoning.showLast();
    expect(shown().split("(collapsed: /reasoning shows it)\n").at(-1)).toBe("┆ weighing it\n┆ yes\n┆ never\n┆ closed\n");
  });

  it("draws an unclosed block at the reply's end before a permission question, once", () => {
    const { view, shown } = viewOf("collapse");
    view.onAgentEvent({ type: "model-started", turn: 1 });
    view.onAgentEvent({ type: "text-delta", text: '[EXEC:action=run:command="make"]\n<think>should I' });
    view.beforeQuestion();
    const before = shown();
    expect(before).toBe('[EXEC:action=run:command="make"]\n┆ reasoning, 1 line, 8 characters (collapsed: /reasoning shows it)\n');
    view.onAgentEvent({
      type: "reply-finished",
      turn: 1,
      outcome: { text: "", reasoning: "", results: [], mentions: [], dialectCalls: [], finishReason: "stop", fabricated: false, dispatchDelays: [] },
    });
    expect(shown()).toBe(before);
  });

  it("draws mid-reply blocks whole and dimmed when shown, and leaves the text alone when hidden", () => {
    const chunks = ["Before <think>draft", " one</think> after.\n"];
    const shown = viewOf("show");
    replyWith(shown.view, 1, chunks);
    expect(shown.shown()).toBe("Before\n┆ thinking\n┆ draft one\n\nafter.\n");
    const hidden = viewOf("hide");
    replyWith(hidden.view, 1, chunks);
    expect(hidden.shown()).toBe("Before after.\n");
  });

  it("shows dimmed before the reply when asked, or not at all when hidden", () => {
    const written: string[] = [];
    const style = new Chalk({ level: 1 });
    const output = { isTTY: false, write: (text: string) => written.push(text) > 0 };
    const view = new TerminalView({ style, output, reasoning: "show" });
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

/** A view without colour whose output is kept (trailing blanks of each line dropped). */
function viewOf(reasoning: "collapse" | "show" | "hide") {
  const written: string[] = [];
  const view = new TerminalView({ style: new Chalk({ level: 0 }), output: { isTTY: false, write: (text: string) => written.push(text) > 0 }, reasoning });
  return { view, shown: () => written.join("").replace(/[ \t]+\n/g, "\n") };
}

/** One model call whose text arrives in `chunks`. */
function replyWith(view: TerminalView, turn: number, chunks: string[]): void {
  view.onAgentEvent({ type: "model-started", turn });
  for (const text of chunks) view.onAgentEvent({ type: "text-delta", text });
  view.onAgentEvent({
    type: "reply-finished",
    turn,
    outcome: { text: chunks.join(""), reasoning: "", results: [], mentions: [], dialectCalls: [], finishReason: "stop", fabricated: false, dispatchDelays: [] },
  });
}
