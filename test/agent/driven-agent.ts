/**
 * An agent over a provider the test drives step by step (text chunks, waits, failures, the finish
 * reason), in a temporary workspace with the built-in protocols in yolo mode. Shared by the
 * agent-loop tests.
 */
import { Agent, type AgentEvent } from "../../src/agent/agent.js";
import { ApplicationError } from "../../src/errors.js";
import type { ManagerEvent } from "../../src/manager/manager.js";
import type { FinishReason, ModelEvent, ModelProvider, ModelRequest } from "../../src/providers/types.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";

/** One step of a scripted reply: text, a wait for the test, or a failure. */
export type Step = string | { wait: Promise<void> } | { fail: Error } | { finish: FinishReason };

export class DrivenProvider implements ModelProvider {
  readonly name = "driven";
  readonly model = "driven";
  readonly api = "scripted" as const;
  readonly requests: ModelRequest[] = [];
  constructor(private readonly replies: Step[][]) {}

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    this.requests.push(request);
    const steps = this.replies.shift();
    if (!steps) throw new ApplicationError("provider_error", "no reply left");
    let finish: FinishReason = "stop";
    for (const step of steps) {
      if (request.signal?.aborted) throw new ApplicationError("cancelled", "cancelled");
      if (typeof step === "string") yield { type: "text-delta", text: step };
      else if ("wait" in step) await step.wait;
      else if ("fail" in step) throw step.fail;
      else finish = step.finish;
    }
    if (request.signal?.aborted) throw new ApplicationError("cancelled", "cancelled");
    yield { type: "usage", inputTokens: 10, outputTokens: 10, estimated: true };
    yield { type: "finish", reason: finish };
  }
}

/** An agent in `workspace` whose model plays `replies`; manager events go to `managerEvents`. */
export async function drivenAgent(
  workspace: string,
  replies: Step[][],
  managerEvents: ManagerEvent[],
  options: { registry?: ProtocolRegistry; maxTurns?: number } = {},
): Promise<{ agent: Agent; provider: DrivenProvider; events: AgentEvent[]; runtime: Runtime }> {
  const runtime = await createRuntime({
    workspace,
    permissionMode: "yolo",
    env: { PATH: process.env.PATH ?? "" },
    registry: options.registry ?? (await loadBuiltinProtocols()),
    onEvent: (event) => managerEvents.push(event),
  });
  const provider = new DrivenProvider(replies);
  const events: AgentEvent[] = [];
  const agent = new Agent({ provider, manager: runtime.manager, systemPrompt: () => "system", maxTurns: options.maxTurns ?? 10, onEvent: (event) => events.push(event) });
  return { agent, provider, events, runtime };
}
