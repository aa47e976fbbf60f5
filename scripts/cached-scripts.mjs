// Commands whose start-up time matters are bundled a second time as ONE script with a V8 code
// cache, loaded by src/cached-script.ts. As chunks, `clio parse` loads and compiles about
// fifteen ES modules (Chevrotain, zod, the grammar, every protocol definition) on each run, and
// Node 20 caches none of that; the script is deserialised from the cache instead.
//
// The script holds what the command runs. Protocol handlers load their tool layers with
// import() when a command runs; `clio parse` never runs one, so in its script those imports
// fail with a plain message instead of pulling every tool layer in.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Each cached command: its entry module, the script's name in dist/chunks/, what main.ts imports
 * from it, and a run of the command whose compiled functions go into the cache too.
 */
const SCRIPTS = [{ entry: "src/cli/parse-command.ts", name: "parse-command", exports: ["parseCommand"], warmUp: warmUpParse }];

/** A sample: prose, a command, one in inline code, so the scanner, parser, checks and report all run. */
const PARSE_SAMPLE = 'Let me read it.\n[FILE_OP:action=read:path="src/main.c"]\n`[EXEC:action=run:command="ls"]`\n[MEMORY:action=store:key=a:value=<<EOF\nb\nEOF]\n';

/** Runs `clio parse` on a sample file with its output dropped. */
async function warmUpParse(exports, folder) {
  const sample = path.join(folder, "warm-up-sample.md");
  writeFileSync(sample, PARSE_SAMPLE);
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    await exports.parseCommand(sample, {});
    await exports.parseCommand(sample, { json: true });
  } finally {
    process.stdout.write = write;
    rmSync(sample, { force: true });
  }
}

const sourcePath = (resolveDir, specifier) => path.resolve(resolveDir, specifier.replace(/\.js$/, ".ts"));

/**
 * An esbuild plugin for the main build: `import("./parse-command.js")` becomes a chunk that
 * loads the cached script (dist/chunks/parse-command.cjs) and re-exports its names.
 */
export function cachedScripts() {
  return {
    name: "cached-scripts",
    setup(context) {
      context.onResolve({ filter: /^\./ }, (args) => {
        const script = SCRIPTS.find(({ entry }) => sourcePath(args.resolveDir, args.path) === path.join(root, entry));
        return script && args.kind === "dynamic-import" ? { path: script.name, namespace: "cached-script" } : undefined;
      });
      context.onLoad({ filter: /.*/, namespace: "cached-script" }, (args) => {
        const script = SCRIPTS.find(({ name }) => name === args.path);
        const contents = [
          `import { loadCachedScript } from ${JSON.stringify(path.join(root, "src", "cached-script.ts"))};`,
          `const script = loadCachedScript(new URL(${JSON.stringify(`./${script.name}.cjs`)}, import.meta.url));`,
          ...script.exports.map((name) => `export const ${name} = script.${name};`),
        ];
        return { contents: contents.join("\n"), resolveDir: root, loader: "js" };
      });
    },
  };
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

/**
 * Bundles each cached command into `chunksFolder`/NAME.cjs (a CommonJS body wrapped in a
 * function, as src/cached-script.ts calls it) and writes V8's code cache beside it.
 * `finalChunksFolder` is where it will run from: stack traces show the name the cache was made with.
 */
export async function writeCachedScripts(chunksFolder, finalChunksFolder = chunksFolder) {
  for (const { entry, name, warmUp } of SCRIPTS) {
    const file = path.join(chunksFolder, `${name}.cjs`);
    await build({
      entryPoints: [path.join(root, entry)],
      outfile: file,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      legalComments: "none",
      logLevel: "warning",
      banner: { js: "(function (module, exports, require) {" },
      footer: { js: "})" },
      plugins: [handlerToolsUnavailable],
    });
    // The cache holds what compiling the script, running its module body and one run of the
    // command compiled: V8 compiles a function when it first runs, and a cache made before the
    // run would leave the command's own functions (Chevrotain building its lexer and parser, the
    // scanner, the report) to be compiled on every start.
    const finalFile = path.join(finalChunksFolder, `${name}.cjs`);
    const script = new vm.Script(readFileSync(file, "utf8"), { filename: finalFile });
    const module = { exports: {} };
    script.runInThisContext()(module, module.exports, createRequire(finalFile));
    await warmUp(module.exports, chunksFolder);
    writeFileSync(`${file}.cache`, script.createCachedData());
  }
}
