/**
 * A file's meta blob in a segment: its symbol table, then its imports and chunk symbols as JSON.
 * The table holds each definition's name, kind, lines and parent, and the name's parts already
 * split, stemmed and lower-cased (`nameParts`), as numbers into the file's list of distinct
 * parts: ranking matches a query against each distinct part once and reads no name it does not
 * show. Definitions are decoded into objects only when something asks for them.
 *
 * Layout (varints and length-prefixed UTF-8, segment-bytes.ts): symbol count, part-number count,
 * distinct parts (in code-unit order), distinct parents, then per symbol its name, kind, line,
 * end line, parent (0 for none, else its number + 1) and its part numbers; the rest is JSON
 * `{imports, chunkSymbols}`.
 * The parts are made by tokenize.ts: a change to how it splits or stems changes the format.
 */
import { firstAtOrAfter } from "../../grammar/sorted.js";
import { ByteBuffer, ByteReader, SegmentDamage } from "./segment-bytes.js";
import type { SymbolDefinition, SymbolKind } from "./symbols.js";
import { isStopword, splitIdentifier, stem } from "./tokenize.js";

/** Kinds by their number in the table (append only: the numbers are stored). */
const KINDS: readonly SymbolKind[] = ["function", "method", "class", "interface", "type", "enum", "struct", "trait", "constant", "variable", "module", "macro"];
const KIND_NUMBERS = new Map(KINDS.map((kind, number) => [kind, number]));

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

/** Reused from file to file: a blob is copied out at the end. */
const scratch = new ByteBuffer();

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
  const out = scratch;
  out.clear();
  out.varint(symbols.length);
  out.varint(partTotal);
  out.varint(sorted.length);
  for (const part of sorted) out.text(part);
  out.varint(parents.size);
  for (const parent of parents.keys()) out.text(parent);
  symbols.forEach((symbol, at) => {
    const kind = KIND_NUMBERS.get(symbol.kind);
    if (kind === undefined) throw new Error(`no number for the symbol kind ${symbol.kind}`);
    out.text(symbol.name);
    out.varint(kind);
    out.varint(symbol.line);
    out.varint(symbol.endLine);
    out.varint(symbol.parent === undefined ? 0 : parents.get(symbol.parent)! + 1);
    const partsOfName = partsByName[at]!;
    out.varint(partsOfName.length);
    for (const part of partsOfName) out.varint(parts.get(part)!);
  });
  out.raw(Buffer.from(JSON.stringify({ imports, chunkSymbols }), "utf8"));
  return out.view().slice();
}

/** A file's symbol table read in place: names and parts by symbol number, objects made on demand. */
export class SymbolNames {
  /** The file's distinct name parts, in code-unit order. */
  readonly parts: readonly string[];
  /** Symbol i's part numbers are `partNumbers[partStarts[i]]` up to `partNumbers[partStarts[i + 1]]`, in name order. */
  readonly partStarts: Uint32Array;
  readonly partNumbers: Uint32Array;
  private readonly nameAt: Uint32Array;
  private readonly nameLength: Uint32Array;
  private readonly kinds: Uint8Array;
  /** Each symbol's 1-based first line, by symbol number. */
  readonly lines: Uint32Array;
  private readonly endLines: Uint32Array;
  /** 0 for none, else the parent's number + 1. */
  private readonly parentOf: Uint32Array;
  private readonly parents: readonly string[];
  private definitions: SymbolDefinition[] | undefined;
  /** Where the table ends in the blob. */
  readonly end: number;

  /** Reads the table at the start of `bytes`. Throws SegmentDamage when it does not hold together. */
  constructor(private readonly bytes: Uint8Array) {
    const reader = new ByteReader(bytes);
    const count = reader.varint();
    const partTotal = reader.varint();
    // Every symbol takes at least six bytes and every part number one: a count beyond that is damage, not a reason to allocate.
    if (count * 6 + partTotal > bytes.length) throw new SegmentDamage("a file's symbol table counts more than it holds");
    this.parts = texts(reader, bytes.length);
    for (let part = 1; part < this.parts.length; part++) if (!(this.parts[part - 1]! < this.parts[part]!)) throw new SegmentDamage("a file's name parts are out of order");
    this.parents = texts(reader, bytes.length);
    this.nameAt = new Uint32Array(count);
    this.nameLength = new Uint32Array(count);
    this.kinds = new Uint8Array(count);
    this.lines = new Uint32Array(count);
    this.endLines = new Uint32Array(count);
    this.parentOf = new Uint32Array(count);
    this.partStarts = new Uint32Array(count + 1);
    this.partNumbers = new Uint32Array(partTotal);
    let partAt = 0;
    for (let symbol = 0; symbol < count; symbol++) {
      const length = reader.varint();
      this.nameAt[symbol] = reader.position;
      this.nameLength[symbol] = length;
      reader.position += length;
      const kind = reader.varint();
      if (kind >= KINDS.length) throw new SegmentDamage("a symbol has a kind the index does not know");
      this.kinds[symbol] = kind;
      this.lines[symbol] = reader.varint();
      this.endLines[symbol] = reader.varint();
      const parent = reader.varint();
      if (parent > this.parents.length) throw new SegmentDamage("a symbol names a parent its file does not list");
      this.parentOf[symbol] = parent;
      const parts = reader.varint();
      if (partAt + parts > partTotal) throw new SegmentDamage("a symbol has more name parts than its table counts");
      for (let part = 0; part < parts; part++) {
        const number = reader.varint();
        if (number >= this.parts.length) throw new SegmentDamage("a symbol names a part its file does not list");
        this.partNumbers[partAt++] = number;
      }
      this.partStarts[symbol + 1] = partAt;
    }
    if (partAt !== partTotal || reader.position > bytes.length) throw new SegmentDamage("a file's symbol table does not match its counts");
    this.end = reader.position;
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
    const at = this.nameAt[symbol]!;
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, this.nameLength[symbol]!).toString("utf8");
  }

  parent(symbol: number): string | undefined {
    const parent = this.parentOf[symbol]!;
    return parent === 0 ? undefined : this.parents[parent - 1];
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
    const definition: SymbolDefinition = { name: this.name(symbol), kind: KINDS[this.kinds[symbol]!]!, line: this.lines[symbol]!, endLine: this.endLines[symbol]! };
    const parent = this.parent(symbol);
    if (parent !== undefined) definition.parent = parent;
    return definition;
  }

  /** Every definition as objects, in file order (made on first use, then kept). */
  all(): SymbolDefinition[] {
    this.definitions ??= Array.from({ length: this.count }, (_, symbol) => this.definition(symbol));
    return this.definitions;
  }
}

/** A counted list of strings; a count beyond the bytes left is damage (each string takes at least one). */
function texts(reader: ByteReader, size: number): string[] {
  const count = reader.varint();
  if (count > size - reader.position) throw new SegmentDamage("a file's symbol table counts more than it holds");
  return Array.from({ length: count }, () => reader.text());
}

const noNames = new SymbolNames(new Uint8Array([0, 0, 0, 0]));

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
