import { describe, expect, it } from "vitest";
import { startsWithCommand } from "../../grammar/command-start.js";
import { parse } from "../../grammar/index.js";

const lines = [
  '[FILE_OP:action=read:path="a"]',
  "[file_op:  action = read]",
  "[A:\n  k<<EOF\nbody\nEOF\n]",
  "[docs](http://x)",
  "[x]",
  "[WARNING: be careful]",
  "[NOTE]",
  "[1A:k=v]",
  "plain text",
];

describe("startsWithCommand", () => {
  it("agrees with the parser on where a command starts (contract §1)", () => {
    for (const line of lines) {
      const parsed = parse(line);
      const parserSees = parsed.commands.length + parsed.errors.length > 0;
      expect(startsWithCommand(line), line).toBe(parserSees);
    }
  });
});
