/**
 * JSON parsing that says where a file went wrong. Node's own messages give a position only
 * for some errors, so on failure a small scanner finds the first offending character and the
 * offset is turned into a line and column a person can jump to.
 */

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string; offset: number; line: number; column: number };

/** Parses JSON text; on failure returns the reason and where (line and column start at 1). */
export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const offset = findJsonErrorOffset(text) ?? positionFromMessage((error as Error).message) ?? text.length;
    const { line, column } = lineAndColumn(text, offset);
    return { ok: false, message: describeFailure(text, offset), offset, line, column };
  }
}

/** Line and column (1-based) of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function describeFailure(text: string, offset: number): string {
  if (offset >= text.length) return text.trim() === "" ? "the file is empty" : "the JSON ends too early (truncated?)";
  return `unexpected ${JSON.stringify(text[offset])}`;
}

function positionFromMessage(message: string): number | undefined {
  const match = /at position (\d+)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/**
 * The offset of the first character that makes `text` invalid JSON, or undefined if the
 * scanner finds none. A strict recursive descent over RFC 8259.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  let index = 0;
  const fail = (): never => {
    throw new ScanFailure(index);
  };
  const skipWhitespace = (): void => {
    while (index < text.length && " \t\n\r".includes(text[index]!)) index++;
  };
  const expectLiteral = (word: string): void => {
    for (const character of word) {
      if (text[index] !== character) fail();
      index++;
    }
  };
  const scanDigits = (): void => {
    if (!isDigit(text[index])) fail();
    while (isDigit(text[index])) index++;
  };
  const scanNumber = (): void => {
    if (text[index] === "-") index++;
    if (text[index] === "0") index++;
    else scanDigits();
    if (text[index] === ".") {
      index++;
      scanDigits();
    }
    if (text[index] === "e" || text[index] === "E") {
      index++;
      if (text[index] === "+" || text[index] === "-") index++;
      scanDigits();
    }
  };
  const scanString = (): void => {
    index++; // opening quote
    for (;;) {
      const character = text[index];
      if (character === undefined || character.charCodeAt(0) < 0x20) fail();
      if (character === '"') {
        index++;
        return;
      }
      if (character === "\\") {
        index++;
        const escape = text[index];
        if (escape === "u") {
          for (let digit = 0; digit < 4; digit++) {
            index++;
            if (!/[0-9a-fA-F]/.test(text[index] ?? "")) fail();
          }
        } else if (escape === undefined || !'"\\/bfnrt'.includes(escape)) fail();
      }
      index++;
    }
  };
  const scanSequence = (close: string, scanItem: () => void): void => {
    index++; // opening bracket
    skipWhitespace();
    if (text[index] === close) {
      index++;
      return;
    }
    for (;;) {
      scanItem();
      skipWhitespace();
      if (text[index] === ",") {
        index++;
        continue;
      }
      if (text[index] === close) {
        index++;
        return;
      }
      fail();
    }
  };
  const scanValue = (): void => {
    skipWhitespace();
    const character = text[index];
    if (character === "{") {
      scanSequence("}", () => {
        skipWhitespace();
        if (text[index] !== '"') fail();
        scanString();
        skipWhitespace();
        if (text[index] !== ":") fail();
        index++;
        scanValue();
      });
    } else if (character === "[") scanSequence("]", scanValue);
    else if (character === '"') scanString();
    else if (character === "t") expectLiteral("true");
    else if (character === "f") expectLiteral("false");
    else if (character === "n") expectLiteral("null");
    else if (character === "-" || isDigit(character)) scanNumber();
    else fail();
  };
  try {
    scanValue();
    skipWhitespace();
    if (index < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof ScanFailure) return error.offset;
    throw error;
  }
}

class ScanFailure {
  constructor(readonly offset: number) {}
}

function isDigit(character: string | undefined): boolean {
  return character !== undefined && character >= "0" && character <= "9";
}
