/**
 * Gemini CLI's tool names and parameter names, as Gemini models write them when the server does
 * not parse their calls, map onto the built-in protocols (each protocol file's `aliases`); the ones
 * that mean something clio's action has no word for are answered, never dropped.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import type { CallVocabulary } from "../../grammar/dialects/vocabulary.js";
import { callVocabularyOf } from "../../src/call-vocabulary.js";
import { buildParseReport, parseText } from "../../src/parse-report.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";

let registry: ProtocolRegistry;
let vocabulary: CallVocabulary;
beforeAll(async () => {
  registry = await loadBuiltinProtocols();
  vocabulary = callVocabularyOf(registry);
});

function commandOf(text: string): string {
  const result = parse(text, vocabulary);
  expect(result.errors, text).toEqual([]);
  expect(result.commands, text).toHaveLength(1);
  return print(result.commands[0]!);
}

describe("Gemini CLI's tools", () => {
  it("read_file(absolute_path), write_file(file_path, content), replace(file_path, old_string, new_string) and list_directory(path) map onto FILE_OP", () => {
    expect(commandOf('default_api.read_file(absolute_path="/w/src/a.ts")')).toBe('[FILE_OP:action=read:path="/w/src/a.ts"]');
    expect(commandOf('write_file(file_path="a.txt", content="hi")')).toBe('[FILE_OP:action=write:path="a.txt":content="hi"]');
    expect(commandOf('replace(file_path="a.ts", old_string="x", new_string="y")')).toBe('[FILE_OP:action=replace:path="a.ts":old="x":new="y"]');
    expect(commandOf('list_directory(path="src")')).toBe('[FILE_OP:action=list:path="src"]');
  });

  it("search_file_content(pattern, include) searches the files' lines, glob(pattern) their names", () => {
    expect(commandOf('search_file_content(pattern="TODO", include="*.ts")')).toBe('[FILE_OP:action=search:content="TODO":pattern="*.ts"]');
    expect(commandOf('search_file_content(pattern="TODO", dir_path="src")')).toBe('[FILE_OP:action=search:content="TODO":path="src":pattern="*"]');
    expect(commandOf('glob(pattern="**/*.ts")')).toBe('[FILE_OP:action=search:pattern="**/*.ts"]');
  });

  it("run_shell_command drops its description and takes its directory as the working folder", () => {
    expect(commandOf('run_shell_command(command="npm test", description="Run the tests", directory="pkg")')).toBe('[EXEC:action=run:command="npm test":cwd="pkg"]');
  });

  it("a parameter clio has no word for is answered with the command as written, not dropped", () => {
    const text = 'replace(file_path="a.ts", old_string="x", new_string="y", expected_replacements=2)';
    const report = buildParseReport(parseText(text, undefined, registry), registry, text);
    expect(report.commands).toEqual([]);
    expect(report.errors).toMatchObject([{ code: "unknown_parameter", message: expect.stringContaining('unknown parameter "expected_replacements"') }]);
  });
});
