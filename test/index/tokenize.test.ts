import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokensIn, splitIdentifier, stem, stemHead, tokenize } from "../../tools/index/tokenize.js";

describe("code-aware tokens", () => {
  it("split camelCase, PascalCase, acronyms, snake_case and digits", () => {
    expect(splitIdentifier("parseHTTPRequest_v2")).toEqual(["parse", "http", "request", "v", "2"]);
    expect(splitIdentifier("RATE_LIMIT")).toEqual(["rate", "limit"]);
    expect(splitIdentifier("kebab-case-name")).toEqual(["kebab", "case", "name"]);
  });

  it("keep identifiers whole (lower-cased) beside their parts", () => {
    const tokens = tokenize("const hashPassword = rate_limiter;");
    expect(tokens).toContain("hashpassword");
    expect(tokens).toContain("password");
    expect(tokens).toContain("rate_limiter");
    expect(tokens).toContain("limit");
  });

  it("meet word forms through the stemmer", () => {
    expect(stem("hashed")).toBe(stem("hash"));
    expect(stem("parsing")).toBe(stem("parse"));
    expect(stem("caches")).toBe(stem("cache"));
    expect(stem("mapping")).toBe("map");
    expect(stem("process")).toBe("process");
  });

  it("stems as the suffix rule written with strings and regular expressions does", () => {
    // The rule as it reads in words: the stemmer itself works on character codes, for strings and bytes alike.
    const byStrings = (word: string): string => {
      let base = word;
      if (word.length > 4) {
        for (const suffix of ["ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "ly", "s"]) {
          if (!word.endsWith(suffix) || word.length - suffix.length < 3) continue;
          base = word.slice(0, -suffix.length);
          if (suffix === "ies") base += "y";
          else if (suffix === "s" && base.endsWith("s")) base = word;
          else if (/^(ing|ed|er|ers|ings)$/.test(suffix) && /([^aeioulsz])\1$/.test(base)) base = base.slice(0, -1);
          break;
        }
      }
      return base.length >= 4 && base.endsWith("e") ? base.slice(0, -1) : base;
    };
    const letter = fc.constantFrom(..."aeilnrstygdz_$1".split(""));
    const ending = fc.constantFrom("", "ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "ly", "s", "e", "ss", "nning", "lled");
    fc.assert(
      fc.property(fc.array(letter, { maxLength: 8 }), ending, (letters, suffix) => {
        const word = letters.join("") + suffix;
        expect(stem(word)).toBe(byStrings(word));
      }),
      { numRuns: 3000 },
    );
  });

  it("drop question words and one-letter tokens", () => {
    expect(tokenize("where is the a x")).toEqual([]);
  });
});

describe("splitIdentifier", () => {
  /** The rule as regular expressions: the reference the hand-written splitter must agree with. */
  const reference = (identifier: string) =>
    identifier
      .split(/[_$-]+/)
      .flatMap((piece) => piece.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [])
      .map((word) => word.toLowerCase());

  it("agrees with the regular-expression rule on any identifier-like text", () => {
    const character = fc.constantFrom(..."aBcXyZq09_$-é.".split(""));
    fc.assert(
      fc.property(fc.array(character, { maxLength: 24 }), (characters) => {
        const identifier = characters.join("");
        expect(splitIdentifier(identifier)).toEqual(reference(identifier));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the last capital of a run to the word it starts", () => {
    expect(splitIdentifier("XMLHttpRequest")).toEqual(["xml", "http", "request"]);
    expect(splitIdentifier("ABc")).toEqual(["a", "bc"]);
    expect(splitIdentifier("getID2fa")).toEqual(["get", "id", "2", "fa"]);
  });
});

describe("countTokensIn", () => {
  it("counts the wanted tokens tokenize gives, splitting only identifiers that hold a wanted token's head", () => {
    const pieces = [
      "parse",
      "Parsing",
      "entries",
      "Entry",
      "config",
      "CONFIG",
      "getID2fa",
      "retries",
      "running",
      "run",
      "y",
      "ies",
      "http",
      "_",
      "$",
      "12",
      " ",
      ".",
      "(",
      "é",
      "\n",
      "x".repeat(70),
    ];
    const words = ["parse", "pars", "entry", "entri", "config", "retry", "run", "running", "http", "12", "id", "y", "fa"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), fc.uniqueArray(fc.constantFrom(...words), { maxLength: 4 }), (parts, chosen) => {
        const text = parts.join("");
        const wanted = new Set(chosen.flatMap((word) => tokenize(word)).concat(chosen));
        const heads = [...new Set([...wanted].map(stemHead))];
        expect(countTokensIn(text, wanted, heads)).toBe(tokenize(text).filter((token) => wanted.has(token)).length);
      }),
      { numRuns: 3000 },
    );
  });
});
