/**
 * Counterexamples a person can read: strings printed compactly (a run of a repeated piece as
 * `"line\n" × 820`), and an expected and an actual value side by side with the lines that differ marked.
 */

const SHORTEST_RUN = 16;

/** A string as JSON, with long runs of a repeated piece written `"piece" × count`, joined by `+`. */
export function compactString(text: string): string {
  const parts: string[] = [];
  let literal = "";
  let index = 0;
  while (index < text.length) {
    let best: { unit: number; count: number } | undefined;
    for (let unit = 1; unit <= 16 && index + unit * 2 <= text.length; unit++) {
      const piece = text.slice(index, index + unit);
      let count = 1;
      while (text.startsWith(piece, index + unit * count)) count++;
      if (count >= 4 && unit * count >= SHORTEST_RUN && (!best || unit * count > best.unit * best.count)) best = { unit, count };
    }
    if (!best) {
      literal += text[index++];
      continue;
    }
    if (literal) parts.push(JSON.stringify(literal));
    literal = "";
    parts.push(`${JSON.stringify(text.slice(index, index + best.unit))} × ${best.count}`);
    index += best.unit * best.count;
  }
  if (literal || parts.length === 0) parts.push(JSON.stringify(literal));
  return parts.join(" + ");
}

/** Any value as compact JSON-like text, with its strings written by `compactString`. */
export function compactValue(value: unknown, indent = ""): string {
  if (typeof value === "string") return compactString(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${indent}  ${compactValue(item, `${indent}  `)}`).join(",\n")}\n${indent}]`;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, item]) => `${indent}  ${key}: ${compactValue(item, `${indent}  `)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** Two values in two columns, `expected │ actual`, a `≠` before each line that differs. */
export function sideBySide(expected: unknown, actual: unknown, width = 56): string {
  const left = compactValue(expected).split("\n");
  const right = compactValue(actual).split("\n");
  const cut = (line: string) => (line.length > width ? `${line.slice(0, width - 1)}…` : line.padEnd(width));
  const rows = [`  ${"expected".padEnd(width)} │ actual`];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const l = left[index] ?? "";
    const r = right[index] ?? "";
    rows.push(`${l === r ? " " : "≠"} ${cut(l)} │ ${r.length > width ? `${r.slice(0, width - 1)}…` : r}`);
  }
  return rows.join("\n");
}
