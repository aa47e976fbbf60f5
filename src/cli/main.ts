/**
 * The `clio` command line. Each subcommand loads its code only when it runs, so `clio --version`
 * stays as cheap as starting node.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { version } from "../version.js";

const PERMISSION_MODES = ["plan", "ask", "auto-edit", "yolo"];

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError("expected a whole number of 1 or more.");
  return parsed;
}

const program = new Command("clio")
  .version(version, "-v, --version")
  .description("A protocol-first terminal coding assistant: any model does real work by writing [PROTOCOL:action=...] commands.")
  .showHelpAfterError();

program
  .command("parse")
  .description("find the protocol commands in a text (a model reply, a script) and report them")
  .argument("[file]", "the text to parse; - or nothing for standard input")
  .option("--json", "print one JSON object {commands, mentions, errors}")
  .option("--chunk <n>", "feed the text to the streaming scanner n characters at a time", positiveInteger)
  .action(async (file: string | undefined, options: { json?: boolean; chunk?: number }) => {
    const { parseCommand } = await import("./parse-command.js");
    process.exitCode = await parseCommand(file, options);
  });

program
  .command("replay")
  .description("run every command of a protocol script, in order, against the workspace")
  .argument("[file]", "the script (any text in the protocol language, markdown included; - for standard input)")
  .option("-w, --workspace <dir>", "the workspace root (default: the current folder)")
  .option("--fresh-copy <dir>", "copy this fixture folder into a new temporary workspace, replay there, then remove it")
  .addOption(new Option("--permission-mode <mode>", "plan | ask | auto-edit | yolo (ask refuses without a terminal)").choices(PERMISSION_MODES).default("ask"))
  .option("--json", "print one JSON object per command result, one per line")
  .option("--stop-on-error", "stop at the first command that fails")
  .option("--expect <file>", "compare every result with this expectation file; exit 1 on any difference")
  .option("--update", "with --expect: write (or rewrite) the expectation file from this run")
  .option("--dry-run", "parse, check and show which commands would run, ask or be refused; run nothing")
  .option("--from-session <id>", "re-run the commands a session recorded and compare with its results")
  .action(async (file: string | undefined, options) => {
    const { replayCommand } = await import("./replay-command.js");
    process.exitCode = await replayCommand(file, options);
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
  .action(async (options) => {
    const { fuzzCommand } = await import("./fuzz-command.js");
    process.exitCode = await fuzzCommand(options);
  });

program.exitOverride((error) => {
  process.exit(error.exitCode === 0 ? 0 : 2);
});

await program.parseAsync(process.argv);
