/**
 * Exact text replacement in a file: one match (or every match with `all`), written atomically.
 * A miss shows the closest lines; several matches list their line numbers.
 */
import { ToolError } from "../errors.js";
import type { ResolvedPath } from "../workspace.js";
import { confine, lstatOrNothing, notAFile, notFound, type FileContext } from "./context.js";
import { closestLines } from "./similar.js";
import { binaryType, formatBytes, looksLineNumbered, numberLines, SNIFF_BYTES, splitLines } from "./text.js";
import { countLineChanges } from "../line-diff.js";
import { atomicWrite, readWhole, type WriteResult } from "./write.js";

/** The largest file replace edits. */
export const REPLACE_MAX_BYTES = 8 * 1024 * 1024;
const LISTED_MATCHES = 20;

export interface ReplaceResult extends WriteResult {
  /** How many places were replaced. */
  replacements: number;
  /** 1-based line numbers where the replaced matches started (in the old text). */
  matchLines: number[];
}

/** A replacement worked out but not written: the old text and the new. */
export interface PlannedReplacement {
  relative: string;
  real: string;
  mode: number;
  text: string;
  updated: string;
  replacements: number;
  matchLines: number[];
}

/** Finds `old` in a file and works out the new text, changing nothing (errors as replace gives them). */
export async function planReplacement(context: FileContext, input: string | ResolvedPath, old: string, replacement: string, all = false): Promise<PlannedReplacement> {
  if (old === "")
    throw new ToolError("invalid_argument", "old is empty; replace needs the exact text to find.", [
      "Give old as text copied from the file, or use ",
      { action: "write", arguments: { path: typeof input === "string" ? input : input.input, content: "…" } },
      " for a whole file.",
    ]);
  const { relative, real } = await confine(context, input, "write");
  const stat = await lstatOrNothing(context, real);
  if (stat === undefined) throw notFound(relative);
  if (!stat.isFile()) throw notAFile(relative, stat);
  if (stat.size > REPLACE_MAX_BYTES) {
    throw new ToolError(
      "too_large",
      `${relative} is ${formatBytes(stat.size)}; replace edits files up to ${formatBytes(REPLACE_MAX_BYTES)}.`,
      "Edit it with EXEC (sed, a script) instead.",
    );
  }
  const text = await readWhole(context, real, relative);
  const type = binaryType(Buffer.from(text.slice(0, SNIFF_BYTES)));
  if (type !== undefined) throw new ToolError("binary_file", `${relative} looks binary (${type}); replace edits text files only.`);

  let [find, put] = [old, replacement];
  let offsets = matchOffsets(text, find);
  if (offsets.length === 0 && text.includes("\r\n") && !old.includes("\r\n") && old.includes("\n")) {
    // The file uses CRLF line breaks; the model wrote LF.
    [find, put] = [old.replace(/\n/g, "\r\n"), replacement.replace(/\r?\n/g, "\r\n")];
    offsets = matchOffsets(text, find);
  }
  if (offsets.length === 0) throw noMatch(relative, text, old);
  const matchLines = lineNumbersOf(text, offsets);
  if (offsets.length > 1 && !all) {
    const listed = matchLines.slice(0, LISTED_MATCHES).join(", ") + (matchLines.length > LISTED_MATCHES ? ", …" : "");
    throw new ToolError(
      "ambiguous_match",
      `old matches ${offsets.length} places in ${relative}, at lines ${listed}.`,
      "Add surrounding lines to old so it matches exactly one place, or pass all=true to replace every match.",
    );
  }
  const pieces: string[] = [];
  let from = 0;
  for (const offset of offsets) {
    pieces.push(text.slice(from, offset), put);
    from = offset + find.length;
  }
  pieces.push(text.slice(from));
  return { relative, real, mode: stat.mode & 0o7777, text, updated: pieces.join(""), replacements: offsets.length, matchLines };
}

export async function replaceInFile(context: FileContext, input: string | ResolvedPath, old: string, replacement: string, all = false): Promise<ReplaceResult> {
  const { relative, real, mode, text, updated, replacements, matchLines } = await planReplacement(context, input, old, replacement, all);
  await atomicWrite(context, real, updated, mode);
  const { added, removed } = countLineChanges(text, updated);
  return {
    relative,
    created: false,
    added,
    removed,
    lines: splitLines(updated).length,
    bytes: Buffer.byteLength(updated),
    replacements,
    matchLines,
  };
}

/** Start offsets of the non-overlapping occurrences of `needle`. */
function matchOffsets(text: string, needle: string): number[] {
  const offsets: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) offsets.push(at);
  return offsets;
}

function lineNumbersOf(text: string, offsets: number[]): number[] {
  const numbers: number[] = [];
  let line = 1;
  let position = 0;
  for (const offset of offsets) {
    for (let at = text.indexOf("\n", position); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
      line++;
      position = at + 1;
    }
    numbers.push(line);
  }
  return numbers;
}

function noMatch(relative: string, text: string, old: string): ToolError {
  const closest = closestLines(text, old);
  let message = `old was not found in ${relative}.`;
  if (closest !== undefined && closest.similarity > 0.3) {
    const percent = Math.round(closest.similarity * 100);
    message += ` The closest lines (${percent}% similar) are:\n${numberLines(closest.lines, closest.startLine)}`;
  } else {
    message += " No lines resemble it.";
  }
  const hint = looksLineNumbered(old)
    ? "old seems to include line numbers copied from a read (like `12│`); give the file's text only."
    : "Copy old exactly from the file (spaces, indentation and line breaks count), or read the file again first.";
  return new ToolError("no_match", message, hint);
}
