/**
 * Resolves the imports a file names to files of the index where it can (relative TS/JS and
 * Python imports, Go packages by path suffix, Rust `crate::`/`mod`, Java packages, C includes);
 * the rest are external dependencies.
 */
import path from "node:path";
import type { IndexEntry } from "./live-files.js";

export interface ResolvedImport {
  specifier: string;
  /** The indexed file (or, for Go, one file of the package) it names; undefined when external. */
  target?: string;
}

export class ImportResolver {
  private readonly paths: Set<string>;
  private readonly folders = new Map<string, string[]>();

  constructor(files: ReadonlyMap<string, IndexEntry>) {
    this.paths = new Set(files.keys());
    for (const filePath of this.paths) {
      const folder = path.posix.dirname(filePath);
      const list = this.folders.get(folder);
      if (list === undefined) this.folders.set(folder, [filePath]);
      else list.push(filePath);
    }
  }

  resolveAll(file: IndexEntry): ResolvedImport[] {
    return file.imports.map((specifier) => {
      const target = this.resolve(file, specifier);
      return target === undefined ? { specifier } : { specifier, target };
    });
  }

  resolve(file: IndexEntry, specifier: string): string | undefined {
    const folder = path.posix.dirname(file.path);
    switch (file.language) {
      case "typescript":
      case "javascript":
        return specifier.startsWith(".") ? this.scriptFile(path.posix.join(folder, specifier)) : undefined;
      case "python":
        return this.pythonModule(folder, specifier);
      case "go":
        return this.goPackage(specifier);
      case "rust":
        return this.rustModule(folder, specifier);
      case "java":
        return this.bySuffix(`${specifier.replace(/\.\*$/, "").replace(/\./g, "/")}.java`);
      case "c":
      case "cpp":
        return this.first([path.posix.join(folder, specifier)]) ?? this.bySuffix(specifier);
      default:
        return undefined;
    }
  }

  private first(candidates: string[]): string | undefined {
    return candidates.find((candidate) => this.paths.has(candidate));
  }

  private bySuffix(suffix: string): string | undefined {
    const matches = [...this.paths].filter((candidate) => candidate === suffix || candidate.endsWith(`/${suffix}`));
    return matches.length === 1 ? matches[0] : undefined;
  }

  private scriptFile(base: string): string | undefined {
    const stem = base.replace(/\.(m|c)?js$|\.jsx$/, "");
    const candidates = [base];
    for (const extension of [".ts", ".tsx", ".mts", ".js", ".jsx", ".mjs"]) candidates.push(stem + extension, `${base}/index${extension}`);
    return this.first(candidates);
  }

  private pythonModule(folder: string, specifier: string): string | undefined {
    const dots = /^\.*/.exec(specifier)![0].length;
    const rest = specifier.slice(dots).replace(/\./g, "/");
    if (dots > 0) {
      let base = folder;
      for (let level = 1; level < dots; level++) base = path.posix.dirname(base);
      const target = rest === "" ? base : path.posix.join(base, rest);
      return this.first([`${target}.py`, `${target}/__init__.py`]);
    }
    return this.bySuffix(`${rest}.py`) ?? this.bySuffix(`${rest}/__init__.py`);
  }

  private goPackage(specifier: string): string | undefined {
    const segments = specifier.split("/");
    if (segments.length < 2) return undefined;
    let best: string | undefined;
    let bestLength = 1;
    for (const [folder, files] of this.folders) {
      if (!files.some((file) => file.endsWith(".go"))) continue;
      const parts = folder.split("/");
      let matched = 0;
      while (matched < Math.min(parts.length, segments.length) && parts[parts.length - 1 - matched] === segments[segments.length - 1 - matched]) matched++;
      if (matched > bestLength) {
        bestLength = matched;
        best = files.filter((file) => file.endsWith(".go") && !file.endsWith("_test.go"))[0] ?? files[0];
      }
    }
    return best;
  }

  private rustModule(folder: string, specifier: string): string | undefined {
    const segments = specifier.split("::");
    if (segments[0] === "crate" || segments[0] === "self" || segments[0] === "super") {
      for (let length = segments.length - 1; length >= 1; length--) {
        const relative = segments.slice(1, length + 1).join("/");
        const found = this.first([`${folder}/${relative}.rs`, `${folder}/${relative}/mod.rs`]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (segments.length === 1) return this.first([`${folder}/${segments[0]}.rs`, `${folder}/${segments[0]}/mod.rs`]);
    return undefined;
  }
}
