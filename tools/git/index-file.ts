/**
 * git's index file (`.git/index`), read and written directly: versions 2, 3 and 4 are read,
 * version 2 (3 when an entry needs extended flags) is written. Reading it ourselves is what
 * makes status fast: isomorphic-git's statusMatrix hashes far more than it needs to.
 * Format: https://git-scm.com/docs/index-format
 */
import { createHash } from "node:crypto";
import { ToolError } from "../errors.js";

export interface IndexEntry {
  path: string;
  oid: string;
  /** 0o100644, 0o100755, 0o120000 (symlink) or 0o160000 (submodule). */
  mode: number;
  /** 0 for a normal entry, 1–3 for the sides of an unresolved conflict. */
  stage: number;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  /** Size of the worktree file when it was staged (truncated to 32 bits); 0 means "unknown, compare content". */
  size: number;
  /** The 16-bit extended flags (skip-worktree, intent-to-add), 0 when absent. */
  extendedFlags: number;
  assumeValid: boolean;
}

export interface IndexFile {
  version: number;
  entries: IndexEntry[];
  /**
   * Valid cache-tree entries from the TREE extension: folder path ("" for the root) → tree oid.
   * A folder listed here has exactly that tree in the index.
   */
  cachedTrees: Map<string, string>;
}

const SIGNATURE = 0x44495243; // "DIRC"
const EXTENDED = 0x4000;
const ASSUME_VALID = 0x8000;
const NAME_LENGTH = 0xfff;

/** An index with no entries, for a repository that has never staged anything. */
export function emptyIndex(): IndexFile {
  return { version: 2, entries: [], cachedTrees: new Map() };
}

export function parseIndex(buffer: Buffer): IndexFile {
  if (buffer.length < 32 || buffer.readUInt32BE(0) !== SIGNATURE) {
    throw corrupt("it does not start with the DIRC signature");
  }
  const checksum = createHash("sha1")
    .update(buffer.subarray(0, buffer.length - 20))
    .digest();
  if (!checksum.equals(buffer.subarray(buffer.length - 20))) throw corrupt("its checksum does not match");
  const version = buffer.readUInt32BE(4);
  if (version < 2 || version > 4) throw corrupt(`version ${version} is not supported`);
  const count = buffer.readUInt32BE(8);
  const entries: IndexEntry[] = new Array(count);
  const end = buffer.length - 20;
  let offset = 12;
  let previousPath: Buffer = Buffer.alloc(0);
  // A few calls into node for the whole file instead of several per entry: numbers read through a
  // DataView, ASCII paths cut from the file's Latin-1 text, oids from its hex text.
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const latin1 = version === 4 ? "" : buffer.toString("latin1");
  const hex = buffer.toString("hex");
  for (let number = 0; number < count; number++) {
    const start = offset;
    if (start + 62 > end) throw corrupt("an entry runs past the end of the file");
    const flags = view.getUint16(start + 60);
    offset = start + 62;
    let extendedFlags = 0;
    if (flags & EXTENDED) {
      extendedFlags = view.getUint16(offset);
      offset += 2;
    }
    let path: string;
    if (version === 4) {
      let byte = buffer[offset++]!;
      let strip = byte & 127;
      while (byte & 128) {
        byte = buffer[offset++]!;
        strip = ((strip + 1) << 7) | (byte & 127);
      }
      const nul = buffer.indexOf(0, offset);
      if (nul < 0) throw corrupt("an entry's path does not end");
      const pathBytes = Buffer.concat([previousPath.subarray(0, previousPath.length - strip), buffer.subarray(offset, nul)]);
      offset = nul + 1;
      previousPath = pathBytes;
      path = pathBytes.toString("utf8");
    } else {
      // The flags hold the name's length when it is under 0xfff bytes, which saves a search per entry.
      const nameLength = flags & NAME_LENGTH;
      const nul = nameLength < NAME_LENGTH && buffer[offset + nameLength] === 0 ? offset + nameLength : buffer.indexOf(0, offset);
      if (nul < 0) throw corrupt("an entry's path does not end");
      let ascii = true;
      for (let at = offset; at < nul && ascii; at++) ascii = buffer[at]! < 0x80;
      path = ascii ? latin1.slice(offset, nul) : buffer.toString("utf8", offset, nul);
      offset = start + Math.ceil((nul - start + 1) / 8) * 8;
    }
    if (offset > end) throw corrupt("an entry runs past the end of the file");
    entries[number] = {
      path,
      ctimeSeconds: view.getUint32(start),
      ctimeNanoseconds: view.getUint32(start + 4),
      mtimeSeconds: view.getUint32(start + 8),
      mtimeNanoseconds: view.getUint32(start + 12),
      dev: view.getUint32(start + 16),
      ino: view.getUint32(start + 20),
      mode: view.getUint32(start + 24),
      uid: view.getUint32(start + 28),
      gid: view.getUint32(start + 32),
      size: view.getUint32(start + 36),
      oid: hex.slice(2 * start + 80, 2 * start + 120),
      stage: (flags >> 12) & 3,
      assumeValid: (flags & ASSUME_VALID) !== 0,
      extendedFlags,
    };
  }
  const cachedTrees = new Map<string, string>();
  while (offset + 8 <= end) {
    const signature = buffer.toString("latin1", offset, offset + 4);
    const size = buffer.readUInt32BE(offset + 4);
    const data = buffer.subarray(offset + 8, offset + 8 + size);
    if (signature === "TREE") readCacheTree(data, cachedTrees);
    else if (signature === "link") {
      throw new ToolError(
        "git_error",
        "This repository uses a split index (core.splitIndex), which clio cannot read.",
        "Run `git update-index --no-split-index` once, then retry.",
      );
    }
    offset += 8 + size;
  }
  return { version, entries, cachedTrees };
}

/** Parses the TREE extension (pre-order; each path relative to its parent). */
function readCacheTree(data: Buffer, trees: Map<string, string>): void {
  let offset = 0;
  // Stack of [folder path, subtrees still to read].
  const stack: Array<[string, number]> = [];
  while (offset < data.length) {
    const nul = data.indexOf(0, offset);
    const name = data.toString("utf8", offset, nul);
    const newline = data.indexOf(10, nul);
    const [countText, subtreeText] = data.toString("latin1", nul + 1, newline).split(" ");
    offset = newline + 1;
    while (stack.length > 0 && stack[stack.length - 1]![1] === 0) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent[1]--;
    const folder = parent === undefined ? "" : parent[0] === "" ? name : `${parent[0]}/${name}`;
    if (Number(countText) >= 0) {
      trees.set(folder, data.toString("hex", offset, offset + 20));
      offset += 20;
    }
    stack.push([folder, Number(subtreeText)]);
  }
}

/** Serialises entries as a version 2 index (3 if any entry carries extended flags), without extensions. */
export function serializeIndex(entries: readonly IndexEntry[]): Buffer {
  const sorted = [...entries].sort(compareEntries);
  const version = sorted.some((entry) => entry.extendedFlags !== 0) ? 3 : 2;
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.writeUInt32BE(SIGNATURE, 0);
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(sorted.length, 8);
  parts.push(header);
  for (const entry of sorted) {
    const pathBytes = Buffer.from(entry.path, "utf8");
    const extended = entry.extendedFlags !== 0;
    const fixed = 62 + (extended ? 2 : 0);
    const length = Math.ceil((fixed + pathBytes.length + 1) / 8) * 8;
    const record = Buffer.alloc(length);
    const fields = [entry.ctimeSeconds, entry.ctimeNanoseconds, entry.mtimeSeconds, entry.mtimeNanoseconds, entry.dev, entry.ino, entry.mode, entry.uid, entry.gid, entry.size];
    fields.forEach((value, position) => record.writeUInt32BE(value >>> 0, position * 4));
    record.write(entry.oid, 40, 20, "hex");
    const flags = (entry.assumeValid ? ASSUME_VALID : 0) | (extended ? EXTENDED : 0) | (entry.stage << 12) | Math.min(pathBytes.length, 0xfff);
    record.writeUInt16BE(flags, 60);
    if (extended) record.writeUInt16BE(entry.extendedFlags, 62);
    pathBytes.copy(record, fixed);
    parts.push(record);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** git's order: by path bytes, then stage. */
export function compareEntries(left: IndexEntry, right: IndexEntry): number {
  const byPath = Buffer.compare(Buffer.from(left.path), Buffer.from(right.path));
  return byPath !== 0 ? byPath : left.stage - right.stage;
}

/** An index entry for `oid` at `path` with the stat data of the file just written (or zeros: "compare content"). */
export function entryFromStat(
  path: string,
  oid: string,
  mode: number,
  stat?: { ctimeMs: number; mtimeMs: number; dev: number; ino: number; uid: number; gid: number; size: number },
): IndexEntry {
  const split = (milliseconds: number): [number, number] => {
    const seconds = Math.floor(milliseconds / 1000);
    return [seconds, Math.floor((milliseconds - seconds * 1000) * 1e6)];
  };
  const [ctimeSeconds, ctimeNanoseconds] = split(stat?.ctimeMs ?? 0);
  const [mtimeSeconds, mtimeNanoseconds] = split(stat?.mtimeMs ?? 0);
  return {
    path,
    oid,
    mode,
    stage: 0,
    extendedFlags: 0,
    assumeValid: false,
    ctimeSeconds,
    ctimeNanoseconds,
    mtimeSeconds,
    mtimeNanoseconds,
    dev: stat?.dev ?? 0,
    ino: stat?.ino ?? 0,
    uid: stat?.uid ?? 0,
    gid: stat?.gid ?? 0,
    size: stat?.size ?? 0,
  };
}

function corrupt(reason: string): ToolError {
  return new ToolError(
    "corrupt_file",
    `The repository's index (.git/index) cannot be read: ${reason}.`,
    "Check it with `git status`; `rm .git/index && git reset` rebuilds it from HEAD.",
  );
}
