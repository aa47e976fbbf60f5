/** `clio`, `clio chat`, `clio -p "prompt"`: chat with a model, or one prompt for scripts. */
import { ClioError } from "../../grammar/errors.js";
import type { ChatFlags } from "./chat-setup.js";
import { DEFAULT_STDIN_WAIT_MS, readPipedInput } from "./input.js";
import type { InputFormat, OutputFormat } from "./print-mode.js";

export interface ChatCommandOptions extends ChatFlags {
  print?: string | boolean;
  outputFormat?: OutputFormat;
  inputFormat?: InputFormat;
  verbose?: boolean;
}

/** Exit status for a usage or configuration error. */
const EXIT_USAGE = 2;

/**
 * Errors that mean the invocation itself is wrong — no model, a bad config, a workspace, session
 * or script that does not exist — so nothing was tried: a usage error, not a failed turn.
 */
const USAGE_ERRORS = new Set(["not_configured", "invalid_config", "not_found", "not_a_directory", "invalid_argument", "ambiguous_match"]);

/** Longest delay a timer takes; anything longer (Infinity too) means waiting for as long as it takes. */
const LONGEST_TIMER_MS = 2_147_483_647;

/** CLIO_STDIN_WAIT_MS, or the default; undefined means no limit. */
function stdinWaitMs(): number | undefined {
  const configured = process.env.CLIO_STDIN_WAIT_MS?.trim() ? Number(process.env.CLIO_STDIN_WAIT_MS) : Number.NaN;
  if (Number.isNaN(configured) || configured < 0) return DEFAULT_STDIN_WAIT_MS;
  return configured > LONGEST_TIMER_MS ? undefined : configured;
}

export async function chatCommand(options: ChatCommandOptions): Promise<number> {
  try {
    if (options.print !== undefined) {
      let prompt = typeof options.print === "string" ? options.print : "";
      const printOptions = { format: options.outputFormat ?? "text", verbose: options.verbose === true } as const;
      if (options.inputFormat === "stream-json") {
        const [{ runPrintMode }, { jsonLinePrompts }] = await Promise.all([import("./print-mode.js"), import("./prompt-input.js")]);
        return await runPrintMode(jsonLinePrompts(process.stdin, prompt), options, printOptions);
      }
      if (!process.stdin.isTTY) {
        // With a prompt given, an open pipe that stays silent is not waited for forever.
        const waitMs = prompt.trim() ? stdinWaitMs() : undefined;
        const piped = await readPipedInput(waitMs);
        if (piped === undefined) {
          process.stderr.write(
            `clio: nothing arrived on standard input within ${waitMs} ms; going on with the prompt alone (run with < /dev/null to skip the wait, or set CLIO_STDIN_WAIT_MS to wait longer).\n`,
          );
        } else if (piped.trim()) {
          prompt = prompt ? `${prompt}\n\n${piped}` : piped;
        }
      }
      if (!prompt.trim()) {
        process.stderr.write('clio: -p needs a prompt: clio -p "what does this project do?" (standard input is appended when piped).\n');
        return EXIT_USAGE;
      }
      const [{ runPrintMode }, { singlePrompt }] = await Promise.all([import("./print-mode.js"), import("./prompt-input.js")]);
      return await runPrintMode(singlePrompt(prompt), options, printOptions);
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      process.stderr.write('clio: the chat needs a terminal. For scripts use clio -p "prompt" [--output-format json].\n');
      return EXIT_USAGE;
    }
    const { runInteractiveChat } = await import("../ui/chat.js");
    return await runInteractiveChat(options);
  } catch (error) {
    if (ClioError.isInstance(error)) {
      process.stderr.write(`clio: ${error.message}${error.hint ? `\n${error.hint}` : ""}\n`);
      return USAGE_ERRORS.has(error.code) ? EXIT_USAGE : 1;
    }
    throw error;
  }
}
