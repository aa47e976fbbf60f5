/**
 * The interactive chat: a prompt line, streamed replies, commands as action descriptions,
 * permission questions, slash commands, and Ctrl-C that cancels the turn (a second one exits).
 */
import { createInterface, type Interface } from "node:readline/promises";
import path from "node:path";
import { setUpChat, type ChatFlags, type ChatSetup } from "../cli/chat-setup.js";
import type { PermissionAnswer, PermissionRequest } from "../manager/permissions.js";
import { scriptSubmissions } from "../replay/replay.js";
import { startsWithCommand } from "../../grammar/command-start.js";
import { isShowAll, parsePermissionAnswer, permissionPreview, permissionQuestion } from "./prompt.js";
import { attachMentionedFiles } from "../agent/attachments.js";
import type { Conversation } from "../agent/conversation.js";
import { runPersonCommand } from "../agent/person-command.js";
import { chatCompleter } from "./completion.js";
import { BRACKETED_PASTE, PasteCollector } from "./paste.js";
import { runSlashCommand, SLASH_COMMAND_NAMES } from "./slash-commands.js";
import { reasoningModeFrom } from "./reasoning-view.js";
import { createStyle } from "./style.js";
import { TerminalView } from "./terminal-view.js";

export async function runInteractiveChat(flags: ChatFlags): Promise<number> {
  const style = createStyle(process.stdout);
  const write = (text: string) => void process.stdout.write(text);
  // CLIO_REASONING=show|hide: reasoning whole as it comes, or off the screen; by default collapsed to a line (always recorded).
  const view = new TerminalView({ style, output: process.stdout, reasoning: reasoningModeFrom(process.env.CLIO_REASONING) });
  // Pastes arrive whole (bracketed paste); the terminal itself goes raw, as readline would set it.
  const input = new PasteCollector();
  process.stdin.setRawMode?.(true);
  process.stdin.pipe(input);
  write(BRACKETED_PASTE.on);
  let workspaceRoot = process.cwd();
  const readline: Interface = createInterface({
    input,
    output: process.stdout,
    terminal: true,
    historySize: 200,
    completer: (line: string) => chatCompleter(workspaceRoot, SLASH_COMMAND_NAMES)(line),
  });
  let turn: AbortController | undefined;
  /** The permission question on screen, if any: cancelling the turn or leaving withdraws it. */
  let question: AbortController | undefined;
  let interrupts = 0;
  let closed = false;
  /** Lines typed while clio was busy: each becomes the next prompt, in order, instead of being lost. */
  const typedAhead: string[] = [];
  /** A prompt that could not be sent, put back on the input line to be fixed. */
  let typedAheadEdit: string | undefined;
  readline.on("line", (line) => typedAhead.push(line));
  readline.on("close", () => {
    closed = true;
    turn?.abort();
    question?.abort();
  });
  readline.on("SIGINT", () => {
    interrupts++;
    if (turn && interrupts === 1) {
      turn.abort();
      question?.abort();
      write(`\n${style.yellow("Cancelling… (Ctrl-C again to exit)")}\n`);
      return;
    }
    if (interrupts >= 2) {
      write("\n");
      readline.close();
      return;
    }
    write(`\n${style.dim("(Ctrl-C again or /exit to quit)")}\n`);
    readline.write("", { ctrl: true, name: "u" });
  });

  const asker = async (request: PermissionRequest): Promise<PermissionAnswer> => {
    // The reply that holds the command is drawn whole before anything is asked about it.
    view.beforeQuestion();
    const preview = permissionPreview(request, style);
    write(preview.text);
    for (;;) {
      if (closed || turn?.signal.aborted) return "no";
      question = new AbortController();
      let answer: PermissionAnswer | undefined;
      try {
        const reply = await readline.question(permissionQuestion(request, style, preview.hidden), { signal: question.signal });
        if (preview.hidden && isShowAll(reply)) write(permissionPreview(request, style, Number.POSITIVE_INFINITY).text);
        answer = parsePermissionAnswer(reply);
      } catch {
        // Withdrawn (Ctrl-C, Ctrl-D, the terminal closed): nothing is allowed.
        return "no";
      } finally {
        question = undefined;
      }
      if (answer) return answer;
    }
  };

  const setup = await setUpChat(flags, {
    asker,
    confirmTrust: async (text) => /^\s*y(es)?\s*$/i.test(await readline.question(`${style.yellow("?")} ${text}`).catch(() => "")),
    warn: (text) => write(`${style.yellow("!")} ${text}\n`),
    onAgentEvent: (event) => view.onAgentEvent(event),
    onManagerEvent: (event) => view.onManagerEvent(event),
  });
  const { conversation, runtime, store, settings, providerOptions } = setup;
  workspaceRoot = runtime.environment.workspace.root;
  // A command the person typed is a turn of its own: Ctrl-C cancels it like a prompt.
  const promptModel = async (text: string) => {
    turn = new AbortController();
    await conversation.prompt(text, turn.signal);
  };
  const runDirect = async (text: string) => {
    turn = new AbortController();
    await conversation.beginCheckpoint(text);
    await runtime.manager.runAll(scriptSubmissions(text).submissions, turn.signal);
    await conversation.checkpoints?.flush();
  };
  write(
    `${style.bold("clio")} ${style.dim("·")} ${conversation.provider.model} via ${conversation.provider.name} ${style.dim("·")} ${path.basename(runtime.environment.workspace.root)} ${style.dim("·")} mode ${runtime.permissions.mode}\n${style.dim("Type a request, /help for commands, Ctrl-C to cancel.")}\n`,
  );
  for (const warning of projectPermissionWarnings(setup.config)) write(`${style.yellow("!")} ${warning}\n`);
  if (conversation.session) write(style.dim(`Continuing session ${conversation.session.id} (${conversation.session.data.messages.length} messages).\n`));

  try {
    while (!closed) {
      let line: string;
      try {
        const editing = typedAheadEdit;
        typedAheadEdit = undefined;
        if (editing !== undefined && !typedAhead.length) setImmediate(() => readline.write(editing));
        line = typedAhead.shift() ?? (await readline.question(`${style.cyan("›")} `));
      } catch {
        break;
      }
      interrupts = 0;
      while (line.endsWith("\\") && !closed) line = `${line.slice(0, -1)}\n${typedAhead.shift() ?? (await readline.question(`${style.dim("…")} `))}`;
      const text = input.expand(line).trim();
      if (!text) continue;
      try {
        if (text.startsWith("!")) {
          turn = new AbortController();
          await runOwnCommand(text.slice(1).trim(), { conversation, workspaceRoot, style, write, signal: turn.signal });
          continue;
        }
        if (text.startsWith("/")) {
          if (
            (await runSlashCommand(text, {
              conversation,
              runtime,
              store,
              settings,
              providerOptions,
              style,
              write,
              runDirect,
              reasoning: view.reasoning,
              prompt: promptModel,
              signal: (turn = new AbortController()).signal,
            })) === "exit"
          )
            break;
          continue;
        }
        if (isDirectCommand(text)) {
          await runDirect(text);
          continue;
        }
        const attached = await attachMentionedFiles(text, runtime.environment.workspace);
        if ("error" in attached) {
          // Nothing is sent; the prompt comes back to the input line to be fixed.
          write(`${style.red("✗")} ${attached.error}\n`);
          typedAheadEdit = line;
          continue;
        }
        if (attached.attached.length) write(style.dim(`· attached ${attached.attached.join(", ")}\n`));
        turn = new AbortController();
        await conversation.prompt(attached.prompt, turn.signal);
      } catch (error) {
        view.pause();
        write(`${style.red("✗")} ${(error as Error).message}\n`);
      } finally {
        turn = undefined;
        interrupts = 0;
      }
    }
  } finally {
    readline.close();
    write(BRACKETED_PASTE.off);
    process.stdin.unpipe(input);
    process.stdin.setRawMode?.(false);
    process.stdin.pause();
    if (conversation.session) write(style.dim(`Resume this conversation with: clio -r ${conversation.session.id}\n`));
    await conversation.close();
    await runtime.manager.dispose();
  }
  return 0;
}

/** `!command`: runs it as the person, shows its output as it comes, and adds it to the conversation. */
async function runOwnCommand(
  command: string,
  context: { conversation: Conversation; workspaceRoot: string; style: ChatStyle; write(text: string): void; signal: AbortSignal },
): Promise<void> {
  const { style, write } = context;
  if (!command) return write(`${style.red("✗")} Give a shell command after !, e.g. !git status. Standard input is closed: interactive programs end at once.\n`);
  let lastCharacter = "\n";
  // What it changes in the workspace is kept like a prompt's changes: /undo takes it back.
  const watched = await context.conversation.watchOwnCommand(`!${command}`);
  const result = await runPersonCommand(command, context.workspaceRoot, context.signal, (text) => {
    write(style.dim(text));
    lastCharacter = text.at(-1) ?? lastCharacter;
  }).finally(watched);
  if (lastCharacter !== "\n") write("\n");
  write(`${result.exitCode === 0 ? style.green("✓") : style.red("✗")} ${result.summary} ${style.dim("(added to the conversation)")}\n`);
  await context.conversation.addContext(result.context);
}

type ChatStyle = ReturnType<typeof createStyle>;

/**
 * A project's own config file can loosen permissions; a person who opens a cloned repository
 * should see that before anything runs.
 */
export function projectPermissionWarnings(resolved: ChatSetup["config"]): string[] {
  const warnings: string[] = [];
  const modeSource = resolved.sources.permissionMode;
  if (modeSource.startsWith("project:") && resolved.config.permissionMode !== "ask" && resolved.config.permissionMode !== "plan") {
    warnings.push(`Permission mode ${resolved.config.permissionMode} comes from the project's own ${modeSource.slice("project:".length)}.`);
  }
  const allowed = resolved.entries.filter((entry) => entry.key === "permissions.allow" && entry.source.startsWith("project:"));
  if (allowed.length) warnings.push(`The project's config allows without asking: ${allowed.map((entry) => String(entry.value)).join(", ")}.`);
  return warnings;
}

/** True when the person's line is a protocol command to run directly rather than a prompt. */
export function isDirectCommand(text: string): boolean {
  return startsWithCommand(text.trim());
}
