/** The chat's slash commands: /help, /model, /mode, /sessions, /resume, /fork, /undo, /rewind, /diff, /clear, /cost, /memory, /exit. */
import type { ChalkInstance } from "chalk";
import { isHistoryMarker } from "../agent/agent.js";
import { withoutReasoning } from "../agent/reasoning-split.js";
import type { Conversation } from "../agent/conversation.js";
import { PERMISSION_MODES, type PermissionMode } from "../manager/permissions.js";
import { createProvider, type CreateProviderOptions, type ProviderSettings } from "../providers/index.js";
import type { Runtime } from "../runtime.js";
import type { SessionStore } from "../sessions/index.js";
import { REASONING_MODES, type ReasoningMode, type ReasoningView } from "./reasoning-view.js";
import { diffCommand, rewindCommand, undoCommand } from "./undo-commands.js";

export interface SlashContext {
  conversation: Conversation;
  runtime: Runtime;
  store: SessionStore;
  settings: ProviderSettings;
  providerOptions: CreateProviderOptions;
  style: ChalkInstance;
  write(text: string): void;
  /** The reasoning beside the replies, for /reasoning. */
  reasoning?: ReasoningView;
  /** Runs a line of protocol commands directly, as if the person typed it. */
  runDirect(text: string): Promise<void>;
  /** Sends a prompt to the model as if the person typed it. */
  prompt(text: string): Promise<void>;
  /** Aborted by Ctrl-C while the command works. */
  signal: AbortSignal;
}

export type SlashOutcome = "continue" | "exit";

/** What /init asks of the model. */
const INIT_PROMPT = `Study this project so that a future session can work in it well: analyse its code (its languages, layout, entry points, how it is built and tested), read its README and build files (package.json scripts, Makefile, pyproject and the like). Then write CLIO.md at the workspace root: a short guide for an assistant — what the project is, where things are, the commands to build, test and lint, conventions to follow. If CLIO.md exists, read it first and improve it rather than starting over. Finally, suggest "checks" for .clio/config.json from the project's own lint and test commands (for example {"checks": {"afterEdit": ["npm run lint"], "afterTurn": ["npm test"]}}), but do not write that file.`;

/** The names the chat completes with Tab. */
export const SLASH_COMMAND_NAMES = [
  "/help",
  "/model",
  "/mode",
  "/sessions",
  "/resume",
  "/fork",
  "/init",
  "/compact",
  "/undo",
  "/rewind",
  "/diff",
  "/checks",
  "/reasoning",
  "/clear",
  "/cost",
  "/memory",
  "/exit",
];

const HELP = [
  ["/help", "this list"],
  ["/model [name]", "show the model and the server's models, or switch to another one"],
  ["/mode [plan|ask|auto-edit|yolo]", "show or change the permission mode"],
  ["/sessions", "list the sessions of this workspace"],
  ["/resume ID", "continue a recorded session (a unique prefix of its id is enough)"],
  ["/fork", "go on in a copy of this session (a new id); the original stays as it is"],
  ["/init", "let the model study the project and draft CLIO.md (and suggest checks)"],
  ["/compact", "summarise the older turns now, to free the context window"],
  ["/undo", "restore the files the last prompt changed"],
  ["/rewind [N]", "list the checkpoints, or undo checkpoint N and every later one"],
  ["/diff", "show what this session changed in files"],
  ["/checks", "show the checks that run after the model changes files"],
  ["/reasoning [collapse|show|hide]", "show the last prompt's reasoning whole, or change how reasoning shows"],
  ["/clear", "start afresh in a new session (clears the screen)"],
  ["/cost", "tokens used in this conversation"],
  ["/memory", "list what is remembered"],
  ["/exit", "leave (Ctrl-C twice does too)"],
];

export async function runSlashCommand(line: string, context: SlashContext): Promise<SlashOutcome> {
  const [name = "", ...words] = line.trim().split(/\s+/);
  const argument = words.join(" ");
  const { style, write, conversation } = context;
  switch (name) {
    case "/help":
      write(
        `${HELP.map(([command, text]) => `  ${style.cyan(command!.padEnd(34))}${text}`).join("\n")}\n  A line that is itself a command, like [FILE_OP:action=read:path="README.md"], runs directly.\n`,
      );
      return "continue";
    case "/exit":
    case "/quit":
      return "exit";
    case "/model": {
      if (!argument) {
        write(`Model ${style.bold(conversation.provider.model)} via ${conversation.provider.name} (${conversation.provider.api}).\n`);
        const models = await conversation.provider.listModels?.().catch((error: Error) => {
          write(`${style.yellow("!")} The server did not list its models: ${error.message}\n`);
          return undefined;
        });
        if (models?.length)
          write(`The server offers: ${models.map((model) => (model === conversation.provider.model ? style.bold(model) : model)).join(", ")}. Switch with /model NAME.\n`);
        return "continue";
      }
      const provider = await createProvider({ ...context.settings, model: argument }, context.providerOptions);
      await conversation.switchProvider(provider);
      write(`Now using ${style.bold(argument)}.\n`);
      return "continue";
    }
    case "/mode": {
      if (!argument) {
        write(`Permission mode: ${style.bold(context.runtime.permissions.mode)} (one of ${PERMISSION_MODES.join(", ")}).\n`);
        return "continue";
      }
      if (!(PERMISSION_MODES as readonly string[]).includes(argument)) {
        write(`${style.red("✗")} Unknown mode ${argument}: use one of ${PERMISSION_MODES.join(", ")}.\n`);
        return "continue";
      }
      context.runtime.permissions.mode = argument as PermissionMode;
      write(`Permission mode is now ${style.bold(argument)}.\n`);
      return "continue";
    }
    case "/sessions": {
      const listing = await context.store.list({ workspace: context.runtime.environment.workspace.root });
      if (!listing.sessions.length) write("No sessions yet for this workspace.\n");
      for (const session of listing.sessions.slice(0, 20)) {
        const current = session.id === conversation.session?.id ? style.green(" (current)") : "";
        write(
          `  ${style.cyan(session.id)}  ${session.updatedAt.slice(0, 16).replace("T", " ")}  ${session.messageCount} messages  ${session.title || style.dim("(no prompt yet)")}${current}\n`,
        );
      }
      return "continue";
    }
    case "/resume": {
      if (!argument) {
        write("Give the session's id (or a unique prefix): /resume ID. /sessions lists them.\n");
        return "continue";
      }
      const session = await context.store.open(argument);
      await conversation.resume(session);
      write(`Resumed ${style.cyan(session.id)}: ${session.title || "(untitled)"} — ${session.data.messages.length} messages.\n`);
      write(lastReplyLine(session.data.messages, style));
      return "continue";
    }
    case "/fork": {
      const original = await conversation.fork(context.store);
      if (original === undefined) write("Nothing to fork yet: this session has no prompt. Fork once there is something to branch from.\n");
      else write(`Forked ${style.cyan(original)} into ${style.cyan(conversation.session!.id)}; going on in the copy. The original stays as it was: clio -r ${original}\n`);
      return "continue";
    }
    case "/init":
      await context.prompt(INIT_PROMPT);
      return "continue";
    case "/compact": {
      const replaced = await conversation.compact(context.signal);
      write(replaced ? "" : "Nothing to compact yet: the conversation is short.\n");
      return "continue";
    }
    case "/undo":
      await undoCommand(context);
      return "continue";
    case "/rewind":
      await rewindCommand(argument, context);
      return "continue";
    case "/diff":
      await diffCommand(context);
      return "continue";
    case "/checks": {
      const checks = conversation.checks;
      if (!checks) write('No checks are configured. Add them to .clio/config.json: {"checks": {"afterEdit": ["npm run lint"], "afterTurn": ["npm test"]}}.\n');
      else
        write(
          `After each change: ${checks.afterEdit.join(", ") || style.dim("none")}\nAt the end of a prompt that changed files: ${checks.afterTurn.join(", ") || style.dim("none")}\n`,
        );
      return "continue";
    }
    case "/reasoning":
      reasoningCommand(argument, context);
      return "continue";
    case "/clear":
      await conversation.clear();
      // The screen is cleared too (and its scrollback), like a new chat.
      write(`${style.level > 0 || process.stdout.isTTY ? "\x1b[2J\x1b[3J\x1b[H" : ""}Started afresh.\n`);
      return "continue";
    case "/cost": {
      const usage = conversation.session?.data.usage.totals ?? { ...conversation.usage, estimated: false };
      write(`Tokens: ${usage.inputTokens.toLocaleString("en-US")} in, ${usage.outputTokens.toLocaleString("en-US")} out${usage.estimated ? " (partly estimated)" : ""}.\n`);
      return "continue";
    }
    case "/memory": {
      const memory = context.runtime.registry.names().find((protocol) => context.runtime.registry.action(protocol, "list") && /memor/i.test(protocol));
      if (!memory) write("No memory protocol is registered.\n");
      else await context.runDirect(`[${memory}:action=list]`);
      return "continue";
    }
    default:
      write(`${style.red("✗")} Unknown command ${name}. /help lists the commands.\n`);
      return "continue";
  }
}

/** `/reasoning` shows the last prompt's reasoning; `/reasoning MODE` changes how reasoning shows from now on. */
function reasoningCommand(argument: string, { reasoning, style, write }: SlashContext): void {
  if (!reasoning) {
    write("Reasoning is not shown here.\n");
    return;
  }
  if (!argument) {
    reasoning.showLast();
    return;
  }
  if (!(REASONING_MODES as readonly string[]).includes(argument)) {
    write(`${style.red("✗")} /reasoning takes one of ${REASONING_MODES.join(", ")}; /reasoning alone shows the last prompt's reasoning.\n`);
    return;
  }
  reasoning.mode = argument as ReasoningMode;
  write(`Reasoning is now ${argument === "collapse" ? "collapsed to a line" : argument === "show" ? "shown whole as it comes" : "hidden"}.\n`);
}

/** The start of what the last reply of a resumed session said (its reasoning blocks left out), or "" when none did. */
export function lastReplyLine(messages: readonly { role: string; content: string }[], style: ChalkInstance): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "assistant" || isHistoryMarker(message.content)) continue;
    const said = withoutReasoning(message.content).trim();
    if (said) return style.dim(`Last reply: ${said.slice(0, 300)}${said.length > 300 ? "…" : ""}\n`);
  }
  return "";
}
