/**
 * What the dialect layer may recognise: the registered protocols, their actions and parameter
 * kinds, and the tool names of other agents that map onto them. The grammar names no protocol:
 * the application builds this from its registry and passes it in.
 */
import type { ParameterKind } from "../kinds.js";

/** One action of a protocol: its parameters and their kinds. */
export interface VocabularyAction {
  parameters: Record<string, ParameterKind>;
}

export interface VocabularyProtocol {
  /** Canonical upper-case name. */
  name: string;
  actions: Record<string, VocabularyAction>;
}

/** Another agent's tool name and how a call of it maps onto one action. */
export interface VocabularyAlias {
  protocol: string;
  action: string;
  /** Their parameter name → the action's parameter name; names not listed map to themselves. */
  parameters?: Record<string, string>;
  /** Arguments the mapping adds (`recursive: "true"` for a recursive listing tool). */
  fixed?: Record<string, string>;
  /** Their parameters that are dropped. */
  ignore?: string[];
}

export interface CallVocabularyData {
  protocols: VocabularyProtocol[];
  /** Keyed by the tool name as other agents write it (matched case-insensitively). */
  aliases: Record<string, VocabularyAlias>;
}

/** Where a name written in a call points. */
export type NameTarget =
  | { type: "protocol"; protocol: VocabularyProtocol; action?: string }
  | { type: "alias"; protocol: VocabularyProtocol; alias: VocabularyAlias }
  | { type: "action"; protocol: VocabularyProtocol; action: string }
  | { type: "ambiguous-action"; action: string; protocols: VocabularyProtocol[] };

/** The hash of the empty name; `hashName` folds characters into it. */
export const EMPTY_NAME_HASH = 5381;

/** The low bits of a name's hash that index `CallVocabulary`'s filter of hashes (4,096 entries). */
const HASH_FILTER_MASK = 0xfff;

/**
 * Folds one character of a name into a running hash, ignoring ASCII case: the recognizer checks
 * a name against the vocabulary (`mayResolve`) as it reads it, without building a string.
 */
export function hashName(hash: number, code: number): number {
  return (Math.imul(hash, 33) + (code >= 0x41 && code <= 0x5a ? code + 32 : code)) | 0;
}

/** The hash of a whole name, and of its part before its last `.` or `_` (EMPTY_NAME_HASH when it has none). */
export function hashesOf(name: string): { hash: number; head: number } {
  let hash = EMPTY_NAME_HASH;
  let head = EMPTY_NAME_HASH;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === 0x2e || code === 0x5f) head = hash;
    hash = hashName(hash, code);
  }
  return { hash, head };
}

/**
 * How many names `resolve` remembers, and how long each may be: names come from the text, so
 * there is no bound on how many differ or on their length, and the vocabulary outlives a parse.
 */
const RESOLVED_LIMIT = 1024;
const RESOLVED_NAME_LENGTH = 64;

/**
 * The namespaces some models put before a tool's name: `functions.read_file`, as OpenAI's and
 * Codex's sessions name tools, and `default_api.read_file`, as Gemini writes a call its server
 * did not parse. A name that begins with one (in any case) names what the rest names.
 */
export const TOOL_NAMESPACES: readonly string[] = ["functions.", "default_api."];

/** The longest of `TOOL_NAMESPACES`. */
const LONGEST_NAMESPACE = Math.max(...TOOL_NAMESPACES.map((namespace) => namespace.length));

/** The length of the tool namespace `name` begins with (any case, with more after it), or 0. */
export function namespaceLength(name: string): number {
  for (const namespace of TOOL_NAMESPACES) {
    if (name.length > namespace.length && name.slice(0, namespace.length).toLowerCase() === namespace) return namespace.length;
  }
  return 0;
}

/** Whether `text` from `from` to `to` is a tool namespace's word, before its `.` (`functions`, `default_api`), in any case. */
export function isNamespaceWord(text: string, from: number, to: number): boolean {
  for (const namespace of TOOL_NAMESPACES) {
    if (to - from === namespace.length - 1 && text.slice(from, to).toLowerCase() === namespace.slice(0, -1)) return true;
  }
  return false;
}

/** Look-ups over the vocabulary, built once. */
/** The word that opens a ReAct step's call (`Action: NAME`, then `Action Input: {…}` on the next line). */
export const REACT_ACTION = "Action";
/** The word FireFunction v2 writes before its JSON array of calls, `functools[{…}]`, at a line's start. */
export const FUNCTOOLS = "functools";
/**
 * The word before the `(` Gemini wraps a call in when it writes one as code,
 * `print(default_api.read_file(path="a.ts"))`: at a line's start, the call inside opens as if it
 * began the line.
 */
export const PRINT_WRAPPER = "print";

export class CallVocabulary {
  private readonly protocols = new Map<string, VocabularyProtocol>();
  private readonly aliases = new Map<string, VocabularyAlias>();
  private readonly actionOwners = new Map<string, VocabularyProtocol[]>();
  /** The longest name worth reading when looking for one. */
  readonly longestName: number;
  /** Hashes (`hashName`) of the protocol and alias names, of the protocol names alone, and of the action names. */
  private readonly nameHashes = new Set<number>();
  private readonly protocolHashes = new Set<number>();
  private readonly actionHashes = new Set<number>();
  /** 1 at `hash & HASH_FILTER_MASK` for every hash in the three sets above: most names are turned away here, before a set is asked. */
  private readonly hashFilter = new Uint8Array(HASH_FILTER_MASK + 1);
  /** 1 for each ASCII character a function-call name may begin with (`mayBeginCallName`). */
  private readonly callNameStarts = new Uint8Array(128);
  /** 1 at `first * 128 + second` for the first two characters of a function-call name (`mayContinueCallName`). */
  private readonly callNamePairs = new Uint8Array(128 * 128);
  /** 1 at `secondLast * 128 + last` for the last two characters of a name a call in the middle of a line may have (`mayEndCallName`). */
  private readonly callNameEnds = new Uint8Array(128 * 128);
  /** 1 for each ASCII character, in either case, a registered or alias name begins with (`mayBeginName`). */
  private readonly nameStarts = new Uint8Array(128);
  /** 1 at `first * 128 + second` for the first two characters, in either case, of a name `resolve` may find (`mayContinueName`). */
  private readonly namePairs = new Uint8Array(128 * 128);
  /** `resolve`'s answers by name, without and with actions (null: nothing); emptied when full. */
  private readonly resolved = [new Map<string, NameTarget | null>(), new Map<string, NameTarget | null>()] as const;

  constructor(data: CallVocabularyData) {
    let longest = 0;
    for (const protocol of data.protocols) {
      this.protocols.set(protocol.name.toUpperCase(), protocol);
      longest = Math.max(longest, protocol.name.length + 1 + Math.max(0, ...Object.keys(protocol.actions).map((action) => action.length)));
      for (const action of Object.keys(protocol.actions)) {
        const owners = this.actionOwners.get(action) ?? [];
        owners.push(protocol);
        this.actionOwners.set(action, owners);
      }
    }
    for (const [name, alias] of Object.entries(data.aliases)) {
      if (!this.protocols.get(alias.protocol.toUpperCase())?.actions[alias.action]) continue;
      this.aliases.set(name.toLowerCase(), alias);
      longest = Math.max(longest, name.length);
    }
    this.longestName = longest + LONGEST_NAMESPACE;
    for (const name of this.protocols.keys()) {
      for (const written of [name, ...TOOL_NAMESPACES.map((namespace) => namespace + name)]) {
        this.nameHashes.add(hashesOf(written).hash);
        this.protocolHashes.add(hashesOf(written).hash);
      }
    }
    for (const name of this.aliases.keys()) {
      for (const written of [name, ...TOOL_NAMESPACES.map((namespace) => namespace + name)]) this.nameHashes.add(hashesOf(written).hash);
    }
    for (const name of this.actionOwners.keys()) this.actionHashes.add(hashesOf(name).hash);
    for (const hashes of [this.nameHashes, this.protocolHashes, this.actionHashes]) for (const hash of hashes) this.hashFilter[hash & HASH_FILTER_MASK] = 1;
    // A protocol is called by its name as registered; another agent's tool name in any case.
    for (const protocol of this.protocols.values()) this.markCallNameStart(protocol.name.charCodeAt(0));
    for (const name of this.aliases.keys()) {
      this.markCallNameStart(name.toLowerCase().charCodeAt(0));
      this.markCallNameStart(name.toUpperCase().charCodeAt(0));
    }
    for (const protocol of this.protocols.values()) {
      const name = protocol.name;
      // A one-letter protocol goes on with its action: `X.read(`, `X_read(`.
      for (const second of name.length > 1 ? [name[1]!] : [".", "_"]) this.markCallNamePair(name[0]!, second);
    }
    for (const name of this.aliases.keys()) {
      if (name.length < 2) continue;
      for (const first of [name[0]!.toLowerCase(), name[0]!.toUpperCase()]) {
        for (const second of [name[1]!.toLowerCase(), name[1]!.toUpperCase()]) this.markCallNamePair(first, second);
      }
    }
    // A ReAct step's `Action:` line opens a call too (line-fronts.ts): its first letters pass the same early checks.
    this.markCallNameStart(REACT_ACTION.charCodeAt(0));
    this.markCallNamePair(REACT_ACTION[0]!, REACT_ACTION[1]!);
    // So do FireFunction's `functools[` (recognizer.ts), Gemini's `print(` and a name in a tool namespace (`functions.read_file(`, `default_api.read_file(`).
    for (const word of [FUNCTOOLS, PRINT_WRAPPER, ...TOOL_NAMESPACES]) {
      this.markCallNameStart(word.charCodeAt(0));
      this.markCallNamePair(word[0]!, word[1]!);
    }
    // A call in the middle of a line names a protocol as registered, alone or with one of its actions (any case), or another agent's tool (any case).
    for (const protocol of this.protocols.values()) {
      this.markCallNameEnd(protocol.name);
      for (const action of Object.keys(protocol.actions)) {
        for (const separator of [".", "_"])
          for (const written of [action.toLowerCase(), action.toUpperCase()]) this.markCallNameEnd(`${protocol.name}${separator}${written}`, true);
      }
    }
    for (const name of this.aliases.keys()) this.markCallNameEnd(name, true);
    for (const name of [...this.protocols.keys(), ...this.aliases.keys()]) {
      this.markNameStart(name.toLowerCase().charCodeAt(0));
      this.markNameStart(name.toUpperCase().charCodeAt(0));
      // A one-letter protocol goes on with its action (`X_read`); a one-letter alias is all there is.
      for (const second of name.length > 1 ? [name[1]!] : [".", "_"]) {
        for (const pair of [
          name[0]! + second,
          (name[0]! + second).toLowerCase(),
          (name[0]! + second).toUpperCase(),
          name[0]!.toLowerCase() + second.toUpperCase(),
          name[0]!.toUpperCase() + second.toLowerCase(),
        ]) {
          if (pair.charCodeAt(0) < 128 && pair.charCodeAt(1) < 128) this.namePairs[pair.charCodeAt(0) * 128 + pair.charCodeAt(1)] = 1;
        }
      }
    }
  }

  /** Marks the last two characters of `name` (in either case each, with `anyCase`) as a call's name's in the middle of a line may end. */
  private markCallNameEnd(name: string, anyCase = false): void {
    const last = name.slice(-1);
    const lasts = anyCase ? [last.toLowerCase(), last.toUpperCase()] : [last];
    // A one-character name may follow anything that is no name character: every character before it is marked.
    const befores = name.length > 1 ? (anyCase ? [name[name.length - 2]!.toLowerCase(), name[name.length - 2]!.toUpperCase()] : [name[name.length - 2]!]) : [];
    for (const after of lasts) {
      const code = after.charCodeAt(0);
      if (code >= 128) continue;
      if (befores.length === 0) for (let before = 0; before < 128; before++) this.callNameEnds[before * 128 + code] = 1;
      for (const before of befores) if (before.charCodeAt(0) < 128) this.callNameEnds[before.charCodeAt(0) * 128 + code] = 1;
    }
  }

  /**
   * False when no name a call in the middle of a line may have (a protocol as registered, alone or
   * with one of its actions, or another agent's tool) ends with the ASCII characters `secondLast`
   * then `last`.
   */
  mayEndCallName(secondLast: number, last: number): boolean {
    return this.callNameEnds[secondLast * 128 + last] === 1;
  }

  /** False when no name `resolve` finds (without actions) begins with the characters `first` then `second`. */
  mayContinueName(first: number, second: number): boolean {
    return first >= 128 || second >= 128 || this.namePairs[first * 128 + second] === 1;
  }

  private markCallNameStart(code: number): void {
    if (code < 128) this.callNameStarts[code] = 1;
  }

  private markCallNamePair(first: string, second: string): void {
    const firstCode = first.charCodeAt(0);
    const secondCode = second.charCodeAt(0);
    if (firstCode < 128 && secondCode < 128) this.callNamePairs[firstCode * 128 + secondCode] = 1;
  }

  /**
   * False when no function-call name begins with the ASCII characters `first` then `second`
   * (as `mayBeginCallName` for the first one).
   */
  mayContinueCallName(first: number, second: number): boolean {
    return first >= 128 || second >= 128 || this.callNamePairs[first * 128 + second] === 1;
  }

  private markNameStart(code: number): void {
    if (code < 128) this.nameStarts[code] = 1;
  }

  /** False when no protocol or alias name begins with `code`, in any case (`mayResolve` would say no to every name that does). */
  mayBeginName(code: number): boolean {
    return code < 128 && this.nameStarts[code] === 1;
  }

  /**
   * False when no name beginning with the ASCII character `code` can open a function-call
   * (`NAME(…)`, `NAME.action(…)`): a protocol's name as registered, or another agent's tool name.
   */
  mayBeginCallName(code: number): boolean {
    return code >= 128 || this.callNameStarts[code] === 1;
  }

  /**
   * False when `resolve(name, actions)` is sure to find nothing, given the name's hash and the
   * hash of its part before its last `.` or `_` (EMPTY_NAME_HASH when it has none), both made
   * with `hashName`. A cheap test before building the name; true may still resolve to nothing.
   */
  mayResolve(hash: number, head: number, actions = false): boolean {
    const filter = this.hashFilter;
    if (filter[hash & HASH_FILTER_MASK] === 0 && (head === EMPTY_NAME_HASH || filter[head & HASH_FILTER_MASK] === 0)) return false;
    return this.nameHashes.has(hash) || this.protocolHashes.has(head) || (actions && this.actionHashes.has(hash));
  }

  /** The registered protocol names, sorted. */
  names(): string[] {
    return [...this.protocols.values()].map((protocol) => protocol.name).sort();
  }

  protocol(name: string): VocabularyProtocol | undefined {
    return this.protocols.get(name.toUpperCase());
  }

  /**
   * What `name` names: a protocol (`FILE_OP`, any case), a protocol and action (`FILE_OP.read`,
   * `FILE_OP_read`), another agent's tool (`read_file`), or (with `actions`) an action of one
   * protocol (`commit`). Undefined when it names nothing registered. The answer is shared
   * between calls with the same name: read it, never change it.
   */
  resolve(name: string, actions = false): NameTarget | undefined {
    if (name.length > RESOLVED_NAME_LENGTH) return this.lookUp(name, actions);
    const known = this.resolved[actions ? 1 : 0];
    const answer = known.get(name);
    if (answer !== undefined) return answer ?? undefined;
    const target = this.lookUp(name, actions);
    if (known.size >= RESOLVED_LIMIT) known.clear();
    known.set(name, target ?? null);
    return target;
  }

  /**
   * Whether a call written function-style at a line's start, `NAME(…)`, names something
   * registered: another agent's tool, or a protocol as it is registered (upper case).
   */
  callsByName(name: string): boolean {
    const target = this.resolve(name);
    return target !== undefined && (target.type !== "protocol" || withoutNamespace(name).startsWith(target.protocol.name));
  }

  private lookUp(written: string, actions: boolean): NameTarget | undefined {
    const name = withoutNamespace(written);
    const protocol = this.protocols.get(name.toUpperCase());
    if (protocol) return { type: "protocol", protocol };
    const alias = this.aliases.get(name.toLowerCase());
    if (alias) return { type: "alias", protocol: this.protocols.get(alias.protocol.toUpperCase())!, alias };
    const dot = name.search(/[._](?=[^._]*$)/);
    if (dot > 0) {
      const owner = this.protocols.get(name.slice(0, dot).toUpperCase());
      const action = name.slice(dot + 1);
      if (owner && Object.hasOwn(owner.actions, action.toLowerCase())) return { type: "protocol", protocol: owner, action: action.toLowerCase() };
      if (owner && name[dot] === ".") return { type: "protocol", protocol: owner, action };
    }
    if (!actions) return undefined;
    const owners = this.actionOwners.get(name.toLowerCase());
    if (!owners) return undefined;
    if (owners.length === 1) return { type: "action", protocol: owners[0]!, action: name.toLowerCase() };
    return { type: "ambiguous-action", action: name.toLowerCase(), protocols: owners };
  }
}

/** `name` without the tool namespace before it (`functions.read_file` and `default_api.read_file` are `read_file`), in any case. */
function withoutNamespace(name: string): string {
  const length = namespaceLength(name);
  return length === 0 ? name : name.slice(length);
}
