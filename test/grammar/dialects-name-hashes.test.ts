/**
 * `CallVocabulary.mayResolve` turns a name away by its hash before any string is built; a filter
 * of the hashes' low bits answers most names before a set is asked. Law: it never turns away a
 * name that `resolve` finds (with or without actions), in any case and spelling. Likewise
 * `mayEndCallName`, which turns a name before a `(` in the middle of a line away by its last two
 * characters: never one that names a call there (`callsByName`, an action the protocol has).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashesOf } from "../../grammar/dialects/vocabulary.js";
import { SMALL_VOCABULARY } from "./support.js";

const PIECES = ["FILE_OP", "file_op", "File_Op", "EXEC", "exec", "read", "write", "run", "read_file", "READ_FILE", "execute_command", ".", "_", "x", "op", "FILE", "OP", "e", "9"];

describe("the vocabulary's hash check", () => {
  it("never turns away a name that resolves", () => {
    let resolved = 0;
    let turnedAway = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }), fc.boolean(), (pieces, actions) => {
        const name = pieces.join("");
        const { hash, head } = hashesOf(name);
        const may = SMALL_VOCABULARY.mayResolve(hash, head, actions);
        if (SMALL_VOCABULARY.resolve(name, actions) !== undefined) {
          resolved++;
          expect(may).toBe(true);
        } else if (!may) turnedAway++;
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: names resolved, and others were turned away by their hash.
    expect(resolved).toBeGreaterThan(100);
    expect(turnedAway).toBeGreaterThan(100);
  });
});

describe("the vocabulary's check of a name's end", () => {
  it("never turns away a name a call in the middle of a line may have, in any namespace", () => {
    let callable = 0;
    let turnedAway = 0;
    fc.assert(
      fc.property(fc.constantFrom("", "functions.", "default_api."), fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }), (namespace, pieces) => {
        const name = namespace + pieces.join("");
        const may = name.length >= 2 && SMALL_VOCABULARY.mayEndCallName(name.charCodeAt(name.length - 2), name.charCodeAt(name.length - 1));
        const target = SMALL_VOCABULARY.resolve(name);
        const knownAction = target?.type !== "protocol" || target.action === undefined || Object.hasOwn(target.protocol.actions, target.action);
        if (SMALL_VOCABULARY.callsByName(name) && knownAction) {
          callable++;
          expect(may, name).toBe(true);
        } else if (!may) turnedAway++;
      }),
      { numRuns: 3000 },
    );
    expect(callable).toBeGreaterThan(100);
    expect(turnedAway).toBeGreaterThan(100);
  });
});
