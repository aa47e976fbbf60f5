/**
 * Which segments a merge rewrites once an index has too many. Rewriting every segment at every
 * merge costs a whole build's writing each time a few updates pile up; so the oldest segments
 * stay while each holds more live chunks than all the newer ones together hold chunks, and keeps
 * at least three quarters of its own chunks live (dead postings still count in the document
 * frequencies until a merge drops them). The newer ones are merged into one. Sizes then fall off
 * at least by half from the oldest segment on, so a file's postings are rewritten about as often
 * as the index doubles, as in a logarithmic merge policy.
 */

/** A segment's chunks, and how many of them are live. */
export interface SegmentSize {
  chunks: number;
  live: number;
}

/** Dead chunks a segment may hold, as a share of its chunks, and still stay out of a merge. */
const MAX_DEAD_SHARE = 0.25;

/** The place (oldest first) of the first segment to merge: the segments from it on become one; at least two are merged. */
export function mergeStart(sizes: readonly SegmentSize[]): number {
  let newer = sizes.reduce((sum, size) => sum + size.chunks, 0);
  for (let place = 0; place < sizes.length - 2; place++) {
    const { chunks, live } = sizes[place]!;
    newer -= chunks;
    if (live <= newer || live < (1 - MAX_DEAD_SHARE) * chunks) return place;
  }
  return Math.max(0, sizes.length - 2);
}
