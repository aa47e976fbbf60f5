/**
 * `clio replay --model-script FILE`: recorded model replies played through the real agent loop
 * (the scripted provider), so a whole conversation is a deterministic test. With `--expect` the
 * commands' results are compared with recorded ones, as for a protocol script.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { ClioError } from "../../grammar/errors.js";
import { Conversation } from "../agent/conversation.js";
import type { CommandResult } from "../manager/result.js";
import { loadScript, ScriptedProvider } from "../providers/index.js";
import { colourlessEnvironment, deterministicProtocolConfig, parseGitAuthor } from "../replay/deterministic.js";
import { expectedFromResult, normalisingOf, type ExpectationFile } from "../replay/expectations.js";
import { freshWorkspaceCopy } from "../replay/run-script.js";
import { createRuntime } from "../runtime.js";
import { canAsk, terminalAsker } from "../ui/prompt.js";
import { createStyle } from "../ui/style.js";
import { TerminalView } from "../ui/terminal-view.js";
import { readExpectations, settleExpectations } from "./expect-option.js";
import { configuredRules, jsonResult, type ReplayCommandOptions } from "./replay-support.js";

export interface ModelScriptOptions extends ReplayCommandOptions {
  modelScript: string;
  /** The person's prompt that the recorded replies answer. */
  prompt?: string;
}

export async function replayModelScriptCommand(options: ModelScriptOptions): Promise<number> {
  const fail = (message: string) => (process.stderr.write(`clio replay: ${message}\n`), 2);
  let replies: string[];
  try {
    replies = await loadScript(options.modelScript);
  } catch (error) {
    if (ClioError.isInstance(error)) return fail(error.message);
    throw error;
  }
  let expectations: ExpectationFile | undefined;
  const expectFile = typeof options.expect === "string" ? options.expect : undefined;
  if (expectFile) {
    const read = await readExpectations(expectFile, options.update ?? false);
    if ("error" in read) return fail(read.error);
    expectations = read.expectations;
  }
  const workspace = options.freshCopy ? await freshWorkspaceCopy(options.freshCopy) : path.resolve(options.workspace ?? process.cwd());
  const style = createStyle(process.stdout);
  const view = new TerminalView({ style, output: process.stdout });
  const results: CommandResult[] = [];
  const interactive = !options.json && canAsk();
  try {
    const { rules, protocolConfig } = await configuredRules(options);
    const author = options.gitAuthor === undefined ? undefined : parseGitAuthor(options.gitAuthor);
    const runtime = await createRuntime({
      workspace,
      permissionMode: options.permissionMode,
      rules,
      protocolConfig: deterministicProtocolConfig(protocolConfig, author),
      env: colourlessEnvironment(process.env),
      ...(interactive ? { asker: terminalAsker(createStyle(process.stderr)) } : {}),
      onEvent: (event) => {
        if (event.type === "command-finished") {
          results.push(event.result);
          if (options.json) process.stdout.write(`${JSON.stringify(jsonResult(event.result))}\n`);
        }
        if (!options.json) view.onManagerEvent(event);
      },
    });
    const conversation = new Conversation({
      provider: new ScriptedProvider({ replies, origin: `The model script ${options.modelScript}` }),
      runtime,
      maxTurns: replies.length + 1,
      ...(options.json ? {} : { onEvent: (event) => view.onAgentEvent(event) }),
    });
    const outcome = await conversation.prompt(options.prompt ?? "Replay the recorded conversation.");
    await runtime.manager.dispose();
    if (!options.json) process.stdout.write(`${style.dim(`Conversation ended (${outcome.reason}) after ${outcome.turns} of ${replies.length} recorded replies.`)}\n`);

    const context = { workspaceRoots: [workspace, runtime.environment.workspace.root], ...normalisingOf(expectations, expectFile ?? options.modelScript) };
    // Reads run in parallel and finish in any order; the model wrote them in id order.
    const actual = [...results].sort((left, right) => left.id - right.id).map((result) => expectedFromResult(result, context));
    if (expectFile) {
      const settled = {
        file: expectFile,
        update: options.update ?? false,
        acceptRefused: options.acceptRefused ?? false,
        showAll: options.showAll ?? false,
        scriptName: path.basename(options.modelScript),
        script: options.modelScript,
        expected: actual,
        expectations,
      };
      if (!(await settleExpectations(settled, (text) => void process.stdout.write(`${text}\n`)))) return 1;
    }
    return outcome.reason === "done" ? 0 : 1;
  } finally {
    if (options.freshCopy) await rm(workspace, { recursive: true, force: true });
  }
}
