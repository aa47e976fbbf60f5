/**
 * The records and changes of an update, gathered until they hold enough postings and then written
 * as one segment. Each segment numbers its terms afresh: a record arrives with the terms its ids
 * name (the dictionary of the thread that analysed it); the batch only marks which of those ids
 * its records use. Each thread's list is kept in sorted order across batches (only the terms it
 * gained since the last flush are sorted, then merged in), so at a flush the marked terms of the
 * lists are merged in order, equal ones given one id, and the records' ids rewritten onto that
 * sorted dictionary, which is dropped with the records once they are written. So no term is
 * looked up in a map here and each is sorted once per list, and a build holds at most one batch
 * of records and one batch's terms, whatever the size of the tree.
 */
import type { IndexStore } from "./index-store.js";
import { grown } from "./int-tables.js";
import { writeRecords, type FileChange } from "./segment-build.js";
import { CHUNK_HEADER } from "./store.js";
import type { SegmentSet } from "./segment-set.js";
import { compareTerms, GrowingTermList, type TermList } from "./term-list.js";
import { forEachChunk, type WritableFile } from "./writable-file.js";

/** A batch is written once it holds this many files, however few postings they have: each record's own objects (symbols, chunks) cost memory too. */
const BATCH_FILES = 4000;

/** The ids of one thread's term list that the batch's records use. */
interface UsedTerms {
  terms: TermList;
  marked: Uint8Array;
}

export class SegmentBatch {
  /** For each thread's term list met in this batch: which of its ids the records use. */
  private used = new Map<TermList, UsedTerms>();
  /** For each thread's term list met in the last batch or this one: its ids in term order. */
  private orders = new Map<TermList, Int32Array>();
  private records: WritableFile[] = [];
  /** The term list each record's ids name, by record. */
  private recordTerms: UsedTerms[] = [];
  private changes: FileChange[] = [];
  private postings = 0;
  /** Segments made so far. */
  made = 0;

  constructor(
    private readonly store: IndexStore,
    private readonly segments: SegmentSet,
    private readonly persist: boolean,
    /** Term postings a batch gathers before it is written. */
    private readonly limit: number,
  ) {}

  /** Adds a record whose term ids name `terms` (its ids are rewritten in place when the batch is written). */
  record(file: WritableFile, terms: TermList): void {
    const used = this.usedOf(terms);
    const numbers = file.numbers;
    const { marked } = used;
    for (let position = 0; position < numbers.length; ) {
      const distinct = numbers[position + CHUNK_HEADER - 1]!;
      const termsAt = position + CHUNK_HEADER;
      for (let index = termsAt; index < termsAt + distinct; index++) {
        const local = numbers[index]!;
        marked[local] = 1;
      }
      this.postings += distinct;
      position = termsAt + 2 * distinct;
    }
    this.records.push(file);
    this.recordTerms.push(used);
  }

  change(change: FileChange): void {
    this.changes.push(change);
  }

  /** Nothing gathered since the last flush. */
  get empty(): boolean {
    return this.records.length === 0 && this.changes.length === 0;
  }

  get full(): boolean {
    return this.postings >= this.limit || this.records.length >= BATCH_FILES;
  }

  /** Writes what is gathered as a segment (nothing when nothing is) and starts an empty batch. */
  async flush(): Promise<void> {
    if (this.empty) return;
    const { records, recordTerms, changes, used } = this;
    this.records = [];
    this.recordTerms = [];
    this.changes = [];
    this.postings = 0;
    this.used = new Map();
    const lists = [...used.values()];
    const orders = new Map(lists.map(({ terms }) => [terms, ordered(terms, this.orders.get(terms))]));
    this.orders = orders;
    // Between the steps of a flush, worker threads' replies are taken in and their next files sent, so they do not run dry while it lasts.
    await nextTurn();
    const terms = renumber(
      records,
      recordTerms,
      lists.map((list) => ({ ...list, order: orders.get(list.terms)! })),
    );
    await nextTurn();
    const made = await this.store.makeSegment(this.persist, (sink) => writeRecords(sink, records, changes, terms));
    this.segments.add(made.reader);
    this.made++;
  }

  /** The used-id marks for `terms`, grown to cover terms added to the list since they were made. */
  private usedOf(terms: TermList): UsedTerms {
    let used = this.used.get(terms);
    if (used === undefined) {
      used = { terms, marked: new Uint8Array(terms.count) };
      this.used.set(terms, used);
    } else if (used.marked.length < terms.count) used.marked = grown(used.marked, terms.count);
    return used;
  }
}

/** Resolves after the events waiting now (messages, timers, I/O) have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The ids of `terms` in term order, from `known` (the order of the list's first `known.length` terms) and its newer terms sorted and merged in. */
function ordered(terms: TermList, known: Int32Array | undefined): Int32Array {
  const from = known?.length ?? 0;
  if (from === terms.count && known !== undefined) return known;
  const added = sortedIds(terms, from);
  const order = new Int32Array(terms.count);
  let position = 0;
  let next = 0;
  for (let index = 0; index < from; index++) {
    const id = known![index]!;
    while (next < added.length && compareTerms(terms, added[next]!, terms, id) < 0) order[position++] = added[next++]!;
    order[position++] = id;
  }
  while (next < added.length) order[position++] = added[next++]!;
  return order;
}

const ID_SPAN = 2 ** 24;
/** A byte 0..127 of a term is the digit byte + 1 of a key, and 0 marks a term's end, so a shorter term orders before a longer one it starts. */
const BASE = 129;
/** Bytes per key: 129^4 < 2^29, and with an id below 2^24 a key and its id fit the 53 bits of a double exactly. */
const KEY_BYTES = 4;
/** Runs up to this long are sorted by comparing their terms. */
const SMALL_RUN = 8;

/**
 * The ids `from` .. terms.count - 1 in term order, sorted by their bytes four at a time (most
 * significant first): each id is packed with the key of its term's next four bytes into one
 * number, a numeric sort orders a run by key without calling a comparator, and each run sharing a
 * key is sorted again on the bytes after it. Terms are made of ASCII identifier characters; a list
 * holding any other byte (or too many terms) is sorted by comparator.
 */
export function sortedIds(terms: TermList, from: number): Int32Array {
  const count = terms.count - from;
  const ids = new Int32Array(count);
  for (let index = 0; index < count; index++) ids[index] = from + index;
  const bytes = terms.bytes;
  let ascii = terms.count < ID_SPAN;
  for (let position = terms.startOf(from); ascii && position < terms.startOf(terms.count); position++) ascii = bytes[position]! < 128;
  if (!ascii) return ids.sort((left, right) => compareTerms(terms, left, terms, right));
  sortRun(terms, ids, new Float64Array(count), 0, count, 0);
  return ids;
}

/** Sorts ids[start, end), whose terms share their first `depth` bytes, by their bytes from `depth` on (`packed` is scratch of ids' length). */
function sortRun(terms: TermList, ids: Int32Array, packed: Float64Array, start: number, end: number, depth: number): void {
  if (end - start <= SMALL_RUN) {
    for (let index = start + 1; index < end; index++) {
      const id = ids[index]!;
      let at = index;
      for (; at > start && compareTerms(terms, ids[at - 1]!, terms, id) > 0; at--) ids[at] = ids[at - 1]!;
      ids[at] = id;
    }
    return;
  }
  for (let index = start; index < end; index++) packed[index] = keyOf(terms, ids[index]!, depth) * ID_SPAN + ids[index]!;
  packed.subarray(start, end).sort();
  let runStart = start;
  for (let index = start; index <= end; index++) {
    if (index < end) ids[index] = packed[index]! % ID_SPAN;
    if (index === end || Math.floor(packed[index]! / ID_SPAN) !== Math.floor(packed[runStart]! / ID_SPAN)) {
      // Equal keys that end a term would be equal terms, which a list does not hold twice.
      if (index - runStart > 1 && Math.floor(packed[runStart]! / ID_SPAN) % BASE !== 0) sortRun(terms, ids, packed, runStart, index, depth + KEY_BYTES);
      runStart = index;
    }
  }
}

/** The key of term id's bytes depth .. depth + 3: a digit of byte + 1 each, 0 past its end. */
function keyOf(terms: TermList, id: number, depth: number): number {
  const bytes = terms.bytes;
  const start = terms.startOf(id) + depth;
  const end = terms.endOf(id);
  let key = 0;
  for (let index = 0; index < KEY_BYTES; index++) key = key * BASE + (start + index < end ? bytes[start + index]! + 1 : 0);
  return key;
}

/**
 * Merges the used terms of every list in term order (by bytes, which for ASCII terms is the
 * segments' order by code units), gives equal terms one id in that order, and rewrites each
 * record's ids onto it; returns the sorted terms.
 */
function renumber(records: readonly WritableFile[], recordTerms: readonly UsedTerms[], lists: ReadonlyArray<UsedTerms & { order: Int32Array }>): TermList {
  // Each list's used ids, in term order.
  const runs = lists.map(({ order, marked }) => {
    const run = new Int32Array(order.length);
    let length = 0;
    for (const id of order) if (id < marked.length && marked[id] === 1) run[length++] = id;
    return run.subarray(0, length);
  });
  const maps = new Map(lists.map((list) => [list.terms, new Int32Array(list.marked.length)]));
  const mapsByList = [...maps.values()];
  const termLists = lists.map((list) => list.terms);
  const heads = new Int32Array(runs.length);
  const sorted = new GrowingTermList();
  for (;;) {
    let smallestList = -1;
    for (let list = 0; list < runs.length; list++) {
      if (heads[list]! === runs[list]!.length) continue;
      if (smallestList < 0 || compareTerms(termLists[list]!, runs[list]![heads[list]!]!, termLists[smallestList]!, runs[smallestList]![heads[smallestList]!]!) < 0)
        smallestList = list;
    }
    if (smallestList < 0) break;
    const smallest = runs[smallestList]![heads[smallestList]!]!;
    const smallestTerms = termLists[smallestList]!;
    const id = sorted.push(smallestTerms.bytes, smallestTerms.startOf(smallest), smallestTerms.endOf(smallest));
    for (let list = 0; list < runs.length; list++) {
      if (heads[list]! === runs[list]!.length) continue;
      const local = runs[list]![heads[list]!]!;
      if (list !== smallestList && compareTerms(termLists[list]!, local, smallestTerms, smallest) !== 0) continue;
      mapsByList[list]![local] = id;
      heads[list]!++;
    }
  }
  records.forEach((file, position) => {
    const map = maps.get(recordTerms[position]!.terms)!;
    forEachChunk(file.numbers, (termsAt, distinct) => {
      for (let index = termsAt; index < termsAt + distinct; index++) file.numbers[index] = map[file.numbers[index]!]!;
    });
  });
  return sorted;
}
