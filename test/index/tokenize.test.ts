import { describe, expect, it } from "vitest";
import { splitIdentifier, stem, tokenize } from "../../tools/index/tokenize.js";

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

  it("drop question words and one-letter tokens", () => {
    expect(tokenize("where is the a x")).toEqual([]);
  });
});
