/**
 * Which recorded result belongs to which command of a run: matched by order and content (the
 * command as written, or its protocol and action when the text was not recorded), never by line
 * and column, so adding prose to a script changes nothing. Commands that changed places are
 * paired as moved; the rest are new or gone.
 */

/** What matching looks at in a result (an ExpectedResult has all of it). */
export interface Matchable {
  command?: string;
  protocol: string;
  action: string | null;
}

/** One pairing of a recorded result (`expected`) and a run's result (`actual`), by index. */
export interface Pairing {
  expected?: number;
  actual?: number;
  /** Both sides hold the same command, but it stands elsewhere among the others. */
  moved?: boolean;
}

/** Above this many cells the middle part is matched greedily instead of by longest common subsequence. */
const MAXIMUM_TABLE = 4_000_000;

function keyOf(result: Matchable, byText: boolean): string {
  const name = result.action === null ? result.protocol : `${result.protocol}.${result.action}`;
  return byText ? `${name}\u0000${result.command}` : name;
}

/** Index pairs of a longest common subsequence of two key lists. */
function longestCommonPairs(left: string[], right: string[]): [number, number][] {
  const rows = left.length + 1;
  const columns = right.length + 1;
  const table = new Uint32Array(rows * columns);
  for (let i = left.length - 1; i >= 0; i--) {
    for (let j = right.length - 1; j >= 0; j--) {
      table[i * columns + j] = left[i] === right[j] ? table[(i + 1) * columns + j + 1]! + 1 : Math.max(table[(i + 1) * columns + j]!, table[i * columns + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (left[i] === right[j]) pairs.push([i++, j++]);
    else if (table[(i + 1) * columns + j]! >= table[i * columns + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** In order, each left key paired with the next unused equal right key after the last pairing. */
function greedyPairs(left: string[], right: string[]): [number, number][] {
  const pairs: [number, number][] = [];
  let from = 0;
  for (let i = 0; i < left.length; i++) {
    const j = right.indexOf(left[i]!, from);
    if (j >= 0) {
      pairs.push([i, j]);
      from = j + 1;
    }
  }
  return pairs;
}

/**
 * Pairs recorded results with a run's, in the run's order (recorded ones that are gone come
 * where they stood). Matching uses the command text when both sides recorded it.
 */
export function matchResults(expected: readonly Matchable[], actual: readonly Matchable[]): Pairing[] {
  const byText = expected.every((result) => result.command !== undefined) && actual.every((result) => result.command !== undefined);
  const left = expected.map((result) => keyOf(result, byText));
  const right = actual.map((result) => keyOf(result, byText));
  let prefix = 0;
  while (prefix < left.length && prefix < right.length && left[prefix] === right[prefix]) prefix++;
  let suffix = 0;
  while (suffix < left.length - prefix && suffix < right.length - prefix && left[left.length - 1 - suffix] === right[right.length - 1 - suffix]) suffix++;
  const middleLeft = left.slice(prefix, left.length - suffix);
  const middleRight = right.slice(prefix, right.length - suffix);
  const middle = (middleLeft.length + 1) * (middleRight.length + 1) <= MAXIMUM_TABLE ? longestCommonPairs(middleLeft, middleRight) : greedyPairs(middleLeft, middleRight);

  const actualToExpected = new Map<number, number>();
  for (let index = 0; index < prefix; index++) actualToExpected.set(index, index);
  for (const [i, j] of middle) actualToExpected.set(prefix + j, prefix + i);
  for (let index = 0; index < suffix; index++) actualToExpected.set(right.length - 1 - index, left.length - 1 - index);

  // What is left on both sides with equal keys moved; the first unpaired recorded one is taken.
  const pairedExpected = new Set(actualToExpected.values());
  const waiting = new Map<string, number[]>();
  expected.forEach((_, index) => {
    if (!pairedExpected.has(index)) waiting.set(left[index]!, [...(waiting.get(left[index]!) ?? []), index]);
  });
  const moved = new Set<number>();
  for (let j = 0; j < right.length; j++) {
    if (actualToExpected.has(j)) continue;
    const candidate = waiting.get(right[j]!)?.shift();
    if (candidate !== undefined) {
      actualToExpected.set(j, candidate);
      moved.add(j);
      pairedExpected.add(candidate);
    }
  }

  const pairings: Pairing[] = [];
  let nextExpected = 0;
  const flushGone = (upTo: number) => {
    for (; nextExpected < upTo; nextExpected++) if (!pairedExpected.has(nextExpected)) pairings.push({ expected: nextExpected });
  };
  for (let j = 0; j < right.length; j++) {
    const i = actualToExpected.get(j);
    if (i === undefined) {
      pairings.push({ actual: j });
      continue;
    }
    if (!moved.has(j)) flushGone(i);
    pairings.push(moved.has(j) ? { expected: i, actual: j, moved: true } : { expected: i, actual: j });
  }
  flushGone(expected.length);
  return pairings;
}
