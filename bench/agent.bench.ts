/**
 * The interpreter's own cost per turn: a scripted 50-turn session (each reply reads a file, the
 * last one answers) through the real agent loop, with a provider that answers instantly, so
 * everything measured is clio's work. Also the time from a command's `]` arriving to its
 * execution starting.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { encode } from "gpt-tokenizer";
import { Agent } from "../src/agent/agent.js";
import { buildSystemPrompt } from "../src/agent/system-prompt.js";
import type { ModelEvent, ModelProvider, ModelRequest } from "../src/providers/types.js";
import { createRuntime } from "../src/runtime.js";
import { format, median, percentile, printTable } from "./support.js";

const TURNS = 50;
const folder = mkdtempSync(path.join(os.tmpdir(), "clio-agent-bench-"));
mkdirSync(path.join(folder, "src"));
for (let index = 0; index < TURNS; index++) {
  writeFileSync(path.join(folder, "src", `part${index}.ts`), `export const part${index} = ${index};\n`.repeat(40));
}

/** When the chunk holding each command's `]` was handed over, in order. */
const closingTimes: number[] = [];

class InstantProvider implements ModelProvider {
  readonly name = "instant";
  readonly model = "instant";
  readonly api = "scripted" as const;
  private played = 0;
  constructor(private readonly replies: string[]) {}
  async *stream(_request: ModelRequest): AsyncGenerator<ModelEvent> {
    const reply = this.replies[this.played++ % this.replies.length]!;
    for (let start = 0; start < reply.length; start += 16) {
      const chunk = reply.slice(start, start + 16);
      if (chunk.includes("]")) closingTimes.push(performance.now());
      yield { type: "text-delta", text: chunk };
    }
    yield { type: "usage", inputTokens: 1000, outputTokens: 50, estimated: false };
    yield { type: "finish", reason: "stop" };
  }
}

const replies = Array.from({ length: TURNS - 1 }, (_, index) => `Next I will read part ${index}.\n[FILE_OP:action=read:path="src/part${index}.ts"]\n`);
replies.push("All parts read; done.");

const startTimes: number[] = [];
const runtime = await createRuntime({
  workspace: folder,
  permissionMode: "plan",
  onEvent: (event) => {
    if (event.type === "command-started") startTimes.push(performance.now());
  },
});
const system = buildSystemPrompt({ registry: runtime.registry, workspaceName: "bench" });
const sessionTimes: number[] = [];
for (let round = 0; round < 6; round++) {
  closingTimes.length = 0;
  startTimes.length = 0;
  const agent = new Agent({ provider: new InstantProvider(replies), manager: runtime.manager, systemPrompt: () => system, maxTurns: TURNS + 1 });
  const start = performance.now();
  const outcome = await agent.prompt("Read every part.");
  sessionTimes.push(performance.now() - start);
  if (outcome.reason !== "done" || outcome.turns !== TURNS) throw new Error(`the scripted session ended ${outcome.reason} after ${outcome.turns} turns`);
}
await runtime.manager.dispose();
rmSync(folder, { recursive: true, force: true });

const delays = startTimes.map((started, index) => started - closingTimes[index]!);
const perTurn = median(sessionTimes.slice(1)) / TURNS;
printTable([
  ["system prompt", `${encode(system).length.toLocaleString("en-US")} tokens (gpt-tokenizer; aim ≤ 1,500)`],
  [`${TURNS}-turn scripted session (median of 5)`, `${format(median(sessionTimes.slice(1)))} ms`],
  ["interpreter cost per turn", `${format(perTurn, 2)} ms (stream scan, checks, one FILE_OP read, envelopes, history)`],
  ["`]` arrival → execution start, p50", `${format(percentile(delays, 50), 3)} ms`],
  ["`]` arrival → execution start, p95", `${format(percentile(delays, 95), 3)} ms`],
]);
