/**
 * JSON as models write it, for the dialect readers (read-call.ts and the rest): strict JSON
 * first, then, where that fails, the slips models make (raw line breaks and tabs inside strings,
 * Python's quotes and words, a trailing comma, a closing brace left out), never deeper than the
 * engine's parser can take.
 */
import { isNameCharacter } from "./near-name.js";

/** Deeper JSON is not a call, and the engine's parser would run out of stack on it. */
const MAX_DEPTH = 64;

function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_DEPTH) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/**
 * `text` parsed as JSON, or undefined (also when it nests deeper than any call does). JSON as
 * models write it is read too (`relaxedJson`): line breaks and tabs inside strings, Python's
 * literals (`'a.ts'`, `True`, `None`), a comma before a closing brace or bracket, a closing brace
 * too many, and with `closeOpen` (the model ended the call, so it is not cut short) one too few.
 */
export function parseJson(text: string, closeOpen = false): unknown {
  if (text.length > MAX_DEPTH && tooDeep(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const relaxed = relaxedJson(text, closeOpen);
    if (relaxed === undefined) return undefined;
    try {
      return JSON.parse(relaxed) as unknown;
    } catch {
      return undefined;
    }
  }
}

const PYTHON_WORDS: Record<string, string> = { True: "true", False: "false", None: "null" };

/**
 * `text` rewritten as strict JSON where a model wrote it loosely: raw line breaks, carriage returns
 * and tabs inside strings escaped, single-quoted strings double-quoted, Python's `True`, `False`
 * and `None` as JSON's words, a comma before `}` or `]` dropped, a `}` or `]` that closes nothing
 * dropped and, with `closeOpen`, one brace or bracket left open closed at the end. Undefined when
 * there was nothing to rewrite, or more was left open. One pass.
 */
function relaxedJson(text: string, closeOpen: boolean): string | undefined {
  /** The closers of the braces and brackets open, innermost last. */
  let open = "";
  let out = "";
  let from = 0;
  let changed = false;
  const take = (to: number, replacement: string) => {
    out += text.slice(from, to) + replacement;
    changed = true;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x27) {
      // A string: its closing quote, its raw control characters escaped, a single-quoted one's double quotes escaped.
      const single = code === 0x27;
      if (single) {
        take(i, '"');
        from = i + 1;
      }
      let j = i + 1;
      for (; j < text.length; j++) {
        const inner = text.charCodeAt(j);
        if (inner === 0x5c) {
          if (single && text.charCodeAt(j + 1) === 0x27) {
            take(j, "'");
            from = j + 2;
          }
          j++;
        } else if (inner === code) break;
        else if (inner === 0x0a || inner === 0x0d || inner === 0x09 || (single && inner === 0x22)) {
          take(j, inner === 0x0a ? "\\n" : inner === 0x0d ? "\\r" : inner === 0x09 ? "\\t" : '\\"');
          from = j + 1;
        }
      }
      if (j >= text.length) return undefined;
      if (single) {
        take(j, '"');
        from = j + 1;
      }
      i = j;
    } else if (code === 0x7b || code === 0x5b) open += code === 0x7b ? "}" : "]";
    else if (code === 0x7d || code === 0x5d) {
      // A closer with nothing open is one too many: dropped. One that closes another kind is left for the parse to refuse.
      if (open === "") {
        take(i, "");
        from = i + 1;
      } else if (open.charCodeAt(open.length - 1) === code) open = open.slice(0, -1);
    } else if (code === 0x2c) {
      let j = i + 1;
      while (j < text.length && isJsonBlank(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 0x7d || text.charCodeAt(j) === 0x5d) {
        take(i, "");
        from = i + 1;
      }
    } else if (code === 0x54 || code === 0x46 || code === 0x4e) {
      // `True`, `False`, `None` as whole words.
      let j = i + 1;
      while (j < text.length && isNameCharacter(text.charCodeAt(j))) j++;
      const word = PYTHON_WORDS[text.slice(i, j)];
      if (word !== undefined && (i === 0 || !isNameCharacter(text.charCodeAt(i - 1)))) {
        take(i, word);
        from = j;
      }
      i = j - 1;
    }
  }
  // One brace or bracket still open at the end is closed there; more is a call cut short or garbled.
  if (open !== "") return closeOpen && open.length === 1 ? `${out}${text.slice(from)}${open}` : undefined;
  return changed ? out + text.slice(from) : undefined;
}

function isJsonBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
