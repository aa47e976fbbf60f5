// Commands whose start-up time matters are bundled a second time as ONE script with a V8 code
// cache, loaded by src/cached-script.ts. As chunks, `clio parse` loads and compiles about
// fifteen ES modules (Chevrotain, zod, the grammar, every protocol definition) on each run, and
// Node 20 caches none of that; the script is deserialised from the cache instead.
//
// The script holds what the command runs. Protocol handlers load their tool layers with
// import() when a command runs; `clio parse` never runs one, so in its script those imports
// fail with a plain message instead of pulling every tool layer in. `clio replay` does run them:
// in its script they load the main build's chunks.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Each cached command: its entry module, the script's name in dist/chunks/, what main.ts imports
 * from it, and a run of the command whose compiled functions go into the cache too.
 */
const SCRIPTS = [
  { entry: "src/cli/parse-command.ts", name: "parse-command", exports: ["parseCommand"], warmUp: warmUpParse },
  // `clio replay` runs commands. Its script holds what replaying a script file needs; the tool
  // layers protocol handlers import() and the rarer modes (`chunked`: --model-script,
  // --from-session…) are loaded as the main build's chunks, so the script does not hold every
  // tool layer and its libraries. The state main.ts reads or sets in modules the script carries
  // too (the log, the interrupt watch) is kept once per process (src/process-state.ts).
  {
    entry: "src/cli/replay-command.ts",
    name: "replay-command",
    exports: ["replayCommand"],
    warmUp: warmUpReplay,
    runsTools: true,
    // Except the code index's and the file tools': a one-off search or read runs them in every
    // fresh process, and as chunks they are ES modules compiled on each run (about 50 ms of a
    // one-off search's CPU; a read loaded the ES-module loader for them, 14-16 ms of its time).
    inlineLayersOf: ["protocols/rag.ts", "protocols/file-op.ts"],
    chunked: [
      ...["replay-model-script", "replay-session", "replay-fuzz-check", "replay-review"].map((name) => `src/cli/${name}.ts`),
      // Only for a YAML config file, a glob among the scripts, an MCP server's tools.
      "src/config/yaml-text.ts",
      "fast-glob",
      "@modelcontextprotocol/sdk/validation/ajv",
    ],
  },
];

/** A sample: prose, a command, one in inline code, so the scanner, parser, checks and report all run. */
const PARSE_SAMPLE = 'Let me read it.\n[FILE_OP:action=read:path="src/main.c"]\n`[EXEC:action=run:command="ls"]`\n[MEMORY:action=store:key=a:value=<<EOF\nb\nEOF]\n';

/** Runs `clio parse` on a sample file with its output dropped. */
async function warmUpParse(exports, folder) {
  const sample = path.join(folder, "warm-up-sample.md");
  writeFileSync(sample, PARSE_SAMPLE);
  await withOutputDropped(async () => {
    await exports.parseCommand(sample, {});
    await exports.parseCommand(sample, { json: true });
  });
  rmSync(sample, { force: true });
}

/**
 * Replays a FILE_OP read and a RAG search in a temporary workspace with its output dropped, with
 * an empty home folder so the builder's own clio config plays no part.
 */
async function warmUpReplay(exports, folder) {
  const workspace = mkdtempSync(path.join(folder, "warm-up-workspace-"));
  const home = mkdtempSync(path.join(folder, "warm-up-home-"));
  writeFileSync(path.join(workspace, "notes.md"), "# Notes\nThe replay reads this file.\n");
  const script = path.join(folder, "warm-up-script.txt");
  writeFileSync(script, '[FILE_OP:action=read:path="notes.md"]\n[RAG:action=search:query="replay reads"]\n');
  const homeBefore = process.env.CLIO_HOME;
  process.env.CLIO_HOME = home;
  try {
    const exitCode = await withOutputDropped(() => exports.replayCommand([script], { workspace, permissionMode: "yolo" }));
    if (exitCode !== 0) throw new Error(`the build's warm-up replay exited ${exitCode}; run dist/clio.cjs replay on a FILE_OP read to see why.`);
  } finally {
    if (homeBefore === undefined) delete process.env.CLIO_HOME;
    else process.env.CLIO_HOME = homeBefore;
    for (const made of [workspace, home, script]) rmSync(made, { recursive: true, force: true });
  }
}

/** Runs `work` with stdout and stderr dropped. */
async function withOutputDropped(work) {
  const { stdout, stderr } = process;
  const writes = [stdout.write, stderr.write];
  stdout.write = () => true;
  stderr.write = () => true;
  try {
    return await work();
  } finally {
    [stdout.write, stderr.write] = writes;
  }
}

const sourcePath = (resolveDir, specifier) => path.resolve(resolveDir, specifier.replace(/\.js$/, ".ts"));

/**
 * An esbuild plugin for the main build: `import("./parse-command.js")` becomes a chunk that
 * loads the cached script (dist/chunks/parse-command.cjs) and re-exports its names.
 *
 * With `esmChunks` (the ES-module build's chunk for each module it loads by import(), from
 * `dynamicImportChunks`), it is the plugin of the CommonJS entry (dist/clio.cjs): the cached
 * commands are loaded by the entry itself, with no ES module on the way, and every other
 * import() loads the ES-module build's chunk of that module.
 */
export function cachedScripts(esmChunks) {
  const entry = esmChunks !== undefined;
  return {
    name: "cached-scripts",
    setup(context) {
      context.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const source = sourcePath(args.resolveDir, args.path);
        const script = SCRIPTS.find(({ entry }) => source === path.join(root, entry));
        if (script) return { path: script.name, namespace: "cached-script" };
        // The entry keeps the log in its own bundle: `--debug` starts it before any chunk loads.
        if (!entry || source === path.join(root, "src", "log.ts")) return undefined;
        return { path: esmChunkOf(esmChunks, source, args.path), external: true };
      });
      context.onResolve({ filter: new RegExp(`^${ESM_CHUNK}`) }, async (args) => {
        const name = args.path.slice(ESM_CHUNK.length);
        const resolved = isPackage(name) ? (await context.resolve(name, { kind: "dynamic-import", resolveDir: root })).path : path.join(root, name);
        return { path: esmChunkOf(esmChunks, resolved, name), external: true };
      });
      context.onLoad({ filter: /.*/, namespace: "cached-script" }, (args) => {
        const script = SCRIPTS.find(({ name }) => name === args.path);
        const chunked = chunkedModules(script);
        const specifier = (file) => (entry ? `${ESM_CHUNK}${file}` : isPackage(file) ? file : path.join(root, file));
        const here = entry ? 'require("node:url").pathToFileURL(__filename)' : "import.meta.url";
        const contents = [
          `import { loadCachedScript } from ${JSON.stringify(path.join(root, "src", "cached-script.ts"))};`,
          `const chunks = { ${chunked.map((file) => `${JSON.stringify(file)}: () => import(${JSON.stringify(specifier(file))})`).join(", ")} };`,
          `const hosted = { ${JSON.stringify(hostSpecifier("import"))}: (file) => chunks[file]() };`,
          `const script = loadCachedScript(new URL(${JSON.stringify(`./${entry ? "chunks/" : ""}${script.name}.cjs`)}, ${here}), hosted);`,
          ...script.exports.map((name) => `export const ${name} = script.${name};`),
        ];
        return { contents: contents.join("\n"), resolveDir: root, loader: "js" };
      });
    },
  };
}

/** How the CommonJS entry's loader of a cached command names a module it loads from the ES-module build. */
const ESM_CHUNK = "clio-esm-chunk:";

/** The ES-module build's chunk of `source` (an absolute path), as the entry in dist/ imports it. */
function esmChunkOf(esmChunks, source, asWritten) {
  const chunk = esmChunks.get(source);
  if (chunk === undefined) throw new Error(`${asWritten}: the ES-module build made no chunk of ${source} for the CommonJS entry to load.`);
  return `./chunks/${chunk}`;
}

/** In a cached script, a protocol handler's import() of its tool layer. */
const handlerToolsUnavailable = {
  name: "handler-tools-unavailable",
  setup(context) {
    context.onResolve({ filter: /.*/ }, (args) =>
      args.kind === "dynamic-import" && args.importer.startsWith(path.join(root, "protocols") + path.sep) ? { path: args.path, namespace: "unavailable" } : undefined,
    );
    context.onLoad({ filter: /.*/, namespace: "unavailable" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of this command's bundle: it parses and checks commands, it does not run them.`)});`,
      loader: "js",
    }));
  },
};

/** How a cached script names what its loader hands to it (the importer of main-build chunks). */
const hostSpecifier = (name) => `clio-host:${name}`;

/** The main build's chunk for each module loaded by import(): source path → the chunk's file name. */
export function dynamicImportChunks(metafile) {
  const chunks = new Map();
  for (const [output, { entryPoint }] of Object.entries(metafile.outputs)) {
    if (entryPoint && output.endsWith(".js")) chunks.set(path.resolve(root, entryPoint), path.basename(output));
  }
  return chunks;
}

/** The tool layers the handlers of `protocolFiles` (default: every protocol) load with import(), as paths from the root. */
function toolLayers(protocolFiles) {
  const layers = new Set();
  const files =
    protocolFiles ??
    readdirSync(path.join(root, "protocols"), { recursive: true })
      .filter((entry) => entry.endsWith(".ts") && !entry.endsWith(".test.ts"))
      .map((entry) => path.join("protocols", entry));
  for (const relative of files) for (const layer of layersImportedBy(relative)) layers.add(layer);
  return [...layers].sort();
}

const importedLayers = new Map();

/** The tool layers one protocol file loads with import(), as paths from the root; each file is read once per build. */
function layersImportedBy(relative) {
  let layers = importedLayers.get(relative);
  if (layers === undefined) {
    const file = path.join(root, relative);
    layers = [...readFileSync(file, "utf8").matchAll(/\bimport\("(\.[^"]+)"\)/g)].map(([, specifier]) => path.relative(root, sourcePath(path.dirname(file), specifier)));
    importedLayers.set(relative, layers);
  }
  return layers;
}

/** The tool layers a script that runs commands holds itself (`inlineLayersOf`). */
const inlineModules = (script) => (script.runsTools ? [...toolLayers(script.inlineLayersOf ?? [])] : []);

/** The modules a script that runs commands loads as the main build's chunks. */
function chunkedModules(script) {
  if (!script.runsTools) return [];
  const inline = new Set(inlineModules(script));
  return [...toolLayers().filter((layer) => !inline.has(layer)), ...script.chunked];
}

const CHUNK_PREFIX = "clio-chunk:";

/** A module named as a package (`fast-glob`), not as a path from the root. */
const isPackage = (name) => !/^(src|tools|protocols|grammar)\//.test(name);

/**
 * In a script that runs commands, an import() of a chunked module becomes a call of
 * `__clioImportChunk` with the module's path (rewritten after bundling: a script run by vm has
 * no module loader); the loader made by cachedScripts() imports it.
 */
function chunkedImports(files, inline) {
  return {
    name: "chunked-imports",
    setup(context) {
      context.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind === "dynamic-import" && files.includes(args.path) ? { path: `${CHUNK_PREFIX}${args.path}`, external: true } : undefined,
      );
      context.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const file = path.relative(root, sourcePath(args.resolveDir, args.path));
        if (files.includes(file)) return { path: `${CHUNK_PREFIX}${file}`, external: true };
        if (file.startsWith(`protocols${path.sep}`) || inline.includes(file)) return undefined;
        return args.importer.startsWith(path.join(root, "protocols") + path.sep)
          ? { errors: [{ text: `${args.path}: a protocol's import() that scripts/cached-scripts.mjs did not find.` }] }
          : undefined;
      });
    },
  };
}

/** The script's text with each import() of a chunked module made a call of `__clioImportChunk`. */
function withChunkImports(text) {
  const rewritten = text.replaceAll(`import("${CHUNK_PREFIX}`, '__clioImportChunk("');
  if (rewritten.includes(CHUNK_PREFIX)) throw new Error(`an import() of a chunked module was bundled in a form the build does not rewrite (${CHUNK_PREFIX}).`);
  return rewritten;
}

/**
 * The script with its last non-ASCII characters written as `\uXXXX` escapes. With
 * `charset: "ascii"` esbuild escapes them everywhere but in regular-expression literals, where
 * the escape of each UTF-16 unit means the same with or without the `u` flag. An ASCII script is
 * read into a one-byte string: half the memory and a faster read than a two-byte one.
 */
export function asciiOnly(text) {
  return text.replace(/[^\0-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** What a script that runs commands gets first: import.meta.url and the loader of main-build chunks. */
const SCRIPT_PRELUDE = [
  "(function (module, exports, require) {",
  // import.meta.url is the script's own address (module.filename, set by src/cached-script.ts).
  'const __clioScriptUrl = require("node:url").pathToFileURL(module.filename).href;',
  `const __clioImportChunk = require(${JSON.stringify(hostSpecifier("import"))});`,
];

/**
 * Bundles each cached command into `chunksFolder`/NAME.cjs (a CommonJS body wrapped in a
 * function, as src/cached-script.ts calls it) and writes V8's code cache beside it.
 * `finalChunksFolder` is where it will run from: stack traces show the name the cache was made with.
 * `metafile` is the main build's: which chunk holds each tool layer.
 */
export async function writeCachedScripts(chunksFolder, finalChunksFolder, metafile) {
  const chunks = dynamicImportChunks(metafile);
  for (const script of SCRIPTS) {
    const { entry, name, warmUp, runsTools } = script;
    const file = path.join(chunksFolder, `${name}.cjs`);
    const result = await build({
      entryPoints: [path.join(root, entry)],
      outfile: file,
      write: false,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      legalComments: "none",
      minifyWhitespace: true,
      charset: "ascii",
      logLevel: "warning",
      banner: { js: SCRIPT_PRELUDE.slice(0, runsTools ? 3 : 2).join("\n") },
      footer: { js: "})" },
      define: { "import.meta.url": "__clioScriptUrl" },
      plugins: [runsTools ? chunkedImports(chunkedModules(script), inlineModules(script)) : handlerToolsUnavailable],
    });
    const text = asciiOnly(withChunkImports(result.outputFiles[0].text));
    writeFileSync(file, text);
    // The cache holds what compiling the script, running its module body and one run of the
    // command compiled: V8 compiles a function when it first runs, and a cache made before the
    // run would leave the command's own functions (Chevrotain building its lexer and parser, the
    // scanner, the report) to be compiled on every start.
    const compiled = new vm.Script(text, { filename: path.join(finalChunksFolder, `${name}.cjs`) });
    const module = { exports: {}, filename: file };
    const importChunk = (source) => (isPackage(source) ? import(source) : import(pathToFileURL(path.join(chunksFolder, chunks.get(path.join(root, source)))).href));
    const hosted = { [hostSpecifier("import")]: importChunk };
    const require = createRequire(file);
    compiled.runInThisContext()(module, module.exports, (id) => hosted[id] ?? require(id));
    await warmUp(module.exports, chunksFolder);
    writeFileSync(`${file}.cache`, compiled.createCachedData());
  }
}
