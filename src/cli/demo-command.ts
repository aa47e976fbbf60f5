/**
 * `clio demo`: the interpreter at work with no model and no network. A recorded model reply from
 * sessions/demo is parsed and its commands run in a scratch copy of a small sample project.
 */
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { packageRoot } from "../package-root.js";
import { buildParseReport, parseText } from "../parse-report.js";
import { replayScript } from "../replay/replay.js";
import { createRuntime } from "../runtime.js";
import { formatParseReport } from "../ui/parse-report.js";
import { formatOutputPreview, formatResultLine } from "../ui/results.js";
import { createStyle } from "../ui/style.js";

export async function demoCommand(): Promise<number> {
  const style = createStyle(process.stdout);
  const write = (text = "") => process.stdout.write(`${text}\n`);
  const demoFolder = path.join(packageRoot(), "sessions", "demo");
  const reply = await readFile(path.join(demoFolder, "reply.md"), "utf8");
  const scratch = await mkdtemp(path.join(os.tmpdir(), "clio-demo-"));
  try {
    await cp(path.join(demoFolder, "workspace"), scratch, { recursive: true });
    write(style.bold("clio demo — a recorded model reply, interpreted offline"));
    write(style.dim(`Sample project copied to ${scratch}`));
    write();
    write(style.bold("The model wrote:"));
    write(reply.replace(/\n$/, "").split("\n").map((line) => `  ${style.dim("│")} ${line}`).join("\n"));
    write();
    const runtime = await createRuntime({ workspace: scratch, permissionMode: "yolo" });
    write(style.bold("What the parser found:"));
    write(formatParseReport(buildParseReport(parseText(reply), runtime.registry), style));
    write();
    write(style.bold("Running the commands (permission mode yolo, inside the scratch copy):"));
    const outcome = await replayScript(reply, runtime.manager, {
      onResult: (result) => {
        write(formatResultLine(result, style));
        if (result.ok) write(formatOutputPreview(result.output, style, 8));
      },
    });
    await runtime.manager.dispose();
    const failed = outcome.results.filter((result) => !result.ok).length;
    write();
    write(`${outcome.results.length - failed} commands succeeded, ${failed} failed (the malformed one is expected).`);
    write(style.dim("Fenced and inline-code commands were reported as mentions and never ran."));
    return 0;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
