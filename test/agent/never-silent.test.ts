/**
 * Never silent (issue 15): what the agent does with calls written in other dialects, with
 * command-shaped text that did not run, and with commands only described — each reply's notes
 * reach the model also when other commands ran.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { ManagerEvent } from "../../src/manager/manager.js";
import type { ProtocolRegistry } from "../../src/registry.js";
import type { Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";
import { type DrivenProvider, drivenAgent, type Step } from "./driven-agent.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
let managerEvents: ManagerEvent[];
beforeEach(async () => {
  folder = await temporaryFolder("clio-loop-");
  managerEvents = [];
});
afterEach(async () => {
  await runtime?.manager.dispose();
  await folder.remove();
});

async function agentWith(replies: Step[][], options: { registry?: ProtocolRegistry; maxTurns?: number } = {}) {
  const driven = await drivenAgent(folder.path, replies, managerEvents, options);
  runtime = driven.runtime;
  return { agent: driven.agent, provider: driven.provider, events: driven.events };
}

const lastUser = (provider: DrivenProvider, index: number) => provider.requests[index]!.messages.at(-1)!.content;

describe("calls in other dialects", () => {
  it("runs a <tool_call> through the same checks and tells the model its clio form, streamed a character at a time", async () => {
    await writeFile(path.join(folder.path, "a.txt"), "alpha\n");
    const reply = 'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>\n';
    const { agent, provider } = await agentWith([[...reply], ["It says alpha."]]);
    const outcome = await agent.prompt("read a.txt");
    expect(outcome.reason).toBe("done");
    const next = lastUser(provider, 1);
    expect(next).toContain("FILE_OP.read ok");
    expect(next).toContain("alpha");
    expect(next).toContain("clio read them as these commands");
    expect(next).toContain('[FILE_OP:action=read:path="a.txt"]');
  });

  it("answers a call it cannot map with an error whose hint is the clio command", async () => {
    const { agent, provider } = await agentWith([['<tool_call>{"name": "FILE_OP", "arguments": {"path": "a.txt"}}</tool_call>'], ["Ok."]]);
    await agent.prompt("go");
    const next = lastUser(provider, 1);
    expect(next).toContain("names FILE_OP but no action");
    expect(next).toContain('How to fix: [FILE_OP:action=read:path="a.txt"]');
  });
});

describe("never silent", () => {
  it("tells the model about a fenced command even when another command of the reply ran", async () => {
    await writeFile(path.join(folder.path, "a.txt"), "alpha\n");
    const { agent, provider } = await agentWith([['[FILE_OP:action=read:path="a.txt"]\n```\n[FILE_OP:action=delete:path="a.txt"]\n```\n'], ["Understood."]]);
    await agent.prompt("go");
    const next = lastUser(provider, 1);
    expect(next).toContain("FILE_OP.read ok");
    expect(next).toContain("did not run, because it was inside code");
    expect(next).toContain("line 3 (inside a code fence)");
    expect(existsSync(path.join(folder.path, "a.txt"))).toBe(true);
  });

  it("gives a JSON call in a fence back as a mention with the command to write", async () => {
    const { agent, provider } = await agentWith([['```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'], ["Ok."]]);
    await agent.prompt("go");
    expect(lastUser(provider, 1)).toContain('as a command: [FILE_OP:action=read:path="a.txt"]');
  });
});

describe("commands only described", () => {
  it("does not run a destructive command written inside a conditional or a question, and says how to run it", async () => {
    await writeFile(path.join(folder.path, "old.log"), "x\n");
    const { agent, provider } = await agentWith([
      ['Should I delete it with [FILE_OP:action=delete:path="old.log"]? I would also [FILE_OP:action=write:path="n.txt":content="x"] if you agree.'],
      ["Waiting for you."],
    ]);
    await agent.prompt("tidy up");
    expect(existsSync(path.join(folder.path, "old.log"))).toBe(true);
    expect(existsSync(path.join(folder.path, "n.txt"))).toBe(false);
    const next = lastUser(provider, 1);
    expect(next).toContain("described_only");
    expect(next).toContain('write it on a line of its own: [FILE_OP:action=delete:path="old.log"]');
  });

  it("runs the same command on a line of its own, and a read inside a question", async () => {
    await writeFile(path.join(folder.path, "old.log"), "x\n");
    const { agent } = await agentWith([['Shall I look at [FILE_OP:action=read:path="old.log"]?\n[FILE_OP:action=delete:path="old.log"]\n'], ["Done."]]);
    await agent.prompt("delete old.log");
    expect(existsSync(path.join(folder.path, "old.log"))).toBe(false);
    const finished = managerEvents.filter((event) => event.type === "command-finished").map((event) => event.type === "command-finished" && event.result.ok);
    expect(finished).toEqual([true, true]);
  });
});
