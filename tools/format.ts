/** Wording shared by the protocols' messages. */

/** `1 file`, `1,234 files`; `nouns` for irregular plurals (`1 memory`, `2 memories`). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? noun : nouns}`;
}
