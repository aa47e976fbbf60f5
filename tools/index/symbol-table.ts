/**
 * A file's meta blob in a segment: its symbol table, then its imports and chunk symbols as JSON.
 * The table holds each definition's name, kind, lines and parent, and the name's parts already
 * split, stemmed and lower-cased (`nameParts`), as numbers into the file's list of distinct
 * parts: ranking matches a query against each distinct part once and reads no name it does not
 * show. The table is read in place: its numbers are fixed-width columns viewed as typed arrays
 * (no definition is decoded to open it, so a search that looks at 25 files' tables pays for the
 * few names it shows), and definitions are made into objects only when something asks for them.
 *
 * Layout, all numbers 32-bit little-endian: a header of `HEADER_WORDS` (the CRC-32 of the rest of
 * the table, then the symbol count, the part-number total, the distinct parts, the parents, and
 * the byte lengths of the names, parts and parents pools); the columns (each name's end in the
 * names pool, line, end line, parent (0 for none, else its number + 1), where its part numbers
 * start (one more than the symbols), the part numbers, each parent's end in the parents pool);
 * then bytes: each symbol's kind, the names (UTF-8), the distinct parts (ASCII, in code-unit
 * order, each followed by a newline but the last) and the parents (UTF-8). The rest of the blob
 * is JSON `{imports, chunkSymbols}`.
 * The parts are made by tokenize.ts: a change to how it splits or stems changes the format.
 */
import { firstAtOrAfter } from "../../grammar/sorted.js";
import { checksumOf, SegmentDamage } from "./segment-bytes.js";
import type { SymbolDefinition, SymbolKind } from "./symbols.js";
import { isStopword, splitIdentifier, stem } from "./tokenize.js";

/** Kinds by their number in the table (append only: the numbers are stored). */
const KINDS: readonly SymbolKind[] = ["function", "method", "class", "interface", "type", "enum", "struct", "trait", "constant", "variable", "module", "macro"];
const KIND_NUMBERS = new Map(KINDS.map((kind, number) => [kind, number]));
/** Header: checksum, symbols, part numbers, distinct parts, parents, names bytes, parts bytes, parents bytes. */
const HEADER_WORDS = 8;
const HEADER_BYTES = 4 * HEADER_WORDS;
/** Separates the distinct parts in their pool (parts are ASCII letters and digits). */
const PART_SEPARATOR = "\n";

/** The stemmed parts of a name, without stopwords or one-letter parts: what a name is matched on. */
export function nameParts(name: string): string[] {
  return splitIdentifier(name)
    .filter((part) => part.length >= 2 && !isStopword(part))
    .map((part) => stem(part));
}

function numberOf(numbers: Map<string, number>, key: string): number {
  let number = numbers.get(key);
  if (number === undefined) numbers.set(key, (number = numbers.size));
  return number;
}

/** The table's sizes, from its header: where each column and pool starts, and where the table ends. */
interface TableShape {
  count: number;
  partTotal: number;
  partCount: number;
  parentCount: number;
  namesBytes: number;
  partsBytes: number;
  parentsBytes: number;
}

/** Words of the columns that follow the header. */
function columnWords(shape: TableShape): number {
  return 5 * shape.count + 1 + shape.partTotal + shape.parentCount;
}

/** Where the table's kinds start (its pools follow them), and where the table ends. */
function tableBounds(shape: TableShape): { kindsAt: number; end: number } {
  const kindsAt = HEADER_BYTES + 4 * columnWords(shape);
  return { kindsAt, end: kindsAt + shape.count + shape.namesBytes + shape.partsBytes + shape.parentsBytes };
}

/** Each text's UTF-8 bytes one after another, and where each ends. */
function pool(texts: readonly string[]): { bytes: Buffer; ends: number[] } {
  const ends: number[] = [];
  let length = 0;
  for (const text of texts) ends.push((length += Buffer.byteLength(text, "utf8")));
  const bytes = Buffer.allocUnsafe(length);
  texts.forEach((text, at) => bytes.write(text, at === 0 ? 0 : ends[at - 1]!, "utf8"));
  return { bytes, ends };
}

/** A file's meta blob: its symbol table, then its imports and chunk symbols (each chunk's symbol, "" for none). */
export function encodeFileMeta(symbols: readonly SymbolDefinition[], imports: readonly string[], chunkSymbols: readonly string[]): Uint8Array {
  const partsByName = symbols.map((symbol) => nameParts(symbol.name));
  const parts = new Map<string, number>();
  let partTotal = 0;
  for (const partsOfName of partsByName) {
    partTotal += partsOfName.length;
    for (const part of partsOfName) parts.set(part, 0);
  }
  // Parts in code-unit order (the default sort's): the parts that start with a given text are one run, found by binary search.
  const sorted = [...parts.keys()].sort();
  sorted.forEach((part, number) => parts.set(part, number));
  const parents = new Map<string, number>();
  for (const symbol of symbols) if (symbol.parent !== undefined) numberOf(parents, symbol.parent);
  const names = pool(symbols.map((symbol) => symbol.name));
  const partBytes = Buffer.from(sorted.join(PART_SEPARATOR), "latin1");
  const parentNames = pool([...parents.keys()]);
  const shape: TableShape = {
    count: symbols.length,
    partTotal,
    partCount: sorted.length,
    parentCount: parents.size,
    namesBytes: names.bytes.length,
    partsBytes: partBytes.length,
    parentsBytes: parentNames.bytes.length,
  };
  const { kindsAt, end } = tableBounds(shape);
  const rest = Buffer.from(JSON.stringify({ imports, chunkSymbols }), "utf8");
  const blob = new Uint8Array(end + rest.length);
  const words = new Uint32Array(blob.buffer, 0, kindsAt / 4);
  words.set([0, shape.count, partTotal, shape.partCount, shape.parentCount, shape.namesBytes, shape.partsBytes, shape.parentsBytes]);
  const count = symbols.length;
  let partAt = HEADER_WORDS + 4 * count + count + 1;
  symbols.forEach((symbol, at) => {
    const kind = KIND_NUMBERS.get(symbol.kind);
    if (kind === undefined) throw new Error(`no number for the symbol kind ${symbol.kind}`);
    words[HEADER_WORDS + at] = names.ends[at]!;
    words[HEADER_WORDS + count + at] = symbol.line;
    words[HEADER_WORDS + 2 * count + at] = symbol.endLine;
    words[HEADER_WORDS + 3 * count + at] = symbol.parent === undefined ? 0 : parents.get(symbol.parent)! + 1;
    blob[kindsAt + at] = kind;
    for (const part of partsByName[at]!) words[partAt++] = parts.get(part)!;
    words[HEADER_WORDS + 4 * count + at + 1] = partAt - (HEADER_WORDS + 5 * count + 1);
  });
  words.set(parentNames.ends, partAt);
  blob.set(names.bytes, kindsAt + count);
  blob.set(partBytes, kindsAt + count + names.bytes.length);
  blob.set(parentNames.bytes, kindsAt + count + names.bytes.length + partBytes.length);
  blob.set(rest, end);
  words[0] = checksumOf(blob.subarray(4, end));
  return blob;
}

/** A file's symbol table read in place: names and parts by symbol number, objects made on demand. */
export class SymbolNames {
  /** The file's distinct name parts, in code-unit order. */
  readonly parts: readonly string[];
  /** Symbol i's part numbers are `partNumbers[partStarts[i]]` up to `partNumbers[partStarts[i + 1]]`, in name order. */
  readonly partStarts: Uint32Array;
  readonly partNumbers: Uint32Array;
  /** Each symbol's 1-based first line, by symbol number. */
  readonly lines: Uint32Array;
  private readonly nameEnds: Uint32Array;
  private readonly endLines: Uint32Array;
  /** 0 for none, else the parent's number + 1. */
  private readonly parentOf: Uint32Array;
  private readonly parentEnds: Uint32Array;
  private readonly kinds: Uint8Array;
  private readonly namesAt: number;
  private readonly parentsAt: number;
  private readonly shape: TableShape;
  private readonly parentNames: Array<string | undefined>;
  private definitions: SymbolDefinition[] | undefined;
  /** Where the table ends in the blob. */
  readonly end: number;

  /** Reads the table at the start of `bytes`. Throws SegmentDamage when it does not hold together. */
  constructor(private readonly bytes: Uint8Array) {
    if (bytes.length < HEADER_BYTES) throw new SegmentDamage("a file's symbol table is cut short");
    const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
    const wordAt = (at: number) => header.getUint32(at, true);
    const shape: TableShape = {
      count: wordAt(4),
      partTotal: wordAt(8),
      partCount: wordAt(12),
      parentCount: wordAt(16),
      namesBytes: wordAt(20),
      partsBytes: wordAt(24),
      parentsBytes: wordAt(28),
    };
    const { kindsAt, end } = tableBounds(shape);
    // Sizes beyond the bytes are damage, not a reason to allocate.
    if (end > bytes.length) throw new SegmentDamage("a file's symbol table counts more than it holds");
    if (checksumOf(bytes.subarray(4, end)) !== wordAt(0)) throw new SegmentDamage("a file's symbol table does not match its checksum");
    const wordCount = columnWords(shape);
    // A view needs its bytes to start at a multiple of 4; otherwise the columns are copied.
    const words =
      bytes.byteOffset % 4 === 0
        ? new Uint32Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES, wordCount)
        : new Uint32Array(Uint8Array.prototype.slice.call(bytes, HEADER_BYTES, kindsAt).buffer);
    const { count, partTotal } = shape;
    this.nameEnds = words.subarray(0, count);
    this.lines = words.subarray(count, 2 * count);
    this.endLines = words.subarray(2 * count, 3 * count);
    this.parentOf = words.subarray(3 * count, 4 * count);
    this.partStarts = words.subarray(4 * count, 5 * count + 1);
    this.partNumbers = words.subarray(5 * count + 1, 5 * count + 1 + partTotal);
    this.parentEnds = words.subarray(5 * count + 1 + partTotal);
    this.kinds = bytes.subarray(kindsAt, kindsAt + count);
    this.namesAt = kindsAt + count;
    const partsAt = this.namesAt + shape.namesBytes;
    this.parentsAt = partsAt + shape.partsBytes;
    this.parts =
      shape.partCount === 0
        ? []
        : Buffer.from(bytes.buffer, bytes.byteOffset + partsAt, shape.partsBytes)
            .toString("latin1")
            .split(PART_SEPARATOR);
    if (this.parts.length !== shape.partCount) throw new SegmentDamage("a file's name parts do not match their count");
    this.shape = shape;
    this.parentNames = new Array(shape.parentCount);
    this.end = end;
  }

  get count(): number {
    return this.lines.length;
  }

  /** The numbers of the parts that start with `prefix`: one run of the sorted parts, as [first, end). */
  partsStartingWith(prefix: string): [number, number] {
    const parts = this.parts;
    const low = firstAtOrAfter(parts, prefix);
    let end = low;
    while (end < parts.length && parts[end]!.startsWith(prefix)) end++;
    return [low, end];
  }

  name(symbol: number): string {
    return this.text(this.namesAt, this.nameEnds, symbol, this.shape.namesBytes);
  }

  parent(symbol: number): string | undefined {
    const parent = this.parentOf[symbol]!;
    if (parent === 0) return undefined;
    if (!(parent <= this.shape.parentCount)) throw new SegmentDamage("a symbol names a parent its file does not list");
    return (this.parentNames[parent - 1] ??= this.text(this.parentsAt, this.parentEnds, parent - 1, this.shape.parentsBytes));
  }

  /** `Parent.name`, or the name alone. */
  qualifiedName(symbol: number): string {
    const parent = this.parent(symbol);
    return parent === undefined ? this.name(symbol) : `${parent}.${this.name(symbol)}`;
  }

  /** The 1-based first line of symbol `symbol`. */
  line(symbol: number): number {
    return this.lines[symbol]!;
  }

  /** Symbol `symbol` as an object. */
  definition(symbol: number): SymbolDefinition {
    const kind = KINDS[this.kinds[symbol]!];
    if (kind === undefined) throw new SegmentDamage("a symbol has a kind the index does not know");
    const definition: SymbolDefinition = { name: this.name(symbol), kind, line: this.lines[symbol]!, endLine: this.endLines[symbol]! };
    const parent = this.parent(symbol);
    if (parent !== undefined) definition.parent = parent;
    return definition;
  }

  /** Every definition as objects, in file order (made on first use, then kept). */
  all(): SymbolDefinition[] {
    this.definitions ??= Array.from({ length: this.count }, (_, symbol) => this.definition(symbol));
    return this.definitions;
  }

  /** Text `number` of a pool at `poolAt` whose texts end at `ends`. */
  private text(poolAt: number, ends: Uint32Array, number: number, poolBytes: number): string {
    const start = number === 0 ? 0 : ends[number - 1]!;
    const end = ends[number]!;
    if (!(start <= end && end <= poolBytes)) throw new SegmentDamage("a file's symbol table names text beyond its pool");
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + poolAt + start, end - start).toString("utf8");
  }
}

const noNames = new SymbolNames(encodeFileMeta([], [], []));

/** What a file's meta blob holds, read on demand: the symbol table at once, the JSON when asked. */
export class FileMeta {
  private rest: { imports: string[]; chunkSymbols: string[] } | undefined;

  private constructor(
    readonly names: SymbolNames,
    private readonly json: Uint8Array,
  ) {}

  /** The meta of a blob; an empty blob is a file with nothing (a removal). Throws SegmentDamage when the table does not hold together. */
  static read(bytes: Uint8Array): FileMeta {
    if (bytes.length === 0) return new FileMeta(noNames, new Uint8Array(0));
    const names = new SymbolNames(bytes);
    return new FileMeta(names, bytes.subarray(names.end));
  }

  get symbols(): SymbolDefinition[] {
    return this.names.all();
  }

  get imports(): string[] {
    return this.parsed().imports;
  }

  /** Each chunk's symbol, "" for none. */
  get chunkSymbols(): string[] {
    return this.parsed().chunkSymbols;
  }

  private parsed(): { imports: string[]; chunkSymbols: string[] } {
    if (this.rest !== undefined) return this.rest;
    if (this.json.length === 0) return (this.rest = { imports: [], chunkSymbols: [] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(this.json.buffer, this.json.byteOffset, this.json.length).toString("utf8"));
    } catch {
      throw new SegmentDamage("a file's imports are not valid JSON");
    }
    const rest = parsed as { imports?: unknown; chunkSymbols?: unknown };
    if (!Array.isArray(rest?.imports) || !Array.isArray(rest.chunkSymbols)) throw new SegmentDamage("a file's imports and chunk symbols are missing");
    this.rest = rest as { imports: string[]; chunkSymbols: string[] };
    return this.rest;
  }
}
