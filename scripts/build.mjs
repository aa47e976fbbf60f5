// Bundles the CLI so start-up does not pay for loading hundreds of modules: the entry holds only
// the command line; each subcommand's code is a chunk loaded when that subcommand runs.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { cachedScripts, dynamicImportChunks, writeCachedScripts } from "./cached-scripts.mjs";
import { writeFuzzTypes } from "./fuzz-types.mjs";
import "./generate-protocol-list.mjs";

// Build into a fresh folder and swap it in, so stale chunks never pile up and a CLI running
// during a rebuild never finds dist/ half written.
const dist = fileURLToPath(new URL("../dist", import.meta.url));
const fresh = `${dist}.build-${process.pid}`;
const old = `${dist}.old-${process.pid}`;
rmSync(fresh, { recursive: true, force: true });

const main = await build({
  entryPoints: ["src/cli/main.ts"],
  metafile: true,
  outdir: fresh,
  entryNames: "clio",
  chunkNames: "chunks/[name]-[hash]",
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: false,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  plugins: [cachedScripts()],
  banner: {
    js: ["#!/usr/bin/env node", "import { createRequire as __clioCreateRequire } from 'node:module';", "const require = __clioCreateRequire(import.meta.url);"].join("\n"),
  },
});

// The command as installed (package.json "bin"): the same main.ts as one CommonJS file. Node
// starts a CommonJS entry without its ES-module loader, and `clio replay` and `clio parse` load
// their cached scripts from it directly, so those run with no ES module at all; every other
// subcommand is the ES-module build's chunk, loaded by import().
await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: `${fresh}/clio.cjs`,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  plugins: [cachedScripts(dynamicImportChunks(main.metafile))],
  banner: { js: "#!/usr/bin/env node" },
});

/** One self-contained ES module file for Node (no chunks to resolve). */
const singleFile = { bundle: true, platform: "node", format: "esm", target: "node20", sourcemap: "linked", legalComments: "none", logLevel: "warning" };

// The code index's worker threads load one self-contained file.
await build({ ...singleFile, entryPoints: ["tools/index/worker.ts"], outfile: `${fresh}/index-worker.js` });

// `clio/fuzz` (package.json "exports"): the arbitraries and fuzz laws as one module; fast-check
// stays external so a test's own `fc` and these arbitraries are the same library.
await build({
  ...singleFile,
  entryPoints: ["src/fuzz/index.ts"],
  outfile: `${fresh}/fuzz.js`,
  external: ["fast-check"],
  banner: { js: "import { createRequire as __clioCreateRequire } from 'node:module';\nconst require = __clioCreateRequire(import.meta.url);" },
});

writeFuzzTypes(fileURLToPath(new URL("..", import.meta.url)), `${fresh}/types`);

await writeCachedScripts(`${fresh}/chunks`, `${dist}/chunks`, main.metafile);

// docs/protocols.md is the registry's own account of the protocols (test/cli/protocols-command.test.ts
// fails when the file and the registry differ); rewritten only when it changed.
const reference = fileURLToPath(new URL("../docs/protocols.md", import.meta.url));
const markdown = execFileSync(process.execPath, [`${fresh}/clio.cjs`, "protocols", "--markdown"], { encoding: "utf8" });
if (!existsSync(reference) || readFileSync(reference, "utf8") !== markdown) writeFileSync(reference, markdown);

if (existsSync(dist)) renameSync(dist, old);
renameSync(fresh, dist);
rmSync(old, { recursive: true, force: true });
