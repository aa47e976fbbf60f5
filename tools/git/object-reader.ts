/**
 * Reads git objects the way git does, beside isomorphic-git for the read-only paths (log, diff,
 * status, checkout's tree reads): packs through their indexes with positioned reads and node's
 * zlib, delta chains resolved with a bounded cache of bases, loose objects inflated from their
 * files. One reader per repository is kept for the process; it lists the pack folder again when
 * an object is not found and whenever a repository is opened, so a `git gc` or a fetch in
 * between is seen.
 */
import * as nodeFs from "node:fs";
import path from "node:path";
import { inflateSync } from "node:zlib";
import { ToolError } from "../errors.js";
import { corruptPack, PackFile, type ObjectType } from "./pack-file.js";
import type { PackFileSystem } from "./pack-index.js";

export type { ObjectType } from "./pack-file.js";

export interface GitObject {
  type: ObjectType;
  content: Buffer;
}

/** The file calls the reader makes: node:fs by default; tests wrap it to count what is read. */
export interface ObjectFileSystem extends PackFileSystem {
  readFileSync(file: string): Buffer;
  readdirSync(folder: string): string[];
}

/** How many bytes of resolved delta bases one repository keeps (git's core.deltaBaseCacheLimit is 96 MB). */
const KEPT_BASE_BYTES = 32 * 1024 * 1024;
/** A delta chain longer than this is taken for a loop in a damaged pack (git writes at most 4,095). */
const LONGEST_CHAIN = 10_000;
const OID = /^[0-9a-f]{40}$/;
/** How many repositories keep their packs open at once. */
const KEPT_READERS = 8;

export class ObjectReader {
  private packs: PackFile[] = [];
  private listing = "";
  /** Set when the pack folder may have changed since it was last listed (a new action began). */
  private unchecked = true;
  /** Resolved delta bases by pack (its serial number), each keyed by the entry's offset (a small integer: cheap keys). */
  private readonly bases = new Map<number, Map<number, GitObject>>();
  private baseBytes = 0;
  /** The base kept or used last: already the most recently used. */
  private lastBase: GitObject | undefined;

  constructor(
    private readonly fs: ObjectFileSystem,
    readonly gitdir: string,
  ) {}

  /** The object, or undefined when the repository does not have it. */
  read(oid: string): GitObject | undefined {
    if (!OID.test(oid)) return undefined;
    if (this.unchecked) this.refresh();
    return this.readWithin(oid, 0);
  }

  /** Lists the pack folder again before the next read (packs are opened only when an object is read). */
  recheck(): void {
    this.unchecked = true;
  }

  /** Lists the pack folder and opens the packs that are new; closes the ones that are gone. */
  refresh(): boolean {
    this.unchecked = false;
    const folder = path.join(this.gitdir, "objects", "pack");
    let names: string[];
    try {
      names = this.fs.readdirSync(folder);
    } catch {
      names = [];
    }
    const packs = names.filter((name) => name.endsWith(".pack") && names.includes(`${name.slice(0, -5)}.idx`)).sort();
    const listing = packs.join("\n");
    if (listing === this.listing) return false;
    const open = new Map(this.packs.map((pack) => [path.basename(pack.file), pack]));
    const next: PackFile[] = [];
    try {
      for (const name of packs) next.push(open.get(name) ?? PackFile.open(this.fs, path.join(folder, name)));
    } catch (error) {
      for (const pack of next) if (!this.packs.includes(pack)) pack.close();
      throw error;
    }
    for (const pack of this.packs) if (!next.includes(pack)) pack.close();
    this.packs = next;
    this.listing = listing;
    this.bases.clear();
    this.baseBytes = 0;
    this.lastBase = undefined;
    return true;
  }

  close(): void {
    for (const pack of this.packs) pack.close();
    this.packs = [];
    this.listing = "";
    this.unchecked = true;
  }

  private readWithin(oid: string, depth: number): GitObject | undefined {
    if (depth > LONGEST_CHAIN)
      throw new ToolError("corrupt_file", `The deltas leading to object ${oid} form a loop; nothing was changed.`, "Run `git fsck` to see what is damaged.");
    const name = Buffer.from(oid, "hex");
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const pack of this.packs) {
        const offset = pack.index.offsetOf(name);
        if (offset !== undefined) return this.fromPack(pack, offset, depth);
      }
      const loose = this.readLoose(oid);
      if (loose !== undefined) return loose;
      if (!this.refresh()) return undefined;
    }
    return undefined;
  }

  private readLoose(oid: string): GitObject | undefined {
    const file = path.join(this.gitdir, "objects", oid.slice(0, 2), oid.slice(2));
    let stored: Buffer;
    try {
      stored = this.fs.readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const damaged = (reason: string) =>
      new ToolError("corrupt_file", `The object file ${file} is damaged (${reason}); nothing was changed.`, "Run `git fsck` to see what is affected.");
    let data: Buffer;
    try {
      data = inflateSync(stored);
    } catch (error) {
      throw damaged(`it does not inflate: ${(error as Error).message}`);
    }
    const space = data.indexOf(0x20);
    const end = data.indexOf(0);
    const type = data.toString("latin1", 0, space);
    if (space < 0 || end < space || !["commit", "tree", "blob", "tag"].includes(type)) throw damaged("its header is not a git object header");
    const content = data.subarray(end + 1);
    if (Number(data.toString("latin1", space + 1, end)) !== content.length) throw damaged("its size is not the one its header says");
    return { type: type as ObjectType, content };
  }

  /** The object at `offset`, following its delta chain down to a whole object or a kept base. */
  private fromPack(pack: PackFile, offset: number, depth: number): GitObject {
    const offsets: number[] = [];
    const deltas: Buffer[] = [];
    let at = offset;
    let base: GitObject | undefined;
    while (base === undefined) {
      base = this.keptBase(pack, at);
      if (base !== undefined) break;
      const entry = pack.entryAt(at);
      if (entry.kind === "object") {
        base = { type: entry.type, content: entry.content };
        if (deltas.length > 0) this.keepBase(pack, at, base);
        break;
      }
      offsets.push(at);
      deltas.push(entry.delta);
      if (deltas.length > LONGEST_CHAIN) throw corruptPack(pack.file, `the delta chain at byte ${offset} does not end`);
      if ("baseOffset" in entry) {
        at = entry.baseOffset;
        continue;
      }
      base = this.readWithin(entry.baseOid, depth + 1);
      if (base === undefined) throw missingObject(entry.baseOid, `the base of a delta in ${pack.file}`);
    }
    for (let link = deltas.length - 1; link >= 0; link--) {
      base = { type: base.type, content: applyDelta(base.content, deltas[link]!, pack.file) };
      if (link > 0) this.keepBase(pack, offsets[link]!, base);
    }
    return base;
  }

  /** The kept base at `offset` in `pack`, now the most recently used. */
  private keptBase(pack: PackFile, offset: number): GitObject | undefined {
    const kept = this.bases.get(pack.serial);
    const known = kept?.get(offset);
    if (known !== undefined && known !== this.lastBase) {
      kept!.delete(offset);
      kept!.set(offset, known);
      this.lastBase = known;
    }
    return known;
  }

  private keepBase(pack: PackFile, offset: number, object: GitObject): void {
    let kept = this.bases.get(pack.serial);
    if (kept === undefined) this.bases.set(pack.serial, (kept = new Map()));
    if (object.content.length > KEPT_BASE_BYTES / 8 || kept.has(offset)) return;
    kept.set(offset, object);
    this.lastBase = object;
    this.baseBytes += object.content.length;
    // The least recently used go first: each pack's map is in the order its bases were last used, and the packs are in the order they were first used.
    for (const packBases of this.bases.values()) {
      for (const [oldest, base] of packBases) {
        if (this.baseBytes <= KEPT_BASE_BYTES) return;
        packBases.delete(oldest);
        this.baseBytes -= base.content.length;
      }
    }
  }
}

/** Rebuilds an object from its base and a git delta (copy and insert instructions); a broken delta is a damaged `packFile`. */
export function applyDelta(base: Buffer, delta: Buffer, packFile: string): Buffer {
  const deltaLength = delta.length;
  const baseLength = base.length;
  let cursor = sizeEnd(delta, 0);
  if (cursor < 0 || sizeAt(delta, 0) !== baseLength) throw corruptPack(packFile, cursor < 0 ? "a delta is cut short" : "a delta was made against a base of another size");
  const size = sizeAt(delta, cursor);
  cursor = sizeEnd(delta, cursor);
  if (cursor < 0) throw corruptPack(packFile, "a delta is cut short");
  const result = Buffer.allocUnsafe(size);
  let written = 0;
  // Deltas of source code are mostly short copies and inserts (about 20 and 10 bytes): byte loops
  // and bit operations, with Buffer#copy only for long runs.
  while (cursor < deltaLength) {
    const instruction = delta[cursor++]!;
    if (instruction & 0x80) {
      let from = 0;
      let length = 0;
      if (instruction & 0x01) from = delta[cursor++]!;
      if (instruction & 0x02) from |= delta[cursor++]! << 8;
      if (instruction & 0x04) from |= delta[cursor++]! << 16;
      if (instruction & 0x08) from = (from | (delta[cursor++]! << 24)) >>> 0;
      if (instruction & 0x10) length = delta[cursor++]!;
      if (instruction & 0x20) length |= delta[cursor++]! << 8;
      if (instruction & 0x40) length |= delta[cursor++]! << 16;
      if (length === 0) length = 0x10000;
      if (cursor > deltaLength || from + length > baseLength || written + length > size) throw corruptPack(packFile, "a delta copies from outside its base");
      if (length < 64) {
        const end = from + length;
        for (let at = from; at < end; at++) result[written++] = base[at]!;
      } else written += base.copy(result, written, from, from + length);
    } else if (instruction !== 0) {
      const end = cursor + instruction;
      if (end > deltaLength || written + instruction > size) throw corruptPack(packFile, "a delta inserts more than it holds");
      for (; cursor < end; cursor++) result[written++] = delta[cursor]!;
    } else {
      throw corruptPack(packFile, "a delta holds the reserved instruction 0");
    }
  }
  if (written !== size) throw corruptPack(packFile, "a delta builds fewer bytes than it says");
  return result;
}

/** A delta's size (a little-endian base-128 number) at `from`. */
function sizeAt(delta: Buffer, from: number): number {
  let value = 0;
  let shift = 0;
  for (let at = from; at < delta.length; at++) {
    const byte = delta[at]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
  }
  return value;
}

/** Where the size at `from` ends, or -1 when the delta ends inside it. */
function sizeEnd(delta: Buffer, from: number): number {
  for (let at = from; at < delta.length; at++) if ((delta[at]! & 0x80) === 0) return at + 1;
  return -1;
}

/** The error for an object the repository should have and does not. */
export function missingObject(oid: string, wanted: string): ToolError {
  return new ToolError("not_found", `The repository has no object ${oid} (${wanted}): it is damaged or incomplete; nothing was changed.`, [
    "Run `git fsck` to see what is missing; `git fetch` from a remote that has it restores it.",
  ]);
}

const readers = new Map<string, ObjectReader>();

/**
 * The process's reader for the repository at `gitdir`; it lists the pack folder again before its
 * next read. The least recently used repositories beyond a few close their packs.
 */
export function objectReaderFor(gitdir: string, fs: ObjectFileSystem = nodeFs as unknown as ObjectFileSystem): ObjectReader {
  let reader = readers.get(gitdir);
  if (reader !== undefined) readers.delete(gitdir);
  else reader = new ObjectReader(fs, gitdir);
  readers.set(gitdir, reader);
  for (const [oldest, kept] of readers) {
    if (readers.size <= KEPT_READERS) break;
    readers.delete(oldest);
    kept.close();
  }
  reader.recheck();
  return reader;
}
