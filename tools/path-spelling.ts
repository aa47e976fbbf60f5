/**
 * The spelling checks a workspace path passes before it is resolved: no NUL or control
 * characters, not empty, names and the whole path within what Linux file systems accept, no `~`.
 * Pure functions of the text (and the root, for messages and joins): no file-system access.
 */
import path from "node:path";
import { ToolError } from "./errors.js";

/** A relative path not in normal form: a leading `/`, or an empty, `.` or `..` first or later segment, or a trailing `/`. */
const ODD_RELATIVE = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** Longest file or folder name, and longest path, the file systems clio runs on accept (Linux). */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4095;

/** Throws a `ToolError` that says how to write it right when `input` cannot name a path in the workspace at `root`. */
export function checkPathSpelling(input: string, root: string): void {
  if (input.includes("\0")) {
    throw new ToolError("invalid_argument", "The path contains a NUL byte.", "Write the path without control characters.");
  }
  // A line break or tab in a path is almost always a slip (`a.txt\n`), and makes files no one can type.
  const control = /[\u0001-\u001f\u007f]/.exec(input);
  if (control) {
    const shown = JSON.stringify(control[0]);
    throw new ToolError(
      "invalid_argument",
      `The path ${JSON.stringify(input)} contains the control character ${shown}.`,
      "Write the path without line breaks, tabs or other control characters.",
    );
  }
  if (input.trim() === "") {
    throw new ToolError("invalid_argument", "The path is empty.", 'Give a path relative to the workspace, e.g. path="src/main.ts".');
  }
  // A UTF-8 byte is at least a third of a UTF-16 unit: a short path needs no byte count.
  const longName = input.length * 3 <= MAX_NAME_BYTES ? undefined : input.split(/[\\/]/).find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
  if (longName !== undefined) {
    throw new ToolError(
      "invalid_argument",
      `The path has a name of ${Buffer.byteLength(longName)} bytes ("${longName.slice(0, 24)}…"); file systems allow at most ${MAX_NAME_BYTES} bytes per name.`,
      "Use shorter file and folder names.",
    );
  }
  if (input.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new ToolError("invalid_argument", `The path is ${Buffer.byteLength(input)} bytes long; at most ${MAX_PATH_BYTES} are allowed.`, "Use a shorter path.");
  }
  if (input.startsWith("~")) {
    throw new ToolError("outside_workspace", `${input} refers to a home folder, which is outside the workspace ${root}.`, "Use a path relative to the workspace root.");
  }
}

/** `absolute` (what `input` names), unless it is longer than a path may be. */
export function withinPathLimit(input: string, absolute: string): string {
  if (absolute.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(absolute) > MAX_PATH_BYTES) {
    throw new ToolError(
      "invalid_argument",
      `The path ${input.slice(0, 40)}… is ${Buffer.byteLength(absolute)} bytes long with the workspace folder in front; at most ${MAX_PATH_BYTES} are allowed.`,
      "Use a shorter path.",
    );
  }
  return absolute;
}

/**
 * `input` joined to `root` when it is a relative path in normal form (no empty, `.` or `..`
 * segment, no leading or trailing `/`): what `path.resolve` gives then, without its walk.
 * Undefined for any other spelling.
 */
export function joinedUnderRoot(root: string, input: string): string | undefined {
  if (input === "" || ODD_RELATIVE.test(input)) return undefined;
  return root === path.sep ? `${path.sep}${input}` : `${root}${path.sep}${input}`;
}
