/**
 * `clio replay FILE…|-`: run protocol scripts against the workspace; with `--expect` compare
 * the results with recorded ones (`--update` records them), with `--dry-run` only show the plan.
 * Options are checked here; running scripts as tests lives in replay-scripts.ts.
 */
import { Workspace } from "../../tools/workspace.js";
import { loadProtocols, discoverProtocolsOf } from "../protocol-sources.js";
import { parseGitAuthor } from "../replay/deterministic.js";
import { formatPlan, planScript } from "../replay/plan.js";
import { canAsk } from "../ui/prompt.js";
import { EXIT_UNREADABLE, readInputOrReport } from "./input.js";
import { configuredRules, type ReplayCommandOptions } from "./replay-support.js";

export async function replayCommand(files: string[], options: ReplayCommandOptions): Promise<number> {
  const write = (text: string) => void process.stdout.write(`${text}\n`);
  const fail = (message: string) => {
    process.stderr.write(`clio replay: ${message}\n`);
    return EXIT_UNREADABLE;
  };
  if (options.update && !options.expect) return fail("--update needs --expect [FILE]: the expectation file to write.");
  if (options.update && options.only !== undefined) return fail("--update records the whole script; leave out --only.");
  if (options.review && (!options.expect || options.update || options.json)) return fail("--review goes through the differences with --expect: not with --update or --json.");
  if (options.review && (files.length === 0 || files.includes("-"))) return fail("--review reads its answers from standard input, so the script must come from a file.");
  if (options.acceptRefused && !options.update) return fail("--accept-refused goes with --update: it lets refused and cancelled commands be recorded.");
  if (options.freshCopy && options.workspace) return fail("give either --workspace DIR or --fresh-copy DIR, not both.");
  if (options.sessionDir && !options.fromSession) return fail("--session-dir goes with --from-session ID: the folder that holds that session.");
  if (options.gitAuthor !== undefined && parseGitAuthor(options.gitAuthor) === undefined) {
    return fail(`--git-author ${JSON.stringify(options.gitAuthor)} is not "Name <email>"; write it like --git-author "Team CI <ci@example.com>".`);
  }
  if (options.modelScript || options.fromSession) {
    if (files.length) return fail(`give either a script FILE or ${options.modelScript ? "--model-script FILE" : "--from-session ID"}, not both.`);
    if (options.expect === true) return fail("--expect needs the expectation FILE here.");
    if (options.modelScript) {
      const { replayModelScriptCommand } = await import("./replay-model-script.js");
      return replayModelScriptCommand({ ...options, modelScript: options.modelScript });
    }
    const { replaySessionCommand } = await import("./replay-session.js");
    return replaySessionCommand(options.fromSession!, options);
  }
  if (options.fuzzCheck !== undefined) {
    if (files.length !== 1 || options.expect || options.freshCopy)
      return fail("--fuzz-check replays one fuzz reproduction in its sandbox's workspace (--workspace), without --expect or --fresh-copy.");
    const { replayFuzzCheckCommand } = await import("./replay-fuzz-check.js");
    return replayFuzzCheckCommand(files[0]!, { ...options, fuzzCheck: options.fuzzCheck });
  }
  if (options.dryRun) {
    if (files.length > 1) return fail("--dry-run shows the plan of one script; give one FILE.");
    const input = await readInputOrReport(files[0], "replay");
    if ("exitCode" in input) return input.exitCode;
    // The plan uses the same rules, path forms and protocols (MCP and shell ones included) as the run.
    const { rules, extensions } = await configuredRules(options);
    const workspace = await Workspace.open(options.freshCopy ?? options.workspace ?? process.cwd());
    const registry = await loadProtocols({ ...extensions, cwd: workspace.root });
    await discoverProtocolsOf(registry, input.text);
    const plan = await planScript(input.text, { registry, mode: options.permissionMode, rules, workspace, interactive: !options.json && canAsk() });
    await registry.close();
    if (options.json) for (const command of plan.commands) write(JSON.stringify(command));
    else write(formatPlan(plan));
    return plan.commands.every((command) => command.verdict === "run" || command.verdict === "ask") ? 0 : 1;
  }
  const { replayScriptsCommand } = await import("./replay-scripts.js");
  return replayScriptsCommand(files, options);
}
