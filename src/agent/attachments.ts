/**
 * `@path` and `@path:10-40` in a person's prompt attach that file (or those lines) to the
 * message, read from the workspace. A mention that cannot be attached is an error that names
 * it, so the person can fix the prompt before anything is sent.
 */
import { promises as fs } from "node:fs";
import { binaryType, SNIFF_BYTES } from "../../tools/files/text.js";
import type { Workspace } from "../../tools/workspace.js";

/** The largest file `@` attaches. */
const ATTACH_MAX_BYTES = 256 * 1024;
const MENTION = /(^|\s)@([^\s@:]+)(?::(\d+)(?:-(\d+))?)?/g;

export type AttachResult = { prompt: string; attached: string[] } | { error: string };

export async function attachMentionedFiles(text: string, workspace: Workspace): Promise<AttachResult> {
  const blocks: string[] = [];
  const attached: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const written = match[2]!.replace(/[,;!?)]+$|\.$/, "");
    const from = match[3] === undefined ? undefined : Number(match[3]);
    const to = match[4] === undefined ? from : Number(match[4]);
    const block = await attachOne(workspace, written, from, to);
    if ("error" in block) return block;
    blocks.push(block.text);
    attached.push(block.label);
  }
  return { prompt: blocks.length ? `${text}\n\n${blocks.join("\n\n")}` : text, attached };
}

async function attachOne(workspace: Workspace, written: string, from: number | undefined, to: number | undefined): Promise<{ text: string; label: string } | { error: string }> {
  let real: string;
  let relative: string;
  try {
    ({ real, relative } = await workspace.resolve(written, "read"));
  } catch (error) {
    return { error: `@${written}: ${(error as Error).message}` };
  }
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat) return { error: `@${written}: there is no such file in the workspace (Tab completes paths after @).` };
  if (stat.isDirectory()) return { error: `@${written} is a folder; attach files in it, e.g. @${relative}/NAME (Tab lists them).` };
  if (!stat.isFile()) return { error: `@${written} is not a regular file.` };
  if (stat.size > ATTACH_MAX_BYTES) return { error: `@${written} is ${Math.round(stat.size / 1024)} KB; attach at most 256 KB, or a line range like @${relative}:1-200.` };
  const bytes = await fs.readFile(real);
  const binary = binaryType(bytes.subarray(0, SNIFF_BYTES));
  if (binary !== undefined) return { error: `@${written} looks binary (${binary}); only text files can be attached.` };
  const lines = bytes.toString("utf8").split("\n");
  if (from === undefined || to === undefined) return { text: `<attached file="${relative}">\n${bytes.toString("utf8").replace(/\n$/, "")}\n</attached>`, label: relative };
  if (from < 1 || to < from || from > lines.length)
    return { error: `@${written}:${from}-${to}: ${relative} has ${lines.length} lines; give a range like ${relative}:1-${Math.min(lines.length, 40)}.` };
  const range = `${from}-${Math.min(to, lines.length)}`;
  return { text: `<attached file="${relative}" lines="${range}">\n${lines.slice(from - 1, to).join("\n")}\n</attached>`, label: `${relative}:${range}` };
}
