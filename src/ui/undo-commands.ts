/** `/undo`, `/rewind` and `/diff`: taking back what clio changed in files, and seeing it. */
import type { ChalkInstance } from "chalk";
import type { UndoReport } from "../agent/checkpoints.js";
import type { Conversation } from "../agent/conversation.js";
import { renderChanges } from "./diff-view.js";

export interface UndoContext {
  conversation: Conversation;
  style: ChalkInstance;
  write(text: string): void;
}

export async function undoCommand(context: UndoContext): Promise<void> {
  const checkpoints = await opened(context);
  if (!checkpoints) return;
  if (!checkpoints.all.some((checkpoint) => checkpoint.files.length)) return context.write("Nothing to undo: clio has not changed any file in this session.\n");
  writeReport(await checkpoints.undo(1), context);
}

/** `/rewind` lists the checkpoints; `/rewind N` undoes everything from checkpoint N on. */
export async function rewindCommand(argument: string, context: UndoContext): Promise<void> {
  const { style, write } = context;
  const checkpoints = await opened(context);
  if (!checkpoints) return;
  const changed = checkpoints.all.filter((checkpoint) => checkpoint.files.length);
  if (!changed.length) return write("Nothing to rewind: clio has not changed any file in this session.\n");
  if (!argument) {
    changed.forEach((checkpoint, index) => {
      write(
        `  ${style.cyan(String(index + 1).padStart(3))}  ${checkpoint.at.slice(11, 19)}  ${checkpoint.label.split("\n")[0]!.slice(0, 60)}  ${style.dim(checkpoint.files.map((file) => file.path).join(", "))}\n`,
      );
    });
    return write(style.dim("/rewind N undoes checkpoint N and every later one.\n"));
  }
  const chosen = Number(argument);
  if (!Number.isInteger(chosen) || chosen < 1 || chosen > changed.length) {
    return write(`${style.red("✗")} /rewind takes a checkpoint number from 1 to ${changed.length}; /rewind alone lists them.\n`);
  }
  writeReport(await checkpoints.undo(changed.length - chosen + 1), context);
}

export async function diffCommand(context: UndoContext): Promise<void> {
  const checkpoints = await opened(context);
  if (!checkpoints) return;
  const changes = await checkpoints.changes();
  if (!changes.length) return context.write("No changes: the files clio touched in this session are as they were.\n");
  context.write(`${renderChanges(changes, context.style, Number.POSITIVE_INFINITY).lines.join("\n")}\n`);
}

async function opened(context: UndoContext) {
  const checkpoints = await context.conversation.openCheckpoints();
  if (!checkpoints) context.write("Nothing yet: no file has been changed in this session.\n");
  if (checkpoints?.problem) {
    context.write(`${context.style.yellow("!")} ${checkpoints.problem}\n`);
    checkpoints.problem = undefined;
  }
  return checkpoints;
}

function writeReport(report: UndoReport, { style, write }: UndoContext): void {
  for (const file of report.restored) write(`${style.green("↶")} restored ${file}\n`);
  for (const { path, reason } of report.skipped) write(`${style.yellow("!")} ${path} ${reason}\n`);
  if (!report.restored.length && !report.skipped.length) write("Nothing was restored.\n");
}
