/**
 * Where a command starts (contract §1): `[` then NAME `:` ws* KEY ws* (`=` | `<<`). For code that
 * must recognise a command line without parsing (the terminal's rendering, the chat's input).
 */
const COMMAND_START = /^\[[A-Za-z][A-Za-z0-9_]*:\s*[A-Za-z_][A-Za-z0-9_-]*\s*(?:=|<<)/;

/** True when `text` begins with a command start. */
export function startsWithCommand(text: string): boolean {
  return COMMAND_START.test(text);
}
