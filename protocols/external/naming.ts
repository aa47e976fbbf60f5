/** How names from outside (config keys, MCP tool names) become protocol and action names. */

/** `fs` → `FS`, `my-db` → `MY_DB`; a name that would not start with a letter gets `MCP_` in front. */
export function protocolNameFor(key: string): string {
  const name = key.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
  return /^[A-Z]/.test(name) ? name : `MCP_${name}`;
}

/** A protocol name as the language writes it: `NAME = [A-Za-z][A-Za-z0-9_]*`. */
export function isProtocolName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name);
}

/** An action name a model can write bare: letters, digits, `_`, `.` and `-`, at most 64 characters. */
export function isActionWord(name: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(name) && name !== "__proto__";
}
