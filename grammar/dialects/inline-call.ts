/**
 * The part of the dialect recognizer (recognizer.ts) that reads a function call in the middle of
 * a line, `Let me call read_file(path="a.ts") to see it.`: a `(` right after a registered name
 * (as a call at a line's start would name it: line-fronts.ts, `callsByName`) opens a candidate
 * that ends with its closing parenthesis on that line. It never runs (finding.ts): the sentence
 * around it may describe the call.
 *
 * The name comes before its trigger, and may have arrived in earlier chunks, which the recognizer
 * (or, while it sleeps, the call scanner's one-character fast path) passed over: so the last
 * characters read are kept in a small ring, `recent`, and the name is read back from it.
 */
import { Shape } from "./finding.js";
import { FrontReader } from "./line-fronts.js";
import { Class, classOf, CLASSES, DOT, Front, Mode, UNDERSCORE } from "./states.js";
import { EMPTY_NAME_HASH, hashName, type CallVocabulary } from "./vocabulary.js";

export abstract class InlineCallReader extends FrontReader {
  /**
   * The last characters read, each at its absolute offset masked by `recentMask`: at least the
   * longest name and the character before it. Whoever passes characters by the recognizer writes
   * them here too (call-scanner.ts).
   */
  readonly recent: Uint16Array;
  readonly recentMask: number;
  /** The name read back by `inlineNameLength`, backwards. */
  private readonly backwards: Uint16Array;

  constructor(vocabulary: CallVocabulary) {
    super(vocabulary);
    let size = 16;
    while (size < this.nameLimit + 2) size *= 2;
    this.recent = new Uint16Array(size);
    this.recentMask = size - 1;
    this.backwards = new Uint16Array(this.nameLimit + 1);
  }

  /** Keeps the last characters of `input`, which starts at absolute `base`, in `recent`. */
  protected keepRecent(input: string, base: number): void {
    const recent = this.recent;
    const mask = this.recentMask;
    for (let k = Math.max(0, input.length - recent.length); k < input.length; k++) recent[(base + k) & mask] = input.charCodeAt(k);
  }

  /**
   * At a `(` at absolute `offset` in the middle of a line (the front dead): the length of the name
   * right before it when that name may be registered as a call's (its first characters and its
   * hash say so), else 0. `input` holds the chunk from absolute `base`; what came before is in `recent`.
   */
  protected inlineNameLength(input: string, base: number, offset: number): number {
    const limit = this.nameLimit;
    // A name holds no line feed: reading back stops at the line's start (or the text's) by itself.
    const floor = 0;
    const backwards = this.backwards;
    // The name's last two characters first: most words before a `(` end as no callable name does.
    const last = offset - 1 >= base ? input.charCodeAt(offset - 1 - base) : this.recent[(offset - 1) & this.recentMask]!;
    const secondLast = offset - 2 >= base ? input.charCodeAt(offset - 2 - base) : this.recent[(offset - 2) & this.recentMask]!;
    if (offset < 2 || last >= 128 || secondLast >= 128 || !this.vocabulary.mayEndCallName(secondLast, last)) return 0;
    let length = 0;
    let at = offset - 1;
    for (; at >= floor; at--) {
      const code = at >= base ? input.charCodeAt(at - base) : this.recent[at & this.recentMask]!;
      if (code >= 128 || (CLASSES[code] !== Class.Letter && CLASSES[code] !== Class.NameRest)) break;
      if (length === limit) return 0;
      backwards[length++] = code;
    }
    if (length === 0) return 0;
    const first = backwards[length - 1]!;
    if (classOf(first) !== Class.Letter || !this.vocabulary.mayBeginCallName(first)) return 0;
    if (length > 1 && !this.vocabulary.mayContinueCallName(first, backwards[length - 2]!)) return 0;
    // A name in a path, a link or an expression (`/read_file(`, `=read_file(`) is no call in a sentence.
    if (at >= floor && NOT_BEFORE_CALL[at >= base ? input.charCodeAt(at - base) : this.recent[at & this.recentMask]!] === 1) return 0;
    let hash = EMPTY_NAME_HASH;
    let head = EMPTY_NAME_HASH;
    for (let k = length - 1; k >= 0; k--) {
      const code = backwards[k]!;
      if (code === DOT || code === UNDERSCORE) head = hash;
      hash = hashName(hash, code);
    }
    return this.vocabulary.mayResolve(hash, head) ? length : 0;
  }

  /**
   * The index of the first `(` from index `i` of `input` (which starts at absolute `base`) that a
   * name that may be registered stands right before (`inlineNameLength`), or -1: the others are no
   * trigger, and are passed over here without a return to the idle loop.
   */
  protected callParenthesisAfter(input: string, i: number, base: number): number {
    let at = input.indexOf("(", i);
    while (at >= 0) {
      // Most `(` in prose follow a blank or a mark, no name: told apart by the one character before.
      const before = at > 0 ? input.charCodeAt(at - 1) : 0x41;
      if (before < 128 && (CLASSES[before] === Class.Letter || CLASSES[before] === Class.NameRest) && this.inlineNameLength(input, base, base + at) > 0) return at;
      at = input.indexOf("(", at + 1);
    }
    return at;
  }

  /**
   * Whether a `(` at absolute `offset`, the only character of its chunk, may open a call in the
   * middle of a line (`inlineNameLength`, reading back from `recent`): when not, the call scanner's
   * fast path passes it by while the recognizer sleeps, as the recognizer would.
   */
  mayOpenInlineCall(offset: number): boolean {
    return this.inlineNameLength("", offset, offset) > 0;
  }

  /**
   * At a `(` at index `i` in the middle of a line, while idle: opens a call in the middle of a line
   * when a registered name stands right before it (`inlineNameLength`, then `callsByName`). Reading
   * goes on after the `(` either way.
   */
  protected openInlineCall(input: string, i: number, base: number): number {
    this.front = Front.Dead;
    this.idleFrom = i + 1;
    const length = this.inlineNameLength(input, base, base + i);
    if (length === 0) return i + 1;
    let name = "";
    for (let k = length - 1; k >= 0; k--) name += String.fromCharCode(this.backwards[k]!);
    if (!this.vocabulary.callsByName(name) || !namesKnownAction(this.vocabulary, name)) return i + 1;
    this.begin(Mode.FunctionArgs, i, base);
    this.startOffset = base + i - length;
    this.startColumn = this.startOffset - this.lineStart + 1;
    this.capture = name;
    this.readArguments(name, Shape.InlineFunction);
    return i + 1;
  }
}

/** Whether `name`, when it names a protocol and an action (`FILE_OP.read`), names one of that protocol's actions (as `mayEndCallName` knows them). */
function namesKnownAction(vocabulary: CallVocabulary, name: string): boolean {
  const target = vocabulary.resolve(name);
  return target?.type !== "protocol" || target.action === undefined || Object.hasOwn(target.protocol.actions, target.action);
}

/** The characters right before a name that make its `(` no call in a sentence: a path's, a link's, an expression's. */
const NOT_BEFORE_CALL = (() => {
  const table = new Uint8Array(128);
  for (const character of "/\\-@#$%&?=~+:|") table[character.charCodeAt(0)] = 1;
  return table;
})();
