/** YAML config text as a value, or where and why it is not valid YAML (loaded only for a .yaml file). */
import { parseDocument } from "yaml";

export type YamlParseResult = { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number };

export function parseYamlText(text: string): YamlParseResult {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const problem = document.errors[0];
  if (problem) {
    const position = problem.linePos?.[0];
    return { ok: false, message: problem.message.split("\n")[0] ?? "invalid YAML", line: position?.line ?? 1, column: position?.col ?? 1 };
  }
  return { ok: true, value: document.toJS() as unknown };
}
