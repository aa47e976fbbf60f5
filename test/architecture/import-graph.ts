/**
 * Reads the import graph of clio's own sources (grammar/, tools/, protocols/, src/) from the
 * files themselves: every static `import … from`, `export … from`, bare `import "…"` and dynamic
 * `import("…")` with a relative specifier. Type-only imports count too: a layer that names
 * another layer's types depends on it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const layers = ["grammar", "tools", "protocols", "src"] as const;
export type Layer = (typeof layers)[number];

/** Source file (workspace-relative, `/`-separated) → the source files it imports. */
export type ImportGraph = Map<string, string[]>;

const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

function sourceFiles(root: string, folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourceFiles(root, relative));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(relative);
  }
  return found;
}

/** The relative specifiers a source text imports, in order. */
export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(specifierPattern)].flatMap((match) => (match[1]?.startsWith(".") ? [match[1]] : []));
}

function resolveSpecifier(from: string, specifier: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.endsWith(".js") ? `${joined.slice(0, -3)}.ts` : joined;
}

/** The import graph of every layer's sources under `root`. */
export function readImportGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const layer of layers) {
    for (const file of sourceFiles(root, layer)) {
      const text = readFileSync(path.join(root, file), "utf8");
      graph.set(
        file,
        importSpecifiers(text).map((specifier) => resolveSpecifier(file, specifier)),
      );
    }
  }
  return graph;
}

/** The layer a workspace-relative file belongs to, if any. */
export function layerOf(file: string): Layer | undefined {
  const top = file.split("/")[0];
  return layers.find((layer) => layer === top);
}

/** Every import cycle, each listed once as the files along it (a strongly connected component). */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;

  // Tarjan's algorithm, iterative so deep graphs cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; next: number }[] = [{ file: start, next: 0 }];
    index.set(start, counter);
    lowest.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame === undefined) break;
      const targets = (graph.get(frame.file) ?? []).filter((target) => graph.has(target));
      const target = targets[frame.next++];
      if (target !== undefined) {
        if (!index.has(target)) {
          index.set(target, counter);
          lowest.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, next: 0 });
        } else if (onStack.has(target)) {
          lowest.set(frame.file, Math.min(lowest.get(frame.file) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) lowest.set(parent.file, Math.min(lowest.get(parent.file) ?? 0, lowest.get(frame.file) ?? 0));
      if (lowest.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      const selfLoop = (graph.get(frame.file) ?? []).includes(frame.file);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  }
  return cycles;
}
