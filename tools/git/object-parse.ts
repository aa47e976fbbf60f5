/**
 * Commits, trees and tags parsed from their raw bytes, in the shapes isomorphic-git gives them
 * (so the rest of tools/git sees no difference), with the same refusal of tree entry names
 * that would write outside a folder or into `.git` on some file system.
 */
import type { CommitObject, TreeEntry } from "isomorphic-git";
import { ToolError } from "../errors.js";

/** A commit's headers and message; only the run of `parent` lines right after `tree` counts, as in git. */
export function parseCommit(oid: string, content: Buffer): CommitObject {
  const text = content.toString("utf8");
  const split = text.indexOf("\n\n");
  const headers = (split < 0 ? text : text.slice(0, split)).split("\n");
  const message = split < 0 ? "" : text.slice(split + 2);
  const value = (line: string | undefined, key: string) => (line?.startsWith(`${key} `) ? line.slice(key.length + 1) : undefined);
  const tree = value(headers[0], "tree");
  if (tree === undefined || !/^[0-9a-f]{40}$/.test(tree)) throw damaged("commit", oid, "it does not start with a tree line");
  const parent: string[] = [];
  let line = 1;
  for (let next = value(headers[line], "parent"); next !== undefined; next = value(headers[++line], "parent")) parent.push(next);
  let author: string | undefined;
  let committer: string | undefined;
  let gpgsig: string | undefined;
  for (; line < headers.length; line++) {
    const header = headers[line]!;
    if (author === undefined && header.startsWith("author ")) author = header.slice(7);
    else if (committer === undefined && header.startsWith("committer ")) committer = header.slice(10);
    else if (gpgsig === undefined && header.startsWith("gpgsig ")) {
      const lines = [header.slice(7)];
      while (headers[line + 1]?.startsWith(" ")) lines.push(headers[++line]!.slice(1));
      gpgsig = lines.join("\n");
    }
  }
  if (author === undefined || committer === undefined) throw damaged("commit", oid, "it has no author or committer line");
  const commit: CommitObject = { message, tree, parent, author: person(author, oid), committer: person(committer, oid) };
  if (gpgsig !== undefined) commit.gpgsig = gpgsig;
  return commit;
}

function person(text: string, oid: string): CommitObject["author"] {
  const match = /^(.*) <(.*)> (-?\d+) ([+-])(\d\d)(\d\d)$/.exec(text);
  if (match === null) throw damaged("commit", oid, `its signature line "${text}" is not "name <email> time zone"`);
  const minutes = Number(match[5]) * 60 + Number(match[6]);
  // isomorphic-git's sign: minutes behind UTC are positive (like Date's getTimezoneOffset), and +0000 is 0, not -0.
  const timezoneOffset = minutes === 0 ? 0 : match[4] === "+" ? -minutes : minutes;
  return { name: match[1]!, email: match[2]!, timestamp: Number(match[3]), timezoneOffset };
}

const TYPES_BY_MODE: Record<string, TreeEntry["type"]> = { "040000": "tree", "100644": "blob", "100755": "blob", "120000": "blob", "160000": "commit" };
/** The modes git writes, by the number their digits spell (read without making a string). */
const MODES_BY_NUMBER = new Map<number, string>([
  [40000, "040000"],
  [100644, "100644"],
  [100755, "100755"],
  [120000, "120000"],
  [160000, "160000"],
]);

/** A tree's entries in their stored order (git's order). */
export function parseTree(oid: string, content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const length = content.length;
  // Two calls into node for the whole tree instead of two per entry: ASCII names are cut from its
  // Latin-1 text, oids from its hex text.
  const latin1 = content.toString("latin1");
  const hex = content.toString("hex");
  let cursor = 0;
  while (cursor < length) {
    let space = cursor;
    let digits = 0;
    for (; space < length; space++) {
      const byte = content[space]!;
      if (byte === 0x20) break;
      digits = byte >= 0x30 && byte <= 0x39 && digits >= 0 ? digits * 10 + byte - 0x30 : -1;
    }
    let end = space + 1;
    let ascii = true;
    for (; end < length; end++) {
      const byte = content[end]!;
      if (byte === 0) break;
      if (byte >= 0x80) ascii = false;
    }
    if (space >= length || end >= length || end + 21 > length) throw damaged("tree", oid, `an entry at byte ${cursor} is cut short`);
    const known = MODES_BY_NUMBER.get(digits);
    // "40000" is how git writes a folder; any other spelling of a known number ("0100644") is not a mode.
    let mode = known !== undefined && (known.length === space - cursor || (digits === 40000 && space - cursor === 5)) ? known : undefined;
    if (mode === undefined) {
      mode = latin1.slice(cursor, space);
      if (mode === "40000") mode = "040000";
    }
    const type = TYPES_BY_MODE[mode];
    if (type === undefined) throw damaged("tree", oid, `an entry has the unknown mode ${mode}`);
    const name = ascii ? latin1.slice(space + 1, end) : content.toString("utf8", space + 1, end);
    if (unsafeName(name)) {
      throw new ToolError(
        "invalid_argument",
        `The tree ${oid} holds an entry named ${JSON.stringify(name)}, which git refuses to check out (it would write outside its folder or into .git); nothing was changed.`,
        "Do not use this commit; git fsck reports it too.",
      );
    }
    entries.push({ mode, path: name, oid: hex.slice(2 * end + 2, 2 * end + 42), type });
    cursor = end + 21;
  }
  return entries;
}

/** Names git's verify_path refuses: separators, `.`, `..`, and `.git` as NTFS and HFS+ would read it. */
function unsafeName(name: string): boolean {
  if (name.includes("/") || name.includes("\\")) return true;
  // Once the ignored characters are dropped, every refused name starts with "." or "g" (".git", "git~1"): others are safe.
  const first = name.charCodeAt(0);
  if (first < 0x80 && first !== 0x2e && (first | 0x20) !== 0x67) return false;
  if (name === "") return true;
  const hfs = name.replace(/[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g, "");
  if (hfs === "." || hfs === "..") return true;
  const ntfs = hfs
    .split(":")[0]!
    .toLowerCase()
    .replace(/[. ]+$/, "");
  return ntfs === ".git" || /^\.?git~[1-9]$/.test(ntfs);
}

/** An annotated tag's target. */
export function parseTagTarget(oid: string, content: Buffer): { object: string; type: string } {
  const text = content.toString("utf8", 0, Math.min(content.length, 200));
  const match = /^object ([0-9a-f]{40})\ntype (\w+)\n/.exec(text);
  if (match === null) throw damaged("tag", oid, "it does not start with object and type lines");
  return { object: match[1]!, type: match[2]! };
}

function damaged(kind: string, oid: string, reason: string): ToolError {
  return new ToolError("corrupt_file", `The ${kind} ${oid} cannot be read: ${reason}; nothing was changed.`, "Run `git fsck` to see what is damaged.");
}
