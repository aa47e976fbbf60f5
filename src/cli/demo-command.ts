/**
 * `clio demo`: the whole pipeline with no model and no network. The scripted provider plays a
 * recorded conversation (sessions/demo/conversation.md) through the real agent loop, in a
 * scratch copy of a small sample project: reading, searching, editing, running its tests.
 */
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Conversation } from "../agent/conversation.js";
import { packageRoot } from "../package-root.js";
import { parseTextScript, ScriptedProvider } from "../providers/index.js";
import { createRuntime } from "../runtime.js";
import { createStyle } from "../ui/style.js";
import { TerminalView } from "../ui/terminal-view.js";

/** The person's request in the recorded conversation. */
export const DEMO_PROMPT = "divide(1, 0) should throw instead of returning Infinity. Please fix it and make the tests pass.";

export interface DemoOptions {
  /** Characters per streamed chunk of the recorded replies. */
  chunkSize?: number;
  output?: NodeJS.WriteStream | { isTTY?: boolean; write(text: string): boolean };
}

export async function demoCommand(options: DemoOptions = {}): Promise<number> {
  const output = options.output ?? process.stdout;
  const style = createStyle(output);
  const write = (text: string) => void output.write(text);
  const demoFolder = path.join(packageRoot(), "sessions", "demo");
  const replies = parseTextScript(await readFile(path.join(demoFolder, "conversation.md"), "utf8"));
  const scratch = await mkdtemp(path.join(os.tmpdir(), "clio-demo-"));
  const view = new TerminalView({ style, output });
  try {
    await cp(path.join(demoFolder, "workspace"), scratch, { recursive: true });
    write(`${style.bold("clio demo")} ${style.dim("— a recorded conversation, played offline through the real agent loop")}\n`);
    write(style.dim(`Sample project copied to ${scratch}; permission mode yolo inside that copy.\n\n`));
    const runtime = await createRuntime({ workspace: scratch, permissionMode: "yolo", onEvent: (event) => view.onManagerEvent(event) });
    const conversation = new Conversation({
      provider: new ScriptedProvider({ replies, chunkSize: options.chunkSize ?? 24, model: "recorded-demo", origin: "The demo conversation" }),
      runtime,
      maxTurns: 25,
      onEvent: (event) => view.onAgentEvent(event),
    });
    write(`${style.cyan("›")} ${DEMO_PROMPT}\n\n`);
    const outcome = await conversation.prompt(DEMO_PROMPT);
    await runtime.manager.dispose();
    write(`\n${style.dim(`Finished (${outcome.reason}) after ${outcome.turns} model replies. With a model configured, npm start opens the chat instead.`)}\n`);
    return outcome.reason === "done" ? 0 : 1;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
