/**
 * `clio replay case.md --workspace SANDBOX/workspace --fuzz-check`: a fuzz reproduction replayed
 * with a verdict — the robustness property checked again on this run: every result structured
 * (no internal_error unless allowed), and nothing changed outside the workspace (the sandbox's
 * sentinel folder and listing). Exit 0 when it holds, 1 when it still fails.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { structuralProblem } from "../fuzz/protocol-fuzz.js";
import { snapshotChanges, snapshotOutside, type FuzzSandbox } from "../fuzz/sandbox.js";
import { runScript } from "../replay/run-script.js";
import { createStyle } from "../ui/style.js";
import { readInputOrReport } from "./input.js";
import { formatResult, type ReplayCommandOptions } from "./replay-support.js";

export async function replayFuzzCheckCommand(file: string, options: ReplayCommandOptions & { fuzzCheck: string | true }): Promise<number> {
  const say = (text: string) => void process.stdout.write(`${text}\n`);
  const strict = options.fuzzCheck !== "allow-internal-errors";
  if (typeof options.fuzzCheck === "string" && options.fuzzCheck !== "allow-internal-errors") {
    process.stderr.write(`clio replay: --fuzz-check takes nothing or allow-internal-errors, not ${JSON.stringify(options.fuzzCheck)}.\n`);
    return 2;
  }
  const input = await readInputOrReport(file, "replay");
  if ("exitCode" in input) return input.exitCode;
  const workspace = path.resolve(options.workspace ?? process.cwd());
  const base = path.dirname(workspace);
  const sandbox: FuzzSandbox = { base, workspace, sentinel: path.join(base, "sentinel"), home: path.join(base, "home"), remove: async () => undefined };
  const guarded = existsSync(sandbox.sentinel);
  const before = guarded ? await snapshotOutside(sandbox) : undefined;
  const style = createStyle(process.stdout);
  const problems: string[] = [];
  await runScript(input.text, {
    workspace,
    permissionMode: options.permissionMode,
    onResult: (result) => {
      say(formatResult(result, style));
      const problem = structuralProblem(result, strict);
      if (problem) problems.push(`${result.protocol}.${result.action ?? "?"} at ${result.line}:${result.column}: ${problem}`);
    },
  });
  if (before) problems.push(...snapshotChanges(before, await snapshotOutside(sandbox)).map((change) => `written outside the workspace: ${change}`));
  const scope = guarded ? "and nothing outside the workspace changed" : "(no sandbox sentinel beside the workspace: writes outside it were not checked)";
  if (problems.length) {
    say(`Fuzz property still fails:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
    return 1;
  }
  say(`Fuzz property holds: every result is structured${strict ? " (no internal_error)" : ""} ${scope}.`);
  return 0;
}
