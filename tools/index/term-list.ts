/**
 * Term lists as bytes: a thread's terms numbered 0, 1, 2… and spelled in one pool of bytes, with
 * no string per term. Terms are lower-cased ASCII identifier characters, so ordering their bytes
 * orders them as segments do (by code units). A worker sends the terms its dictionary gained as
 * one run of bytes and their ends (`TermRun`); the main thread appends them to its copy of the
 * worker's list.
 */

import { grown } from "./int-tables.js";

/** Terms numbered 0 .. count - 1: term id's bytes are `bytes[startOf(id) .. endOf(id))`. */
export interface TermList {
  readonly count: number;
  /** Read afresh after the list grows: it may move to a larger array. */
  readonly bytes: Uint8Array;
  startOf(id: number): number;
  endOf(id: number): number;
}

/** Terms as they travel between threads: their bytes one after another, and where each ends. */
export interface TermRun {
  bytes: Uint8Array;
  ends: Int32Array;
}

/** A term list that grows by whole runs of terms or by one term at a time. */
export class GrowingTermList implements TermList {
  bytes: Uint8Array = new Uint8Array(1 << 12);
  /** Term id → where its bytes end; term id's start is the end before it (0 for the first). */
  private ends = new Int32Array(1 << 10);
  count = 0;

  startOf(id: number): number {
    return id === 0 ? 0 : this.ends[id - 1]!;
  }

  endOf(id: number): number {
    return this.ends[id]!;
  }

  /** Appends source[start, end) as the next term; returns its id. */
  push(source: Uint8Array, start: number, end: number): number {
    const at = this.count === 0 ? 0 : this.ends[this.count - 1]!;
    this.reserve(1, end - start);
    const bytes = this.bytes;
    for (let offset = 0; offset < end - start; offset++) bytes[at + offset] = source[start + offset]!;
    this.ends[this.count] = at + end - start;
    return this.count++;
  }

  /** Appends a run of terms (a worker's reply). */
  append(run: TermRun): void {
    const at = this.count === 0 ? 0 : this.ends[this.count - 1]!;
    this.reserve(run.ends.length, run.bytes.length);
    this.bytes.set(run.bytes, at);
    for (let index = 0; index < run.ends.length; index++) this.ends[this.count + index] = at + run.ends[index]!;
    this.count += run.ends.length;
  }

  private reserve(terms: number, bytes: number): void {
    const used = this.count === 0 ? 0 : this.ends[this.count - 1]!;
    if (used + bytes > this.bytes.length) this.bytes = grown(this.bytes, used + bytes);
    if (this.count + terms > this.ends.length) this.ends = grown(this.ends, this.count + terms);
  }
}

/** The terms `from` .. count - 1 of `list` as one run (copied: the run owns its buffers, so it can be transferred). */
export function termRunOf(list: TermList, from: number): TermRun {
  const first = list.startOf(from);
  const ends = new Int32Array(list.count - from);
  for (let id = from; id < list.count; id++) ends[id - from] = list.endOf(id) - first;
  // Copied into an array of its own (a Buffer's `slice` would share the pool's memory).
  const bytes = new Uint8Array(from === list.count ? 0 : list.endOf(list.count - 1) - first);
  bytes.set(list.bytes.subarray(first, first + bytes.length));
  return { bytes, ends };
}

/** Orders term `left` of list `a` against term `right` of list `b` by their bytes: negative, 0 or positive. */
export function compareTerms(a: TermList, left: number, b: TermList, right: number): number {
  const aBytes = a.bytes;
  const bBytes = b.bytes;
  let leftAt = a.startOf(left);
  const leftEnd = a.endOf(left);
  let rightAt = b.startOf(right);
  const rightEnd = b.endOf(right);
  for (; leftAt < leftEnd && rightAt < rightEnd; leftAt++, rightAt++) {
    const difference = aBytes[leftAt]! - bBytes[rightAt]!;
    if (difference !== 0) return difference;
  }
  return leftEnd - leftAt - (rightEnd - rightAt);
}

/** Term id's text (for tests and messages: the build itself makes no string per term). */
export function termText(list: TermList, id: number): string {
  return Buffer.from(list.bytes.buffer, list.bytes.byteOffset, list.bytes.length).toString("utf8", list.startOf(id), list.endOf(id));
}
