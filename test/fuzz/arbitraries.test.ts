/** Issue 21 (10): the arbitraries of `clio/fuzz` — named alike, one option bag each, structured commands, a valid-only mode. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { parse } from "../../grammar/index.js";
import * as library from "../../src/fuzz/index.js";
import { commandArbitrary, scriptArbitrary } from "../../src/fuzz/commands.js";
import { valueArbitrary } from "../../src/fuzz/arbitraries.js";
import { parameter } from "../../protocols/contract/protocol.js";
import { notesProtocol } from "../manager/notes-protocol.js";

describe("the exported arbitraries", () => {
  it("are each a function named …Arbitrary that takes at most one option bag; none is a ready-made value", () => {
    const exported = Object.entries(library);
    const arbitraries = exported.filter(([name]) => name.endsWith("Arbitrary"));
    expect(arbitraries.length).toBeGreaterThanOrEqual(14);
    for (const [name, value] of arbitraries) {
      expect(typeof value, name).toBe("function");
      expect((value as (...args: unknown[]) => unknown).length, `${name} takes more than one argument`).toBeLessThanOrEqual(1);
      expect(
        fc.sample(
          (value as (options?: object) => fc.Arbitrary<unknown>)(
            name === "chunkingArbitrary"
              ? { text: "ab" }
              : name.match(/^(command|script|malformedCommand)/)
                ? { protocol: notesProtocol }
                : name === "valueArbitrary"
                  ? { parameter: parameter.text("x") }
                  : {},
          ),
          2,
        ),
      ).toHaveLength(2);
    }
    // Every other export that is an arbitrary under another name would break the convention.
    for (const [name, value] of exported) expect(value instanceof fc.Arbitrary, `${name} is an arbitrary value, not a function`).toBe(false);
  });
});

describe("commandArbitrary", () => {
  it("gives each command as a structured value whose args are what the text parses to", () => {
    for (const { command, text } of fc.sample(commandArbitrary({ protocol: notesProtocol }), { numRuns: 300, seed: 3 })) {
      const parsed = parse(text);
      expect(parsed.errors, text).toEqual([]);
      const [only] = parsed.commands;
      expect(only!.protocol).toBe(command.protocol);
      const read = Object.fromEntries(only!.parameters.map(({ key, text: value }) => [key, value]));
      expect(read.action).toBe(command.action);
      delete read.action;
      expect(read, text).toEqual(command.args);
    }
  });

  it("with validOnly: every required parameter, no unknown one, and integers inside their bounds", () => {
    const counter = {
      ...notesProtocol,
      actions: { count: { ...notesProtocol.actions.set!, parameters: { n: parameter.requiredInteger("n", { min: 5, max: 9 }), key: parameter.text("key") } } },
    };
    const samples = fc.sample(commandArbitrary({ protocol: counter, validOnly: true }), { numRuns: 300, seed: 8 });
    const numbers = samples.map(({ command }) => Number(command.args.n));
    expect(numbers.every((value) => value >= 5 && value <= 9)).toBe(true);
    expect(new Set(numbers)).toEqual(new Set([5, 6, 7, 8, 9]));
    expect(samples.every(({ command }) => Object.keys(command.args).sort().join() === "key,n")).toBe(true);
    // Without validOnly, the same action gets values on and just outside the bounds too.
    const robust = fc.sample(valueArbitrary({ parameter: parameter.requiredInteger("n", { min: 5, max: 9 }) }), { numRuns: 300, seed: 8 }).map(Number);
    expect(robust).toContain(4);
    expect(robust).toContain(10);
  });

  it("refuses an action the protocol does not have, naming the ones it has", () => {
    expect(() => commandArbitrary({ protocol: notesProtocol, action: "nope" })).toThrow(/NOTES has no action "nope"; its actions: .*set/);
  });
});

describe("scriptArbitrary", () => {
  it("mixes in malformed commands unless validOnly", () => {
    const actions = new Set(Object.keys(notesProtocol.actions));
    const wellFormed = (line: string) => {
      const { commands, errors } = parse(line);
      const keys = commands[0]?.parameters.map(({ key }) => key) ?? [];
      const action = commands[0]?.parameters.find(({ key }) => key === "action")?.text;
      return errors.length === 0 && commands[0]?.protocol === "NOTES" && action !== undefined && actions.has(action) && new Set(keys).size === keys.length;
    };
    const mixed = fc.sample(scriptArbitrary({ protocol: notesProtocol, maxCommands: 2 }), { numRuns: 300, seed: 4 }).flat();
    expect(mixed.filter((line) => !wellFormed(line)).length).toBeGreaterThan(10);
    const valid = fc.sample(scriptArbitrary({ protocol: notesProtocol, maxCommands: 2, validOnly: true }), { numRuns: 300, seed: 4 });
    expect(valid.every((lines) => lines.length >= 1 && lines.length <= 2)).toBe(true);
    expect(valid.flat().filter((line) => !wellFormed(line))).toEqual([]);
  });
});

describe("bounds in options", () => {
  it("name lengths, trailing blanks and value pieces follow their option", () => {
    expect(fc.sample(library.protocolNameArbitrary({ maxLength: 3 }), { numRuns: 200, seed: 1 }).every((name) => name.length >= 1 && name.length <= 3)).toBe(true);
    expect(fc.sample(library.keyArbitrary({ maxLength: 2 }), { numRuns: 200, seed: 1 }).every((key) => key.length <= 2)).toBe(true);
    expect(fc.sample(library.trailingBlanksArbitrary({ maxLength: 1 }), { numRuns: 50, seed: 1 }).every((blanks) => blanks === " " || blanks === "\t")).toBe(true);
    expect(
      z
        .string()
        .max(0)
        .safeParse(fc.sample(library.valueTextArbitrary({ maxPieces: 0 }), 1)[0]).success,
    ).toBe(true);
  });
});
