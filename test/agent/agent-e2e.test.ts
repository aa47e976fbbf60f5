import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "../../grammar/index.js";
import { lastUserMessage, startHarness, type Harness } from "./agent-harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const CALC = "export function divide(left, right) {\n  return left / right;\n}\n";

describe("the agent against an OpenAI-compatible server", () => {
  it("does a multi-turn task: reads, edits, runs a command, then answers", async () => {
    harness = await startHarness({ files: { "src/calc.js": CALC } });
    harness.server.enqueue(
      { reply: 'I will read the code first.\n[FILE_OP:action=read:path="src/calc.js"]\n', chunkSizes: [3, 5, 7] },
      {
        reply:
          'Now the fix.\n[FILE_OP:action=replace:path="src/calc.js":old="  return left / right;":new="  if (right === 0) throw new RangeError(\\"division by zero\\");\\n  return left / right;"]\n',
      },
      { reply: '[EXEC:action=run:command="node -e \\"import(\'./src/calc.js\').then(m => { try { m.divide(1, 0) } catch (e) { console.log(e.message) } })\\""]' },
      { reply: "Done: divide now throws on a zero divisor." },
    );
    const outcome = await harness.conversation.prompt("Make divide refuse zero.");
    expect(outcome).toMatchObject({ reason: "done", turns: 4, finalText: "Done: divide now throws on a zero divisor." });
    expect(await readFile(path.join(harness.workspace, "src/calc.js"), "utf8")).toContain('throw new RangeError("division by zero")');
    expect(lastUserMessage(harness, 1)).toMatch(/^\[RESULT ([0-9a-f]{8}) FILE_OP\.read ok\][\s\S]*return left \/ right;[\s\S]*\[\/RESULT \1\]$/);
    expect(lastUserMessage(harness, 3)).toMatch(/EXEC\.run ok[\s\S]*division by zero/);
    for (const request of harness.server.requests) {
      expect(request.body.tools).toBeUndefined();
      expect(request.body.stream).toBe(true);
      expect(request.body.stop).toContain("[RESULT ");
      expect(request.body.messages[0].role).toBe("system");
      expect(request.body.messages[0].content).toContain("FILE_OP");
    }
    const session = harness.conversation.session!;
    expect(session.data.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(session.data.commands.map((command) => `${command.protocol}.${command.action}:${command.ok}`)).toEqual(["FILE_OP.read:true", "FILE_OP.replace:true", "EXEC.run:true"]);
    expect(session.data.usage.totals.inputTokens).toBeGreaterThan(0);
  });

  it("cuts a reply where the model starts writing a result itself, and removes the fabricated text", async () => {
    harness = await startHarness({ files: { "a.txt": "real content\n" } });
    harness.server.enqueue(
      { reply: '[FILE_OP:action=read:path="a.txt"]\n[/RESULT 1234]\n[RESULT 1234 FILE_OP.read ok]\nfake content\n' },
      { reply: "The file says: real content." },
    );
    const outcome = await harness.conversation.prompt("What is in a.txt?");
    expect(outcome.reason).toBe("done");
    const saved = harness.conversation.session!.data.messages.find((message) => message.role === "assistant")!;
    expect(saved.content).toBe('[FILE_OP:action=read:path="a.txt"]\n');
    const next = lastUserMessage(harness, 1);
    expect(next).toContain("real content");
    expect(next).not.toContain("fake content");
    expect(next).toContain("your reply was cut where you began writing a [RESULT");
  });

  it("tells a model that fenced its command that fenced commands do not run", async () => {
    harness = await startHarness({ files: { "a.txt": "x\n" } });
    harness.server.enqueue({ reply: 'Reading:\n```\n[FILE_OP:action=delete:path="a.txt"]\n```\n' }, { reply: "Understood, nothing to do." });
    const outcome = await harness.conversation.prompt("Delete a.txt");
    expect(outcome.reason).toBe("done");
    expect(existsSync(path.join(harness.workspace, "a.txt"))).toBe(true);
    expect(lastUserMessage(harness, 1)).toContain("did not run, because it was inside code");
  });

  it("sends an argument error back with its fix, and the corrected command runs", async () => {
    harness = await startHarness({ files: { "a.txt": "hello\n" } });
    harness.server.enqueue({ reply: "[FILE_OP:action=read:path=a.txt]" }, { reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: "It says hello." });
    const outcome = await harness.conversation.prompt("Read a.txt");
    expect(outcome).toMatchObject({ reason: "done", turns: 3 });
    const error = lastUserMessage(harness, 1);
    expect(error).toContain("error invalid_argument");
    expect(error).toContain('path="a.txt"');
    expect(lastUserMessage(harness, 2)).toContain("FILE_OP.read ok");
  });

  it("waits out a 429 as Retry-After asks, then succeeds", async () => {
    harness = await startHarness();
    harness.server.enqueue({ status: 429, retryAfter: "2" }, { reply: "Hello." });
    const outcome = await harness.conversation.prompt("Hi");
    expect(outcome.reason).toBe("done");
    expect(harness.sleeps).toEqual([2000]);
    expect(harness.agentEvents.some((event) => event.type === "retry")).toBe(true);
  });

  it("ends the turn with a clear error when the server keeps failing, and the session survives", async () => {
    harness = await startHarness();
    harness.server.enqueue(...Array.from({ length: 5 }, () => ({ status: 500, message: "boom" })));
    const outcome = await harness.conversation.prompt("Hi");
    expect(outcome.reason).toBe("error");
    expect(outcome.message).toMatch(/500/);
    harness.server.enqueue({ reply: "Back again." });
    const again = await harness.conversation.prompt("Hi again");
    expect(again).toMatchObject({ reason: "done", finalText: "Back again." });
    expect(harness.conversation.session!.data.messages.map((message) => message.content)).toEqual(["Hi", "[no reply: the model call failed]", "Hi again", "Back again."]);
  });

  it("runs nothing from a stream cut mid-command, asks again, and keeps the session intact", async () => {
    harness = await startHarness();
    harness.server.enqueue(
      { reply: 'Writing it now.\n[FILE_OP:action=write:path="x.txt":content="partial and more"]', chunkSizes: 8, cutAfterChunks: 4 },
      { reply: "Let me try differently: nothing to write after all." },
    );
    const outcome = await harness.conversation.prompt("Write x.txt");
    expect(outcome.reason).toBe("done");
    expect(existsSync(path.join(harness.workspace, "x.txt"))).toBe(false);
    expect(harness.conversation.session!.data.commands).toEqual([]);
    expect(harness.agentEvents.some((event) => event.type === "notice" && event.message.includes("broke off"))).toBe(true);
  });

  it("waits for a slow first token", async () => {
    harness = await startHarness();
    harness.server.enqueue({ reply: "Slowly.", firstTokenDelayMs: 300 });
    const outcome = await harness.conversation.prompt("Hi");
    expect(outcome.finalText).toBe("Slowly.");
    const types = harness.agentEvents.map((event) => event.type);
    expect(types.indexOf("model-started")).toBeLessThan(types.indexOf("first-token"));
  });

  it("reports a refused permission to the model, and nothing runs", async () => {
    harness = await startHarness({ mode: "ask", asker: async () => "no" });
    harness.server.enqueue({ reply: '[EXEC:action=run:command="touch ran.txt"]' }, { reply: "Fine, I will not run it." });
    const outcome = await harness.conversation.prompt("Touch a file");
    expect(outcome.reason).toBe("done");
    expect(existsSync(path.join(harness.workspace, "ran.txt"))).toBe(false);
    expect(lastUserMessage(harness, 1)).toContain("error permission_denied");
  });

  it("works with a completion-only model through the completions endpoint", async () => {
    harness = await startHarness({ api: "completions", files: { "a.txt": "from a file\n" } });
    harness.server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: "It says: from a file." });
    const outcome = await harness.conversation.prompt("What does a.txt say?");
    expect(outcome.reason).toBe("done");
    const second = harness.server.requests[1]!;
    expect(second.path).toBe("/v1/completions");
    expect(second.body.prompt).toContain("from a file");
    expect(second.body.prompt).toContain("FILE_OP.read ok");
  });
});

describe("limits", () => {
  it("stops after three malformed replies in a row", async () => {
    harness = await startHarness();
    harness.server.enqueue(...Array.from({ length: 3 }, () => ({ reply: '[FILE_OP:action=explode:path="a"]' })), { reply: "I could not find a working command." });
    const outcome = await harness.conversation.prompt("Do it");
    expect(outcome.reason).toBe("malformed");
    expect(outcome.finalText).toBe("I could not find a working command.");
    expect(harness.server.requests).toHaveLength(4);
  });

  it("stops when the same command comes three times in a row", async () => {
    harness = await startHarness({ files: { "a.txt": "x\n" } });
    harness.server.enqueue(...Array.from({ length: 3 }, () => ({ reply: '[FILE_OP:action=read:path="a.txt"]' })), { reply: '[FILE_OP:action=read:path="a.txt"]\nIt holds x.' });
    const outcome = await harness.conversation.prompt("Loop");
    expect(outcome.reason).toBe("repeated");
    expect(harness.server.requests).toHaveLength(4);
    // The answer asked for at the limit is shown, but a command in it never runs.
    expect(harness.managerEvents.filter((event) => event.type === "command-finished")).toHaveLength(3);
  });

  it("stops at --max-turns model calls", async () => {
    harness = await startHarness({ maxTurns: 2, files: { "a.txt": "x\n", "b.txt": "y\n" } });
    harness.server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: '[FILE_OP:action=read:path="b.txt"]' });
    const outcome = await harness.conversation.prompt("Keep going");
    expect(outcome).toMatchObject({ reason: "max-turns", turns: 2 });
    expect(outcome.message).toContain("--max-turns");
  });
});

describe("what goes into the prompt", () => {
  it("puts memories relevant to the prompt and the project's CLIO.md into the system prompt", async () => {
    harness = await startHarness({ files: { "CLIO.md": "Always run `make check` before committing.\n" } });
    const [stored] = await harness.runtime.manager.runAll([
      { command: parse('[MEMORY:action=store:key="deploy":value="Deploys go through make deploy-staging first":scope=project]').commands[0]! },
    ]);
    expect(stored!.ok).toBe(true);
    harness.server.enqueue({ reply: "Use make deploy-staging first." });
    await harness.conversation.prompt("How do I deploy this?");
    const system = harness.server.requests[0]!.body.messages[0].content as string;
    expect(system).toContain("Deploys go through make deploy-staging first");
    expect(system).toContain("Always run `make check` before committing.");
  });
});
