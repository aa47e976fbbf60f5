import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHUNK_HEADER, TermDictionary } from "../../tools/index/store.js";
import { TermCounter } from "../../tools/index/term-counter.js";
import { termText } from "../../tools/index/term-list.js";
import { tokenize } from "../../tools/index/tokenize.js";

/** Counts each token of `tokenize(text)`, `weight` times an occurrence. */
function expectedCounts(text: string, weight = 1): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + weight);
  return counts;
}

/** Finishes the counter's chunk (as lines 3..9, bytes 40..200) and reads its record back as term → count. */
function finished(counter: TermCounter, dictionary: TermDictionary): Map<string, number> {
  const { termsAt, distinct, length } = counter.finishChunk(3, 9, 40, 200);
  const numbers = counter.takeFile();
  expect([termsAt, ...numbers.subarray(0, CHUNK_HEADER)]).toEqual([CHUNK_HEADER, 3, 9, length, 40, 200, distinct]);
  expect(numbers.length).toBe(CHUNK_HEADER + 2 * distinct);
  const counts = new Map<string, number>();
  let total = 0;
  for (let index = 0; index < distinct; index++) {
    counts.set(termText(dictionary, numbers[termsAt + index]!), numbers[termsAt + distinct + index]!);
    total += numbers[termsAt + distinct + index]!;
  }
  expect(length).toBe(total);
  return counts;
}

const codeText = fc.stringMatching(/^[a-zA-Z0-9_$ .(){};:\n\té€😀ÿ-]{0,120}$/u);

describe("the term counter", () => {
  it("counts a text's UTF-8 bytes exactly as tokenize() splits the text", () => {
    const dictionary = new TermDictionary();
    const counter = new TermCounter(dictionary);
    fc.assert(
      fc.property(codeText, (text) => {
        counter.add(Buffer.from(text, "utf8"));
        expect(finished(counter, dictionary)).toEqual(expectedCounts(text));
      }),
      { numRuns: 300 },
    );
  });

  it("counts identifiers made of parts met before in other spellings (camelCase, snake_case, capitals, stopwords) as tokenize() does", () => {
    const part = fc.constantFrom("get", "Get", "GET", "http", "HTTP", "Request", "requests", "the", "File", "x", "V2", "2", "parsing", "Parse", "ies", "Body", "$", "_", "9a");
    countsIdentifiersAsTokenize(
      fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("")),
      12,
    );
  });

  it("stems a first-seen identifier's bytes as tokenize() stems its string (ies to y, doubled letters, a final e, stopwords)", () => {
    const word = fc.constantFrom(
      ..."Policies policies POLICIES running Runs stopped Make make cases process Passes FILES functions Codes ties abcies fizzing calling ly Early".split(" "),
    );
    countsIdentifiersAsTokenize(
      fc.array(word, { minLength: 1, maxLength: 3 }).chain((words) => fc.constantFrom("", "_", "$").map((joint) => words.join(joint))),
      10,
    );
  });

  it("counts short texts (paths, symbol names) by character, with their weight", () => {
    const dictionary = new TermDictionary();
    const counter = new TermCounter(dictionary);
    fc.assert(
      fc.property(codeText, fc.integer({ min: 1, max: 4 }), (text, weight) => {
        counter.addText(text, weight);
        expect(finished(counter, dictionary)).toEqual(expectedCounts(text, weight));
      }),
      { numRuns: 300 },
    );
  });

  it("counts a byte range alone, and keeps identifiers seen in earlier chunks", () => {
    const dictionary = new TermDictionary();
    const counter = new TermCounter(dictionary);
    const bytes = Buffer.from("parseRequest(user) // naïve\nparseRequest(order)\n", "utf8");
    const secondLine = bytes.indexOf("\n") + 1;
    counter.add(bytes, 0, secondLine);
    expect(finished(counter, dictionary)).toEqual(
      new Map([
        ["parserequest", 1],
        ["pars", 1],
        ["request", 1],
        ["user", 1],
        ["na", 1],
        ["ve", 1],
      ]),
    );
    counter.add(bytes, secondLine);
    expect(finished(counter, dictionary)).toEqual(
      new Map([
        ["parserequest", 1],
        ["pars", 1],
        ["request", 1],
        ["order", 1],
        ["ord", 1],
      ]),
    );
  });

  for (const [how, next] of [
    ["a new dictionary sized like the old", (old: TermDictionary) => new TermDictionary(old)],
    ["the old dictionary emptied (as a worker does)", (old: TermDictionary) => (old.clear(), old)],
  ] as const) {
    it(`counts as a fresh counter does once restarted on ${how}, over identifiers it met before the restart`, () => {
      const grownDictionary = new TermDictionary();
      const counter = new TermCounter(grownDictionary);
      const seen = Array.from({ length: 5000 }, (_, index) => `name${index}Part${index % 97} value_${index} getHTTPRequest`).join("\n");
      counter.add(Buffer.from(seen, "utf8"));
      finished(counter, grownDictionary);
      const dictionary = next(grownDictionary);
      counter.restart(dictionary);
      expect(dictionary.count).toBe(0);
      counter.add(Buffer.from("name7Part7 getHTTPRequest value_12", "utf8"));
      expect(finished(counter, dictionary)).toEqual(expectedCounts("name7Part7 getHTTPRequest value_12"));
      // Only the terms of that one chunk are in the dictionary: nothing was carried over from before the restart.
      expect(dictionary.count).toBe(expectedCounts("name7Part7 getHTTPRequest value_12").size);
      fc.assert(
        fc.property(codeText, (text) => {
          counter.add(Buffer.from(text, "utf8"));
          expect(finished(counter, dictionary)).toEqual(expectedCounts(text));
        }),
        { numRuns: 200 },
      );
    });
  }

  it("leaves out identifiers longer than 64 characters", () => {
    const dictionary = new TermDictionary();
    const counter = new TermCounter(dictionary);
    counter.add(Buffer.from(`${"a".repeat(65)} kept`));
    expect(finished(counter, dictionary)).toEqual(new Map([["kept", 1]]));
  });
});

/** One counter fed texts of up to `maxIdentifiers` of `identifier` joined by spaces (400 runs): each text's counts are tokenize()'s. */
function countsIdentifiersAsTokenize(identifier: fc.Arbitrary<string>, maxIdentifiers: number): void {
  const dictionary = new TermDictionary();
  const counter = new TermCounter(dictionary);
  fc.assert(
    fc.property(fc.array(identifier, { minLength: 1, maxLength: maxIdentifiers }), (identifiers) => {
      const text = identifiers.join(" ");
      counter.add(Buffer.from(text, "utf8"));
      expect(finished(counter, dictionary)).toEqual(expectedCounts(text));
    }),
    { numRuns: 400 },
  );
}
