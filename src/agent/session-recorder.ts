/** Writes a conversation into a session file as it happens. */
import type { ChatMessage } from "../providers/types.js";
import type { CommandResult } from "../manager/result.js";
import type { Session } from "../sessions/index.js";
import type { ConversationRecorder } from "./agent.js";
import { forHistory } from "./reasoning-split.js";

export function sessionRecorder(session: Session): ConversationRecorder {
  return {
    async message(message: ChatMessage, turn: number, reasoning?: string) {
      await session.appendMessage({ role: message.role, content: message.content, turn, ...(reasoning ? { reasoning } : {}) });
    },
    async command(result: CommandResult, turn: number) {
      await session.appendCommand({
        protocol: result.protocol,
        action: result.action ?? "",
        ...(result.args ? { args: result.args } : {}),
        description: result.description,
        ok: result.ok,
        output: result.output,
        ...(result.error ? { error: result.error } : {}),
        durationMs: result.durationMs,
        turn,
      });
    },
    async usage(turn, usage) {
      await session.addUsage({ turn, ...usage });
    },
  };
}

/** The messages of a recorded session, as the model saw them (system messages are rebuilt, reasoning left out). */
export function sessionHistory(session: Session): ChatMessage[] {
  return session.data.messages
    .filter((message) => message.role === "user" || message.role === "assistant")
    .map((message) => forHistory({ role: message.role as "user" | "assistant", content: message.content }));
}
