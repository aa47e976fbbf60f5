/**
 * Which sentences describe a command rather than give it (docs/protocol.md, "Commands only
 * described"): questions, conditionals, negations, words to the person, examples. A command on a
 * line of its own, or after words that only lead up to it, is given.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { hypotheticalSentence } from "../../src/agent/described.js";

function describedAs(text: string): string | undefined {
  const [command] = parse(text).commands;
  expect(command).toBeDefined();
  return hypotheticalSentence(text, command!.span)?.as;
}

describe("a command only described", () => {
  it.each([
    ['Should I delete it with [FILE_OP:action=delete:path="old.log"]?', "question"],
    ["I would run [GIT:action=reset:mode=hard] if you agree.", "conditional"],
    ["Don't worry, I won't run [FILE_OP:action=delete:path=\"src\"].", "negation"],
    ['I will not [GIT:action=push:branch="main"] until the tests pass.', "negation"],
    ['Instead of [FILE_OP:action=delete:path="cache"] I will read the config.', "negation"],
    ['You can run [EXEC:action=run:command="rm -rf dist"] when you are ready.', "addressed"],
    ['Run [EXEC:action=run:command="npm publish"] yourself once it is tagged.', "addressed"],
    ['Example: [FILE_OP:action=delete:path="tmp"]', "example"],
    ['Earlier I ran [FILE_OP:action=delete:path="build"] and it worked.', "past"],
    ["I already ran [GIT:action=reset:mode=hard] before.", "past"],
    ['Last time, [EXEC:action=run:command="rm -rf node_modules"] fixed it.', "past"],
    ['The previous command [FILE_OP:action=delete:path="tmp"] failed.', "past"],
    ['| 1 | [FILE_OP:action=delete:path="x"] | removes x |', "table"],
    ['A write looks like this, for example [FILE_OP:action=write:path="a.txt":content="x"].', "example"],
    ['The syntax is [FILE_OP:action=write:path="x.txt":content="y"] with a path and content.', "example"],
    ['A delete looks like [FILE_OP:action=delete:path="x"].', "example"],
    ['Writing a file works like this: [FILE_OP:action=write:path="x.txt":content="y"]', "example"],
  ])("%s is %s", (text, kind) => {
    expect(describedAs(text)).toBe(kind);
  });

  it.each([
    '[FILE_OP:action=delete:path="build"]',
    'Deleting the build folder now:\n[FILE_OP:action=delete:path="build"]',
    'I will now delete the build folder: [FILE_OP:action=delete:path="build"]',
    'As you asked, deleting it: [FILE_OP:action=delete:path="build"]',
    'I am avoiding the cache, so: [EXEC:action=run:command="npm ci"]',
    'The build ran out of date, so: [FILE_OP:action=delete:path="build"]',
    'The file looks stale, removing it: [FILE_OP:action=delete:path="old.txt"]',
    '- [FILE_OP:action=delete:path="build"] | then the rest',
  ])("%s is given, not described", (text) => {
    expect(describedAs(text)).toBeUndefined();
  });
});
