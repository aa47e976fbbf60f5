/**
 * Which segments a merge rewrites once an index has too many. Rewriting every segment at every
 * merge costs a whole build's writing each time a few updates pile up (a build itself leaves
 * several segments of like size). So a merge takes the newest segments, going back while the
 * next older one holds no more live chunks than those taken hold chunks: a segment joins a merge
 * only once the newer ones together outweigh it, and its postings are rewritten about as often as
 * the segments after it double (a logarithmic merge). A segment with more than a quarter of its
 * chunks dead is merged whatever it weighs, with all newer ones: dead postings still count in the
 * document frequencies until a merge drops them.
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
  if (sizes.length < 2) return 0;
  const dead = sizes.findIndex(({ chunks, live }) => live < (1 - MAX_DEAD_SHARE) * chunks);
  let start = sizes.length - 2;
  let taken = sizes[start]!.chunks + sizes[start + 1]!.chunks;
  while (start > 0 && (sizes[start - 1]!.live <= taken || (dead >= 0 && start - 1 >= dead))) {
    start--;
    taken += sizes[start]!.chunks;
  }
  return start;
}
