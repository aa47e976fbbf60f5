/**
 * The `clio` command line. Each subcommand loads its code only when it runs, so `clio --version`
 * stays as cheap as starting node.
 */
import { Argument, Command, InvalidArgumentError, Option } from "commander";
import { version } from "../version.js";
import { signalsClaimed } from "./interrupts.js";

const PERMISSION_MODES = ["plan", "ask", "auto-edit", "yolo"];
const TRUST_PROJECT_HELP = "let this folder's own .clio/config.json and .mcp.json loosen permissions and start their servers for this run (see trustedFolders)";

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError("expected a whole number of 1 or more.");
  return parsed;
}

/**
 * `--debug` (anywhere before a lone `--`) and CLIO_LOG_LEVEL start the log before any command
 * runs; `--debug` also copies it to stderr. Taken out of the arguments here, so every command has it.
 */
async function startLoggingFromArguments(argv: string[]): Promise<void> {
  const end = argv.indexOf("--");
  const at = argv.indexOf("--debug");
  const debug = at !== -1 && (end === -1 || at < end);
  if (debug) argv.splice(at, 1);
  const fromEnvironment = process.env.CLIO_LOG_LEVEL?.trim();
  if (!debug && (fromEnvironment === undefined || fromEnvironment === "")) return;
  const { isLogLevel, log, logFileFor, startLogging } = await import("../log.js");
  if (!debug && !isLogLevel(fromEnvironment)) {
    process.stderr.write(`clio: CLIO_LOG_LEVEL=${JSON.stringify(process.env.CLIO_LOG_LEVEL)} is not a log level; use error, warn, info or debug.\n`);
    process.exit(2);
  }
  startLogging({ level: debug ? "debug" : (fromEnvironment as "error"), stderr: debug });
  const shown = argv.slice(2).map((argument, index, all) => (all[index - 1] === "--api-key" ? "****" : argument.replace(/^(--api-key=).*/, "$1****")));
  log.info(`clio ${version} started`, { arguments: shown, cwd: process.cwd(), node: process.version, log: logFileFor() });
}

/**
 * Ends a command that has done all its work: exits as soon as what it wrote to stdout and stderr
 * has gone out (a pipe to a slow reader holds writes back), skipping the teardown of the heap that
 * waiting for the event loop to empty goes through (about 7 ms of a replay's fresh process). Exit
 * hooks still run.
 */
async function exitOnceWritten(code: number): Promise<never> {
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write("", () => resolve()))));
  process.exit(code);
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError("expected a number above 0, e.g. 30 or 0.5.");
  return parsed;
}

function sampleNumber(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed)) throw new InvalidArgumentError("expected a number, e.g. 0.2.");
  return parsed;
}

const program = new Command("clio")
  .version(version, "-v, --version")
  .description("A protocol-first terminal coding assistant: any model does real work by writing [PROTOCOL:action=...] commands.")
  .addHelpText(
    "after",
    "\nAdd --debug to any command to log requests, timings and decisions to ~/.clio/clio.log and stderr\n(CLIO_LOG_LEVEL=error|warn|info|debug logs to the file only).",
  )
  .showHelpAfterError()
  .enablePositionalOptions()
  // Set before the subcommands are added, so they inherit it: every usage error exits 2.
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

program
  .command("parse")
  .description("find the protocol commands in a text (a model reply, a script) and report them")
  .argument("[file]", "the text to parse; - or nothing for standard input")
  .option("--json", "print one JSON object {commands, mentions, errors}")
  .option("--chunk <n>", "feed the text to the streaming scanner n characters at a time", positiveInteger)
  .action(async (file: string | undefined, options: { json?: boolean; chunk?: number }) => {
    const { parseCommand } = await import("./parse-command.js");
    await exitOnceWritten(await parseCommand(file, options));
  });

program
  .command("replay")
  .description("run every command of a protocol script, in order, against the workspace")
  .argument("[files...]", "the scripts (any text in the protocol language, markdown included), or globs clio expands; - for standard input")
  .option("-w, --workspace <dir>", "the workspace root (default: the current folder)")
  .option("--fresh-copy <dir>", "copy this fixture folder into a new temporary workspace, replay there, then remove it")
  .addOption(new Option("--permission-mode <mode>", "plan | ask | auto-edit | yolo (ask refuses without a terminal)").choices(PERMISSION_MODES).default("ask"))
  .option("--json", "print one JSON object per command result, one per line")
  .option("--stop-on-error", "stop at the first command that fails")
  .option("--expect [file]", "compare every result with this expectation file (without FILE: NAME.expected.json beside each script); exit 1 on any difference")
  .option("--update", "with --expect: write (or rewrite) the expectation file from this run")
  .option("--accept-refused", "with --update: record commands refused for want of permission, or cancelled, instead of refusing to write")
  .option("--jobs <n>", "scripts run at once (default 1)", positiveInteger)
  .option("--junit <file>", "also write a JUnit XML report (one test case per command, one suite per script)")
  .option("--show-all", "show every difference, not the first three")
  .option("--fuzz-check [mode]", "replaying a clio fuzz reproduction: check the robustness property again and say whether it still fails (mode: allow-internal-errors)")
  .option("--review", "with --expect: go through the differences after the run and accept (a), accept all (A), skip (s) or quit (q)")
  .option("--only <line|text>", "run only the command standing on this line, or the commands whose text contains this text")
  .option("--dry-run", "parse, check and show which commands would run, ask or be refused; run nothing")
  .option("--from-session <id>", "re-run the commands a session recorded and compare with its results")
  .option("--session-dir <dir>", "with --from-session: where sessions are stored (default from clio config)")
  .option("--model-script <file>", "play recorded model replies (JSON, or markdown split by --- reply --- lines) through the real agent loop")
  .option("--prompt <text>", "with --model-script: the person's prompt the replies answer")
  .option("--trust-project", TRUST_PROJECT_HELP)
  .option("--git-author <author>", 'the author of the commits the script makes, as "Name <email>" (default "Clio Replay <replay@example.com>")')
  .action(async (files: string[], options) => {
    const { replayCommand } = await import("./replay-command.js");
    await exitOnceWritten(await replayCommand(files, options));
  });

program
  .command("demo")
  .description("show the interpreter at work on a recorded model reply, offline")
  .action(async () => {
    const { demoCommand } = await import("./demo-command.js");
    process.exitCode = await demoCommand();
  });

program
  .command("fuzz")
  .description("property-check the grammar and every protocol with random and malformed commands in throwaway workspaces")
  .option("--runs <n>", "random cases per property (default 100)", positiveInteger)
  .option("--seed <n>", "the random seed, to reproduce a run (default: random, printed)", (value: string) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed)) throw new InvalidArgumentError("expected a whole number.");
    return parsed;
  })
  .addOption(new Option("--target <target>", "what to fuzz").choices(["grammar", "protocols", "all"]).default("all"))
  .option("--protocol <name>", "fuzz only this protocol (with --target protocols or all)")
  .option("--allow-internal-errors", "do not count internal_error results (untyped exceptions a handler let escape) as failures")
  .option("--time <seconds>", "a time budget for the whole run, shared by the properties (runs are then bounded by the clock)", positiveInteger)
  .option("--corpus <dir>", "a folder of saved failures: checked again first, and every new shrunk case saved there")
  .option("--junit <file>", "also write a JUnit XML report (one test case per property and corpus case)")
  .option("--grammar <module>", "check the grammar laws against the grammar this module exports (parse, print, scan) instead of clio's")
  .action(async (options) => {
    const { fuzzCommand } = await import("./fuzz-command.js");
    process.exitCode = await fuzzCommand(options);
  });

function addChatOptions(command: Command): Command {
  return command
    .option("-p, --print [prompt]", "run one prompt without a chat (standard input is appended when piped), print the answer and exit")
    .addOption(new Option("--output-format <format>", "with -p: text | json | stream-json").choices(["text", "json", "stream-json"]).default("text"))
    .addOption(new Option("--input-format <format>", "with -p: text, or stream-json (prompts as JSON lines on standard input)").choices(["text", "stream-json"]).default("text"))
    .option("--verbose", "with -p and text output: the transcript (replies, command results) on stderr")
    .option("--provider <name>", "openai, deepseek, openrouter, ollama, llamacpp, vllm, lmstudio, or custom with --base-url")
    .option("--base-url <url>", "any OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    .option("--api-key <key>", "the API key (better: the provider's environment variable)")
    .option("--model <name>", "the model to use")
    .addOption(new Option("--api <api>", "chat (chat completions) or completions (base and completion-only models)").choices(["chat", "completions"]))
    .option("--script <file>", "play recorded model replies from this file instead of calling a model (scripted provider)")
    .addOption(new Option("--permission-mode <mode>", "plan | ask | auto-edit | yolo").choices(PERMISSION_MODES))
    .option("-w, --workspace <dir>", "the workspace root (default: the current folder)")
    .option("--max-turns <n>", "model calls per prompt (default 25)", positiveInteger)
    .option("--context-window <tokens>", "the model's context window; older turns are summarised near it", positiveInteger)
    .option("--request-timeout <seconds>", "how long to wait for the model server's first byte before trying again (default 600)", positiveNumber)
    .option("--idle-timeout <seconds>", "how long a reply may go silent between chunks before it is taken as broken (default 120)", positiveNumber)
    .option("--temperature <t>", "sampling temperature sent with every request (0 to 2)", sampleNumber)
    .option("--top-p <p>", "nucleus sampling top_p sent with every request (above 0, at most 1)", sampleNumber)
    .option("--max-tokens <n>", "most tokens one reply may have", positiveInteger)
    .option("--stop <text>", "an extra stop string (repeat for more)", (value: string, previous: string[] = []) => [...previous, value])
    .option("--system-prompt-file <file>", "a file whose text extends the built-in system prompt (or replaces it with --system-prompt-mode replace)")
    .addOption(new Option("--system-prompt-mode <mode>", "extend (default) or replace the built-in system prompt with the file").choices(["extend", "replace"]))
    .option("-c, --continue", "continue the latest session of this workspace")
    .option("-r, --resume <id>", "continue a session by id (a unique prefix is enough)")
    .option("--fork-session", "with -c or -r: continue in a copy of the session (records and undo checkpoints) under a new id, leaving the original as it was")
    .option("--session-dir <dir>", "where sessions are stored (default ~/.clio/sessions)")
    .option("--trust-project", TRUST_PROJECT_HELP);
}

async function runChat(options: Record<string, unknown>): Promise<void> {
  const { chatCommand } = await import("./chat-command.js");
  process.exitCode = await chatCommand(options);
}

addChatOptions(program).action(runChat);
addChatOptions(program.command("chat").description("chat with a model in the terminal (the default command)")).action(runChat);

program
  .command("start")
  .description("what npm start runs: the chat when a model is configured, otherwise the offline demo")
  .action(async () => {
    const { startCommand } = await import("./start-command.js");
    process.exitCode = await startCommand();
  });

program
  .command("sessions")
  .description("list, show, delete or export recorded sessions")
  .addArgument(new Argument("[verb]", "what to do (default list)").choices(["list", "show", "delete", "export"]).default("list"))
  .argument("[id]", "the session id (a unique prefix is enough)")
  .option("--format <format>", "for export: markdown | script | replies", "markdown")
  .option("--all", "for list: every workspace's sessions")
  .option("--session-dir <dir>", "where sessions are stored")
  .action(async (verb: string, id: string | undefined, options) => {
    const { sessionsCommand } = await import("./sessions-command.js");
    process.exitCode = await sessionsCommand(verb, id, options);
  });

program
  .command("protocols")
  .description("list the protocols, their actions and parameters (what a model can do)")
  .argument("[name]", "only this protocol")
  .option("--markdown", "print as markdown (docs/protocols.md is made this way)")
  .option("--trust-project", TRUST_PROJECT_HELP)
  .action(async (name: string | undefined, options: { markdown?: boolean; trustProject?: boolean }) => {
    const { protocolsCommand } = await import("./protocols-command.js");
    process.exitCode = await protocolsCommand(name, options);
  });

program
  .command("login")
  .description("sign in to a provider that needs it: clio login copilot (GitHub's device flow; the token is kept in ~/.clio/copilot.json, 0600)")
  .addArgument(new Argument("<provider>", "the provider to sign in to").choices(["copilot"]))
  .action(async () => {
    const { loginCommand } = await import("./login-command.js");
    process.exitCode = await loginCommand();
  });

addChatOptions(program.command("config").description("print the settings in force and where each came from (chat flags given here count too)")).action(
  async (options: Record<string, unknown>) => {
    const { configCommand } = await import("./config-command.js");
    process.exitCode = await configCommand(options);
  },
);

// A reader that stops early (clio parse … | head) closes the pipe: stop quietly, as other
// command-line tools do, rather than crash with an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

// Exit through process.exit on termination signals, so exit hooks run: session locks are
// released and background jobs' process groups are killed. A command that watches for
// interruptions itself (src/cli/interrupts.ts) cancels its work and exits on its own.
for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  process.on(signal, () => {
    if (!signalsClaimed()) process.exit(code);
  });
}

/** Runs the command line (no top-level await: the entry is also bundled as CommonJS, see scripts/build.mjs). */
async function main(): Promise<void> {
  await startLoggingFromArguments(process.argv);
  await program.parseAsync(process.argv);
}

void main();
