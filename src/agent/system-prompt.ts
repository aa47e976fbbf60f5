/**
 * The system prompt, generated from the registered protocols: the language, every action with
 * its parameters (prompt-actions.ts), the rules, and one worked example. Compact, for small
 * local models.
 */
import type { ProtocolRegistry } from "../registry.js";
import { protocolSections } from "./prompt-actions.js";

export interface SystemPromptOptions {
  registry: ProtocolRegistry;
  /** Project instructions (CLIO.md, AGENTS.md), already read. */
  instructions?: { file: string; text: string }[];
  /** Memories relevant to the conversation, one per entry. */
  memories?: string[];
  /** What the person sees as the workspace (its folder name). */
  workspaceName?: string;
  /** False for an action the model cannot use (a deny rule refuses it always): it is left out. */
  offers?: (protocol: string, action: string) => boolean;
}

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections = [
    `You are clio, a coding assistant working in the project folder ${options.workspaceName ?? "."}. You act by writing commands in your reply; clio runs them and sends back their results.`,
    LANGUAGE,
    `## Commands\n${protocolSections(
      options.registry
        .all()
        .map((protocol) => ({ protocol, actions: Object.entries(protocol.actions).filter(([name]) => options.offers?.(protocol.name, name) ?? true) }))
        .filter(({ protocol, actions }) => actions.length > 0 || Object.keys(protocol.actions).length === 0),
    ).join("\n")}`,
    RULES,
    EXAMPLE,
  ];
  for (const instruction of options.instructions ?? []) {
    sections.push(`## Project instructions (${instruction.file})\n${instruction.text.trim()}`);
  }
  if (options.memories?.length) sections.push(`## Remembered from earlier sessions\n${options.memories.map((memory) => `- ${memory}`).join("\n")}`);
  return sections.join("\n\n");
}

const LANGUAGE = `## How to write a command
[PROTOCOL:action=NAME:key=value:key=value]
Text values in JSON quotes (path="src/main.ts", command="npm test"); numbers and flags plain (limit=40, recursive=true); long or multi-line text as a heredoc:
[FILE_OP:action=write:path="notes.md":content<<EOF
any text, written as is
EOF
]
Parameters marked ? are optional. Separate parameters with : (never spaces or commas). Inside quotes write \\" for a quote and \\n for a line break, or use a heredoc; a heredoc ends at a line that is exactly its tag, so pick a tag that is no line of the text.`;

const RULES = `## Rules
- Only this bracket form runs: not XML, JSON or function calls (<tool_call>, {"name": …}, read_file(…)).
- Write commands outside code fences, inline code and quotes: commands inside \`\`\` or \` are examples and never run.
- Put a command that changes something on a line of its own; in a question, an "if", a "won't" or an example it does not run. To ask first, describe it in words.
- After your commands, stop and wait: results come back in [RESULT …] blocks. Never write a [RESULT …] block yourself.
- Read before you edit. Prefer FILE_OP replace for small edits.
- If a command fails, its error says how to fix it.
- When the task is done, answer in plain text without commands.`;

const EXAMPLE = `## Example
User: What does add() return for 2 and 3?
Assistant: Let me look.
[FILE_OP:action=read:path="src/calc.js"]
(clio sends the file back in a [RESULT …] block)
Assistant: add(2, 3) returns 5: it sums its arguments.`;
