/**
 * Which segments a merge rewrites once an index has too many. Rewriting every segment at every
 * merge costs a whole build's writing each time a few updates pile up (a build itself leaves
 * several segments of like size). So a merge takes the three newest segments, then goes back
 * while the next older one holds no more live chunks than those taken hold chunks: an older
 * segment joins a merge only once the newer ones together outweigh it, and its postings are
 * rewritten about as often as the segments after it double (a logarithmic merge). A segment with more than a quarter of its
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

/**
 * Segments a merge takes at the least (all when there are fewer): a merge of only the two newest
 * leaves the index one update from the next merge, and a merge costs a fixed 0.05–0.1 s or more
 * in a fresh process (docs/performance.md).
 */
const MIN_MERGED = 3;

/** The place (oldest first) of the first segment to merge: the segments from it on become one. */
export function mergeStart(sizes: readonly SegmentSize[]): number {
  const dead = sizes.findIndex(({ chunks, live }) => live < (1 - MAX_DEAD_SHARE) * chunks);
  let start = Math.max(0, sizes.length - MIN_MERGED);
  let taken = 0;
  for (let place = start; place < sizes.length; place++) taken += sizes[place]!.chunks;
  while (start > 0 && (sizes[start - 1]!.live <= taken || (dead >= 0 && start - 1 >= dead))) {
    start--;
    taken += sizes[start]!.chunks;
  }
  return start;
}
