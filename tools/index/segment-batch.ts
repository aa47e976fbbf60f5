/**
 * The records and changes of an update, gathered until they hold enough postings and then written
 * as one segment. Each segment numbers its terms afresh: a record arrives with the terms its ids
 * name (the dictionary of the thread that analysed it), and its ids are rewritten onto the
 * batch's own dictionary, which is dropped with the records once they are written. So a build
 * holds at most one batch of records and one batch's terms, whatever the size of the tree.
 */
import type { IndexStore } from "./index-store.js";
import { writeRecords, type FileChange } from "./segment-build.js";
import type { SegmentSet } from "./segment-set.js";
import { type IndexedFile, TermDictionary } from "./store.js";

/** A batch is written once it holds this many files, however few postings they have: each record's own objects (symbols, chunks) cost memory too. */
const BATCH_FILES = 4000;

export class SegmentBatch {
  private dictionary = new TermDictionary();
  /** For each thread's term list met in this batch: its ids → the batch's (-1 until first used). */
  private idMaps = new Map<readonly string[], Int32Array>();
  private records: IndexedFile[] = [];
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

  /** Adds a record whose term ids name `terms` (its ids are rewritten in place). */
  record(file: IndexedFile, terms: readonly string[]): void {
    const ids = this.idMapOf(terms);
    const numbers = file.numbers;
    for (const { termsAt, distinct } of file.chunks) {
      for (let position = termsAt; position < termsAt + distinct; position++) {
        const local = numbers[position]!;
        let id = ids[local]!;
        if (id < 0) ids[local] = id = this.dictionary.intern(terms[local]!);
        numbers[position] = id;
      }
      this.postings += distinct;
    }
    this.records.push(file);
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
    const { records, changes, dictionary } = this;
    this.records = [];
    this.changes = [];
    this.postings = 0;
    this.dictionary = new TermDictionary();
    this.idMaps = new Map();
    const made = await this.store.makeSegment(this.persist, (sink) => writeRecords(sink, records, changes, dictionary.terms));
    this.segments.add(made.reader);
    this.made++;
  }

  /** The id map for `terms`, grown to cover terms added to the list since it was made. */
  private idMapOf(terms: readonly string[]): Int32Array {
    let ids = this.idMaps.get(terms);
    if (ids === undefined || ids.length < terms.length) {
      const larger = new Int32Array(Math.max(terms.length, 2 * (ids?.length ?? 0))).fill(-1);
      if (ids !== undefined) larger.set(ids);
      ids = larger;
      this.idMaps.set(terms, ids);
    }
    return ids;
  }
}
