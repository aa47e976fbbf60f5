/**
 * The records and changes of an update, gathered until they hold enough postings and then written
 * as one segment. Each segment numbers its terms afresh: a record arrives with the terms its ids
 * name (the dictionary of the thread that analysed it); the batch only marks which of those ids
 * its records use. At a flush the marked terms of every thread's list are sorted together, equal
 * ones given one id, and the records' ids rewritten onto that sorted dictionary, which is dropped
 * with the records once they are written. So no term is looked up in a map here, and a build
 * holds at most one batch of records and one batch's terms, whatever the size of the tree.
 */
import type { IndexStore } from "./index-store.js";
import { writeRecords, type FileChange } from "./segment-build.js";
import type { SegmentSet } from "./segment-set.js";
import type { IndexedFile } from "./store.js";

/** A batch is written once it holds this many files, however few postings they have: each record's own objects (symbols, chunks) cost memory too. */
const BATCH_FILES = 4000;

/** The ids of one thread's term list that the batch's records use. */
interface UsedTerms {
  terms: readonly string[];
  marked: Uint8Array;
  ids: number[];
}

export class SegmentBatch {
  /** For each thread's term list met in this batch: which of its ids the records use. */
  private used = new Map<readonly string[], UsedTerms>();
  private records: IndexedFile[] = [];
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
  record(file: IndexedFile, terms: readonly string[]): void {
    const used = this.usedOf(terms);
    const numbers = file.numbers;
    const { marked, ids } = used;
    for (const { termsAt, distinct } of file.chunks) {
      for (let position = termsAt; position < termsAt + distinct; position++) {
        const local = numbers[position]!;
        if (marked[local] === 0) {
          marked[local] = 1;
          ids.push(local);
        }
      }
      this.postings += distinct;
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
    const terms = renumber(records, recordTerms, [...used.values()]);
    const made = await this.store.makeSegment(this.persist, (sink) => writeRecords(sink, records, changes, terms));
    this.segments.add(made.reader);
    this.made++;
  }

  /** The used-id marks for `terms`, grown to cover terms added to the list since they were made. */
  private usedOf(terms: readonly string[]): UsedTerms {
    let used = this.used.get(terms);
    if (used === undefined) {
      used = { terms, marked: new Uint8Array(terms.length), ids: [] };
      this.used.set(terms, used);
    } else if (used.marked.length < terms.length) {
      const larger = new Uint8Array(Math.max(terms.length, 2 * used.marked.length));
      larger.set(used.marked);
      used.marked = larger;
    }
    return used;
  }
}

/**
 * Sorts the used terms of every list together (by code units, as segments store them), gives
 * equal terms one id in that order, and rewrites each record's ids onto it; returns the sorted
 * terms.
 */
function renumber(records: readonly IndexedFile[], recordTerms: readonly UsedTerms[], lists: readonly UsedTerms[]): string[] {
  const keys: string[] = [];
  const owners: number[] = [];
  const locals: number[] = [];
  lists.forEach((list, owner) => {
    for (const id of list.ids) {
      keys.push(list.terms[id]!);
      owners.push(owner);
      locals.push(id);
    }
  });
  const order = Array.from(keys.keys()).sort((left, right) => (keys[left]! < keys[right]! ? -1 : keys[left]! > keys[right]! ? 1 : 0));
  const maps = new Map(lists.map((list) => [list, new Int32Array(list.marked.length)]));
  const mapsByOwner = [...maps.values()];
  const sorted: string[] = [];
  for (const entry of order) {
    const key = keys[entry]!;
    if (sorted[sorted.length - 1] !== key) sorted.push(key);
    mapsByOwner[owners[entry]!]![locals[entry]!] = sorted.length - 1;
  }
  records.forEach((file, position) => {
    const map = maps.get(recordTerms[position]!)!;
    const numbers = file.numbers;
    for (const { termsAt, distinct } of file.chunks) for (let index = termsAt; index < termsAt + distinct; index++) numbers[index] = map[numbers[index]!]!;
  });
  return sorted;
}
