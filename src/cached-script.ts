/**
 * Loads a command the build bundled as one script with a V8 code cache beside it (see
 * scripts/cached-scripts.mjs). Node 20 keeps no compile cache for ES modules, so without this
 * `clio parse` would load and compile a dozen chunks (Chevrotain and zod among them) on every
 * run. A cache V8 rejects (another Node version, other V8 flags) or a missing one only costs
 * that time: the script then compiles as usual. Running from source never comes here.
 */
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/** What the script evaluates to: a CommonJS module body wrapped in a function. */
type ModuleBody = (module: { exports: Record<string, unknown>; filename: string }, exports: Record<string, unknown>, require: (id: string) => unknown) => void;

/**
 * The exports of the script at `url` (NAME.cjs, with its cache at NAME.cjs.cache). `shared`:
 * modules of the caller the script uses as its own (by the name the build gave them), so their
 * state is one in the process.
 */
export function loadCachedScript(url: URL, shared: Record<string, unknown> = {}): Record<string, unknown> {
  const file = fileURLToPath(url);
  let source: string;
  try {
    // The build writes the script in ASCII (asciiOnly in scripts/cached-scripts.mjs): made as
    // Latin-1 its string needs no UTF-8 decoding and about a quarter fewer fresh pages.
    const bytes = readFileSync(file);
    source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  } catch (error) {
    throw new Error(`clio's build is incomplete: ${file} cannot be read (${(error as Error).message}). Run npm run build.`);
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined;
  }
  const body = new vm.Script(source, { filename: file, cachedData }).runInThisContext() as ModuleBody;
  const module = { exports: {} as Record<string, unknown>, filename: file };
  const require = createRequire(file);
  body(module, module.exports, (id) => (Object.hasOwn(shared, id) ? shared[id] : require(id)));
  return module.exports;
}
