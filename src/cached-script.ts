/**
 * Loads a command the build bundled as one script with a V8 code cache beside it (see
 * scripts/cached-scripts.mjs). Node 20 keeps no compile cache for ES modules, so without this
 * `clio parse` would load and compile a dozen chunks (Chevrotain and zod among them) on every
 * run. A cache V8 rejects (another Node version, other V8 flags) or a missing one only costs
 * that time: the script then compiles as usual. Running from source never comes here.
 */
import { isAscii } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/** What the script evaluates to: a CommonJS module body wrapped in a function. */
type ModuleBody = (module: { exports: Record<string, unknown>; filename: string }, exports: Record<string, unknown>, require: (id: string) => unknown) => void;

/**
 * The exports of the script at `url` (NAME.cjs, with its cache at NAME.cjs.cache). `hosted`:
 * what the script requires from its loader by the name the build gave it (the importer of the
 * main build's chunks).
 */
export function loadCachedScript(url: URL, hosted: Record<string, unknown> = {}): Record<string, unknown> {
  const file = fileURLToPath(url);
  const { source, cachedData } = readScriptAndCache(file);
  const body = new vm.Script(source, { filename: file, cachedData }).runInThisContext() as ModuleBody;
  const module = { exports: {} as Record<string, unknown>, filename: file };
  const require = createRequire(file);
  body(module, module.exports, (id) => (Object.hasOwn(hosted, id) ? hosted[id] : require(id)));
  return module.exports;
}

/**
 * The script's text and its cache (undefined when there is none), read through one buffer: the
 * text is copied out of it before the cache is read in, so the fresh pages of the larger file are
 * touched once instead of the two files' pages each (about 250 pages for `clio replay`).
 */
function readScriptAndCache(file: string): { source: string; cachedData: Buffer | undefined } {
  const scriptFd = asScriptRead(file, () => openSync(file, "r"));
  // A cache that cannot be read only costs the compile time.
  const cacheFd = unlessUnreadable(() => openSync(`${file}.cache`, "r"));
  try {
    const scriptSize = asScriptRead(file, () => fstatSync(scriptFd).size);
    const cacheSize = cacheFd === undefined ? 0 : (unlessUnreadable(() => fstatSync(cacheFd).size) ?? 0);
    const buffer = Buffer.allocUnsafe(Math.max(scriptSize, cacheSize));
    const bytes = buffer.subarray(
      0,
      asScriptRead(file, () => readAll(scriptFd, buffer, scriptSize)),
    );
    // The build writes the script in ASCII (asciiOnly in scripts/cached-scripts.mjs): made as
    // Latin-1 its string needs no UTF-8 decoding and about a quarter fewer fresh pages.
    const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
    const cachedData = cacheFd === undefined || cacheSize === 0 ? undefined : unlessUnreadable(() => buffer.subarray(0, readAll(cacheFd, buffer, cacheSize)));
    return { source, cachedData };
  } finally {
    closeSync(scriptFd);
    if (cacheFd !== undefined) closeSync(cacheFd);
  }
}

/** `read`'s value; an error reading the script itself says the build is incomplete. */
function asScriptRead<Value>(file: string, read: () => Value): Value {
  try {
    return read();
  } catch (error) {
    throw new Error(`clio's build is incomplete: ${file} cannot be read (${(error as Error).message}). Run npm run build.`);
  }
}

/** `read`'s value, or undefined when it fails. */
function unlessUnreadable<Value>(read: () => Value): Value | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Reads up to `size` bytes of `fd` into the start of `buffer`; the count read. */
function readAll(fd: number, buffer: Buffer, size: number): number {
  let filled = 0;
  while (filled < size) {
    const read = readSync(fd, buffer, filled, size - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}
