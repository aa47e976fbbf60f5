/** Wording shared by the protocols' messages. */

/** `1 file`, `1,234 files`; `nouns` for irregular plurals (`1 memory`, `2 memories`). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(count)} ${count === 1 ? noun : nouns}`;
}

/**
 * One formatter for every count: `toLocaleString` makes a new one at each call, which costs
 * microseconds. Made at the first count, not when the module loads: the first Intl formatter of a
 * process loads ICU's locale data, tens of milliseconds that `clio parse` and `--version` never need.
 */
let grouped: Intl.NumberFormat | undefined;

/** `1,234` style counts in messages (as `count.toLocaleString("en-US")` writes them). */
export function formatCount(count: number): string {
  // A whole number ≥ 0 is its digits in groups of three: the formatter costs microseconds a call and tens of ms at its first
  // (an index report with nothing read counts 0; -0 is left to the formatter, which writes "-0").
  if ((count > 0 || Object.is(count, 0)) && Number.isSafeInteger(count)) return count < 1000 ? String(count) : String(count).replace(/\B(?=(\d{3})+$)/g, ",");
  grouped ??= new Intl.NumberFormat("en-US");
  return grouped.format(count);
}
