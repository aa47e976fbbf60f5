/**
 * The corrected command for a broken one, for the error's hint: a model applies it literally.
 * Given the command's text from its `[` up to where it stopped and what the machine noted.
 */

/** What a failure can be repaired with, for its hint (repair.ts). */
export interface RepairNote {
  kind: "quoted" | "heredoc-early" | "heredoc-open" | "colon" | "close" | "close-quote" | "requote";
  key: string;
  /** Offset of the value's start (its opening quote, or its key for a heredoc), relative to the `[`. */
  valueAt: number;
  /** Offset of the stray quote, relative to the `[` (quoted values); for `colon`, where the `:` goes. */
  strayAt?: number;
  tag?: string;
  /** For `colon`: where each missing `:` goes (the start of the whitespace standing in its place), relative to the `[`. */
  colons?: number[];
  /** For `colon`: each `:` written for a key's `=` (`content: "…"`), relative to the `[`. */
  equals?: number[];
  /** For `close`: what the text lacks at its end (`]`, or `"]` for a quoted value left open). */
  closing?: string;
  /** For `requote`: each value's opening and closing quote, relative to the `[`, in pairs. */
  quotes?: number[];
}

/** Hints longer than this are left out: the message says how to fix it in words. */
export const HINT_LIMIT = 4000;
const JSON_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);

/** `text` as the inside of a JSON string: stray quotes and raw control characters escaped, good escapes kept. */
function escapeInner(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const character = text[i]!;
    if (character === "\\") {
      const next = text[i + 1];
      if (next !== undefined && JSON_ESCAPES.has(next) && (next !== "u" || /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))) {
        out += character + next;
        i++;
      } else out += "\\\\";
    } else if (character === '"') out += '\\"';
    else if (character === "\n") out += "\\n";
    else if (character === "\r") out += "\\r";
    else if (character === "\t") out += "\\t";
    else if (character < " ") out += `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
    else out += character;
  }
  return out;
}

function quotedRepair(whole: string, note: RepairNote): { hint?: string; message?: string } {
  // `path="a.ts"` then the line ends: a value can hold no raw line break, so the `]` was left out.
  if (note.strayAt !== undefined && /^[ \t]*\r?\n/.test(whole.slice(note.strayAt + 1))) {
    const name = whole.slice(1, whole.indexOf(":"));
    return {
      hint: `${whole.slice(0, note.strayAt + 1)}]`,
      message: `[${name}: the line ends after the quoted value of ${note.key} without the command's closing \`]\`; the text after it, up to a \`"]\`, was taken as that value and nothing in it ran — close the command, and send again any command that came after it`,
    };
  }
  let text = whole.trimEnd();
  if (text.endsWith("]")) text = text.slice(0, -1);
  const trimmed = text.trimEnd();
  const closes = trimmed.endsWith('"') && trimmed.length - 1 > note.valueAt;
  const closeAt = closes ? trimmed.length - 1 : text.length;
  const raw = text.slice(note.valueAt + 1, closeAt);
  // A value broken over lines whose closing `"]` ends a line that starts a command (`[B:k="x"]`) was most likely left open
  // above it, and the `"]` is that command's: no hint guesses the value (the message says what was taken).
  if (note.strayAt === undefined && raw.includes("\n") && /\[[A-Za-z][A-Za-z0-9_]*\s*:/.test(raw.slice(raw.lastIndexOf("\n") + 1))) return {};
  // A Windows path (`C:\logs\build.txt`): every backslash is one, also before a letter that would make an escape (`\b`).
  const inner = /^(?:[A-Za-z]:\\|\\\\[A-Za-z])[^\n"]*$/.test(raw) ? raw.replaceAll("\\", "\\\\") : escapeInner(raw);
  return { hint: `${text.slice(0, note.valueAt + 1)}${inner}"${closes ? text.slice(closeAt + 1).trimEnd() : ""}]` };
}

function freshTag(lines: string[], tag: string): string {
  const taken = new Set(lines.map((line) => line.trim()));
  let fresh = `${tag}2`;
  for (let n = 3; taken.has(fresh); n++) fresh = `${tag}${n}`;
  return fresh;
}

function heredocRepair(text: string, note: RepairNote): string | undefined {
  const tag = note.tag ?? "EOF";
  const header = text.indexOf("\n", note.valueAt);
  if (header < 0) return undefined;
  const head = text.slice(0, header + 1);
  const lines = text.slice(header + 1).split("\n");
  if (note.kind === "heredoc-early") {
    const fresh = freshTag(lines, tag);
    let last = -1;
    lines.forEach((line, index) => {
      if (line.trimEnd() === tag) last = index;
    });
    if (last < 0) return undefined;
    lines[last] = fresh;
    const newHead = head.replace(new RegExp(`<<\\s*${tag}`), `<<${fresh}`);
    return `${newHead}${lines.join("\n").trimEnd()}\n]`;
  }
  const indented = lines.findIndex((line) => line.trim() === tag && line !== line.trimStart());
  if (indented >= 0) {
    lines[indented] = tag;
    const rest = lines.slice(indented + 1).join("\n");
    return `${head}${lines.slice(0, indented + 1).join("\n")}\n${rest.includes("]") ? rest.trimStart() : "]"}`;
  }
  const glued = lines.findIndex((line) => line.startsWith(tag) && /^[\]:]/.test(line.slice(tag.length).trim()));
  if (glued >= 0) {
    lines[glued] = `${tag}\n${lines[glued]!.slice(tag.length).trim()}`;
    return `${head}${lines.slice(0, glued + 1).join("\n")}`;
  }
  return `${text.replace(/\n?$/, "\n")}${tag}\n]`;
}

/** Missing `:` between parameters (each put in place of the whitespace there) and `:` written for `=`, up to the `]` the machine stopped at. */
function colonRepair(text: string, note: RepairNote): string {
  let out = "";
  let from = 0;
  const equals = new Set(note.equals);
  for (const at of [...(note.colons ?? []), ...equals].sort((left, right) => left - right)) {
    if (equals.has(at)) {
      out += `${text.slice(from, at)}=`;
      from = at + 1;
      continue;
    }
    // A comma standing before the space (`action=read, path=…`) was meant as the separator.
    out += `${text.slice(from, at).replace(/,$/, "")}:`;
    from = text[at] === "," || text[at] === ";" ? at + 1 : at;
    while (from < text.length && /\s/.test(text[from]!)) from++;
  }
  return `${out}${closeRest(text.slice(from))}`;
}

/** `rest` (a command's text to where the machine stopped) closed with its `]`; after a heredoc's closing tag the `]` stays on a line of its own. */
function closeRest(rest: string): string {
  const body = rest.replace(/\]?\s*$/, "");
  return `${body}${rest.slice(body.length).includes("\n") ? "\n" : ""}]`;
}

/** A bare value that stays bare in a hint: a word or number (`read`, `40`), or base64 (`c3JjL2EudHM=`). */
const PLAIN_BARE = /^(?:[A-Za-z0-9_-]+|(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * `command` with each bare value that is neither a word nor base64 (`path=src/a.ts`) quoted, so
 * that the hint, applied literally, passes the checks too; from a heredoc on, left as it is.
 */
function quoteBareValues(command: string): string {
  const open = command.indexOf(":");
  let out = command.slice(0, open + 1);
  let i = open + 1;
  while (i < command.length) {
    const pair = /^\s*[A-Za-z_][A-Za-z0-9_-]*\s*=\s*/.exec(command.slice(i));
    if (pair === null) return out + command.slice(i);
    out += pair[0];
    i += pair[0].length;
    if (command[i] === '"') {
      const close = /^"(?:[^"\\]|\\.)*"/.exec(command.slice(i));
      if (close === null) return out + command.slice(i);
      out += close[0];
      i += close[0].length;
    } else {
      let end = i;
      while (end < command.length && command[end] !== ":" && command[end] !== "]") end++;
      const value = command.slice(i, end).trim();
      out += PLAIN_BARE.test(value) ? command.slice(i, end) : JSON.stringify(value);
      i = end;
    }
    if (command[i] !== ":") return out + command.slice(i);
    out += ":";
    i++;
  }
  return out;
}

/** Values in single or typographic quotes written in `"`, up to the `]` the machine stopped at. */
function requoteRepair(text: string, note: RepairNote): string {
  const quotes = note.quotes ?? [];
  let out = "";
  let from = 0;
  for (let k = 0; k < quotes.length; k += 2) {
    const open = quotes[k]!;
    const close = quotes[k + 1]!;
    let inner = text.slice(open + 1, close);
    // A fenced block in backticks (content=```ts … ```): its lines are the value, as a heredoc's body.
    const fenced = text[open] === "`" ? /^``[^\n]*\n([\s\S]*?)\n?``$/.exec(inner) : null;
    if (fenced !== null) inner = fenced[1]!;
    out += `${text.slice(from, open)}"${escapeInner(inner)}"`;
    from = close + 1;
  }
  return `${out}${closeRest(text.slice(from))}`;
}

/** The hint (and, where the diagnosis changes with the whole text, a better message). */
export function repairHint(text: string, note: RepairNote): { hint?: string; message?: string } {
  let repaired: { hint?: string; message?: string };
  if (note.kind === "quoted") repaired = quotedRepair(text, note);
  else if (note.kind === "colon") repaired = { hint: quoteBareValues(colonRepair(text, note)) };
  else if (note.kind === "requote") repaired = { hint: requoteRepair(text, note) };
  else if (note.kind === "close-quote") repaired = { hint: `${text.trimEnd().replace(/\]$/, "")}"]` };
  else if (note.kind === "close") repaired = { hint: `${text.trimEnd()}${note.closing ?? "]"}` };
  else repaired = { hint: heredocRepair(text, note) };
  if (repaired.hint !== undefined && repaired.hint.length > HINT_LIMIT) return repaired.message === undefined ? {} : { message: repaired.message };
  return repaired;
}
