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
