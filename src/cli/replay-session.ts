/**
 * `clio replay --from-session ID`: re-run the commands a session recorded, in the workspace
 * given (or a fresh copy of a fixture), and compare each result with the one the session kept.
 */
import { ClioError } from "../../grammar/errors.js";
import { loadConfig } from "../config/index.js";
import { formatDifferences } from "../replay/difference-report.js";
import { compareResults } from "../replay/compare.js";
import { runScript } from "../replay/run-script.js";
import { sessionCheck, sessionScriptName, withShortenedOutputsIgnored } from "../replay/session-replay.js";
import { SessionStore, type SessionData } from "../sessions/index.js";
import { createStyle } from "../ui/style.js";
import { EXIT_UNREADABLE } from "./input.js";
import { formatResult, jsonResult, summaryLine, type ReplayCommandOptions } from "./replay-support.js";

/** Reads a session's data by id or unique prefix without locking it: a clio that has it open keeps it. */
export async function readSession(directory: string, idOrPrefix: string): Promise<Readonly<SessionData>> {
  return new SessionStore(directory).read(idOrPrefix);
}

export async function replaySessionCommand(idOrPrefix: string, options: ReplayCommandOptions): Promise<number> {
  const write = (text: string) => void process.stdout.write(`${text}\n`);
  const fail = (message: string) => {
    process.stderr.write(`clio replay: ${message}\n`);
    return EXIT_UNREADABLE;
  };
  if (options.expect || options.update || options.dryRun) return fail("--from-session compares with the session itself; it does not take --expect, --update or --dry-run.");
  let data: Readonly<SessionData>;
  try {
    const { config } = await loadConfig({ cwd: process.cwd(), ...(options.sessionDir ? { flags: { sessionDir: options.sessionDir } } : {}) });
    data = await readSession(config.sessionDir, idOrPrefix);
  } catch (error) {
    if (ClioError.isInstance(error)) return fail(error.hint ? `${error.message} ${error.hint}` : error.message);
    throw error;
  }
  const check = sessionCheck(data);
  const leftOut = leftOutNote(check.leftOut);
  if (!check.expectations.results.length) {
    write(`Session ${data.id} recorded no commands that ran${leftOut === "" ? "" : ` (${leftOut})`}; nothing to replay.`);
    return 0;
  }
  const style = createStyle(process.stdout);
  let run;
  try {
    run = await runScript(check.script, {
      permissionMode: options.permissionMode,
      ...(options.freshCopy ? { freshCopy: options.freshCopy } : options.workspace ? { workspace: options.workspace } : {}),
      stopOnError: options.stopOnError ?? false,
      workspaceAliases: [data.workspace],
      onResult: (result) => write(options.json ? JSON.stringify(jsonResult(result)) : formatResult(result, style)),
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  if (!options.json) write(summaryLine(run.outcome, style));
  const name = sessionScriptName(data.id);
  const differences = compareResults(check.expectations, name, withShortenedOutputsIgnored(run.expected, check));
  if (differences.length) {
    write(formatDifferences(differences, { script: name, expectations: `session ${data.id} (${data.commands.length} recorded commands)` }));
    return 1;
  }
  const notes = [...(check.shortened.size ? [`${check.shortened.size} output(s) the session had shortened were not compared`] : []), ...(leftOut === "" ? [] : [leftOut])];
  write(`All ${run.expected.length} result(s) match what session ${data.id} recorded${notes.length ? ` (${notes.join("; ")})` : ""}.`);
  return 0;
}

/** Says which recorded commands were not replayed: rejected before they ran, their text not kept. */
function leftOutNote(codes: string[]): string {
  if (codes.length === 0) return "";
  const kinds = [...new Set(codes)].join(", ");
  return codes.length === 1 ? `1 command the session could not run (${kinds}) was left out` : `${codes.length} commands the session could not run (${kinds}) were left out`;
}
