// The `clio/fuzz` type declarations: tsc's declaration output for src/fuzz/index.ts and every
// file it reaches, written under `<outDir>` with the source tree's layout (package.json's
// "exports" points `types` at `<outDir>/src/fuzz/index.d.ts`). Writing them type-checks the
// sources (about 15 s of CPU), so the output is kept in node_modules/.cache under a hash of
// the sources and reused while they are unchanged.
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const SOURCE_FOLDERS = ["grammar", "protocols", "tools", "src"];

function sourceHash(root) {
  const hash = createHash("sha256")
    .update(ts.version)
    .update(readFileSync(path.join(root, "tsconfig.json")));
  for (const folder of SOURCE_FOLDERS) {
    const files = readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    for (const file of files.sort()) hash.update(`${folder}/${file}\0`).update(readFileSync(path.join(root, folder, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

function emitDeclarations(root, outDir) {
  const configFile = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const program = ts.createProgram([path.join(root, "src", "fuzz", "index.ts")], {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    noUnusedLocals: false,
    rootDir: root,
    outDir,
  });
  const { diagnostics } = program.emit();
  if (diagnostics.length === 0) return;
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  throw new Error(`clio/fuzz type declarations:\n${ts.formatDiagnostics(diagnostics, host)}`);
}

/** Writes the declarations under `outDir`; throws with tsc's messages when they cannot be written. */
export function writeFuzzTypes(root, outDir) {
  const cacheFolder = path.join(root, "node_modules", ".cache", "clio-fuzz-types");
  const cached = path.join(cacheFolder, sourceHash(root));
  if (!existsSync(cached)) {
    const fresh = `${cached}.build-${process.pid}`;
    emitDeclarations(root, fresh);
    // Only the newest declarations are kept.
    if (existsSync(cacheFolder)) for (const old of readdirSync(cacheFolder)) if (!old.includes(".build-")) rmSync(path.join(cacheFolder, old), { recursive: true, force: true });
    try {
      renameSync(fresh, cached);
    } catch (error) {
      // A build running beside this one wrote the same declarations first.
      if (!existsSync(cached)) throw error;
      rmSync(fresh, { recursive: true, force: true });
    }
  }
  cpSync(cached, outDir, { recursive: true });
}
