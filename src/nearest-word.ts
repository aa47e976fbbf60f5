/** Telling which known word a mistyped one meant: config keys, protocol, action and parameter names. */

/**
 * The word of `known` nearest to `word` (case, `_` and `-` ignored), if it is within `maxDistance`
 * edits (a swap of two neighbours is one) and no other known word is as near: an ambiguous guess
 * is no help to whoever applies it.
 */
export function nearestWord(word: string, known: readonly string[], maxDistance = 2): string | undefined {
  const written = folded(word);
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  let tied = false;
  for (const candidate of known) {
    const distance = editDistance(written, folded(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) tied = true;
  }
  return tied ? undefined : best;
}

function folded(word: string): string {
  return word.toLowerCase().replace(/[_-]/g, "");
}

/** Edits (insert, delete, replace, swap of neighbours) from `left` to `right`. */
function editDistance(left: string, right: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      const substitution = previous[column - 1]! + (left[row - 1] === right[column - 1] ? 0 : 1);
      let distance = Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution);
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1]) distance = Math.min(distance, beforePrevious[column - 2]! + 1);
      current.push(distance);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[right.length]!;
}
