/** Summarising older turns near the context window, against the OpenAI-compatible test server. */
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./agent-harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

type Message = { role: string; content: string };
const messagesOf = (index: number): Message[] => harness!.server.requests[index]!.body.messages;

/**
 * Two prompts in a 1,000-token window: the first takes three calls and ends at 900 tokens, so the
 * second prompt begins with a summary call (answered with `summary`) before its own reply.
 */
async function twoPromptsNearTheWindow(summary: string) {
  harness = await startHarness({ contextWindow: 1000, files: { "a.txt": "alpha\n", "b.txt": "beta\n" } });
  harness.server.enqueue(
    { reply: '[FILE_OP:action=read:path="a.txt"]', usage: { promptTokens: 100, completionTokens: 10 } },
    { reply: '[FILE_OP:action=read:path="b.txt"]', usage: { promptTokens: 200, completionTokens: 10 } },
    { reply: "a.txt says alpha, b.txt says beta.", usage: { promptTokens: 890, completionTokens: 10 } },
    { reply: summary },
    { reply: "Both files are short.", usage: { promptTokens: 300, completionTokens: 10 } },
  );
  expect((await harness.conversation.prompt("What do a.txt and b.txt say? FIRST-PROMPT")).reason).toBe("done");
  return harness.conversation.prompt("Are they long?");
}

describe("summarising near the context window", () => {
  it("asks the model for a summary of the older turns, then sends a shorter history that still alternates", async () => {
    const outcome = await twoPromptsNearTheWindow("SUMMARY: the person asked what a.txt and b.txt say; they say alpha and beta.");
    expect(outcome).toMatchObject({ reason: "done", finalText: "Both files are short." });

    const summaryRequest = messagesOf(3);
    expect(summaryRequest).toHaveLength(2);
    expect(summaryRequest[0]!.content).toContain("You are now summarising, not acting");
    expect(summaryRequest[1]!.content).toMatch(/^Summarise this earlier part of our conversation/);
    expect(summaryRequest[1]!.content).toContain("FIRST-PROMPT");

    const after = messagesOf(4);
    expect(after.map((message) => message.content).join("\n")).not.toContain("FIRST-PROMPT");
    expect(after[1]!.content).toMatch(/^\[Summary of the earlier conversation\]\nSUMMARY: the person asked/);
    expect(after.length).toBeLessThan(messagesOf(2).length + 2);
    expect(after.at(-1)).toEqual({ role: "user", content: "Are they long?" });
    const roles = after.slice(1).map((message) => message.role);
    for (let index = 1; index < roles.length; index++) expect(roles[index]).not.toBe(roles[index - 1]);
    expect(harness!.agentEvents).toContainEqual({ type: "summarized", replacedMessages: 2 });
    // The session keeps every message as it happened; only the model's view is shortened.
    expect(harness!.conversation.session!.data.messages[0]!.content).toContain("FIRST-PROMPT");
  });

  it("keeps the history as it was when the summary comes back empty", async () => {
    expect((await twoPromptsNearTheWindow("")).reason).toBe("done");
    expect(messagesOf(4)[1]!.content).toContain("FIRST-PROMPT");
    expect(harness!.agentEvents.some((event) => event.type === "notice" && event.message.includes("summar"))).toBe(true);
  });
});
