/** Index of the first number or string in `sorted` (ascending; strings in code-unit order) that is at least `value`, or `sorted.length`. */
export function firstAtOrAfter<Value extends number | string>(sorted: ArrayLike<Value>, value: Value): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Orders strings by their UTF-16 code units, as `<` does: the same order on every machine, and
 * unlike `localeCompare` it needs no ICU collator (whose first use costs a fresh process about
 * 10 ms).
 */
export function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
