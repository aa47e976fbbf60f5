/** Loading a bundled command script with or without its V8 code cache. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { loadCachedScript } from "../../src/cached-script.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  folder = await temporaryFolder("clio-cached-script-");
});
afterAll(async () => {
  await folder.remove();
});

const BODY = '(function (module, exports, require) {\nexports.answer = 6 * 7;\nexports.separator = require("node:path").sep;\n})';

function writeScript(name: string): string {
  const file = path.join(folder.path, `${name}.cjs`);
  writeFileSync(file, BODY);
  return file;
}

/** What the build does: compile, run the module body, save the cache. */
function writeCache(file: string): void {
  const script = new vm.Script(readFileSync(file, "utf8"), { filename: file });
  const module = { exports: {} };
  script.runInThisContext()(module, module.exports, createRequire(file));
  writeFileSync(`${file}.cache`, script.createCachedData());
}

describe("loadCachedScript", () => {
  it("returns the script's exports, with require for node's modules", () => {
    const file = writeScript("plain");
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ answer: 42, separator: path.sep });
  });

  it("uses the code cache beside the script", () => {
    const file = writeScript("cached");
    writeCache(file);
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ answer: 42, separator: path.sep });
  });

  it("compiles the script as usual when V8 rejects the cache", () => {
    const file = writeScript("stale");
    writeFileSync(`${file}.cache`, Buffer.from("not a code cache"));
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ answer: 42, separator: path.sep });
  });

  it("hands the caller's modules to the script by name, and its own file as module.filename", () => {
    const file = path.join(folder.path, "shared.cjs");
    writeFileSync(file, '(function (module, exports, require) {\nexports.counter = require("clio-host:counter");\nexports.file = module.filename;\n})');
    const counter = { count: 3 };
    const exports = loadCachedScript(pathToFileURL(file), { "clio-host:counter": counter });
    expect(exports.counter).toBe(counter);
    expect(exports.file).toBe(file);
  });

  it("reads a script that is not ASCII as UTF-8", () => {
    const file = path.join(folder.path, "unicode.cjs");
    writeFileSync(file, '(function (module, exports) {\nexports.text = "a［b］😀é";\n})');
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ text: "a［b］😀é" });
  });

  it("reads a script larger than its cache, and a cache larger than its script, whole", () => {
    const file = path.join(folder.path, "long.cjs");
    writeFileSync(file, `(function (module, exports) {\n/* ${"x".repeat(300_000)} */\nexports.tail = "read to the end";\n})`);
    writeCache(file);
    expect(statSync(`${file}.cache`).size).toBeLessThan(statSync(file).size);
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ tail: "read to the end" });
    writeFileSync(`${file}.cache`, Buffer.alloc(400_000, 7));
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ tail: "read to the end" });
  });

  it("compiles the script as usual when its cache cannot be read", () => {
    const file = writeScript("cache-folder");
    mkdirSync(`${file}.cache`);
    expect(loadCachedScript(pathToFileURL(file))).toEqual({ answer: 42, separator: path.sep });
  });

  it("says the build is incomplete when the script cannot be read", () => {
    expect(() => loadCachedScript(pathToFileURL(folder.path))).toThrow(/build is incomplete.*npm run build/);
  });

  it("says the build is incomplete when the script is missing", () => {
    expect(() => loadCachedScript(pathToFileURL(path.join(folder.path, "missing.cjs")))).toThrow(/build is incomplete.*npm run build/);
  });
});

describe("asciiOnly (the build's last step on a cached script)", () => {
  it("escapes what esbuild leaves in regular expressions, which then match as before", async () => {
    // @ts-expect-error: a build script without type declarations.
    const { asciiOnly } = (await import("../../scripts/cached-scripts.mjs")) as { asciiOnly: (text: string) => string };
    const source = 'module.exports = [/[［］：]/g, /😀+/u, /é|x/, /[😀-😂]/u].map((pattern) => "a［b］c：😀😀é😁x".match(pattern));';
    const escaped = asciiOnly(source);
    expect(escaped).toMatch(/^[\0-\x7f]*$/);
    const run = (text: string) => {
      const module = { exports: [] as unknown[] };
      new vm.Script(`(function (module) { ${text} })`).runInThisContext()(module);
      return module.exports.map((found) => (found === null ? null : [...(found as string[])]));
    };
    expect(run(escaped)).toEqual(run(source));
    expect(run(source)).toEqual([["［", "］", "："], ["😀😀"], ["é"], ["😀"]]);
  });
});
