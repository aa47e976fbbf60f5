/**
 * The house is one-way: text → grammar/ → src/ (manager) → protocols/ → tools/. These tests read
 * the sources and fail on an import that points the wrong way or closes a circle.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importSpecifiers, type Layer, layerOf, readImportGraph } from "./import-graph.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const graph = readImportGraph(root);

/** For each layer, the layers its files must not import. */
const forbidden: Record<Layer, Layer[]> = {
  grammar: ["tools", "protocols", "src"],
  tools: ["protocols", "src"],
  protocols: ["src"],
  src: [],
};

function wrongWayImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = layerOf(target);
      if (to !== undefined && forbidden[from].includes(to)) found.push(`${file} → ${target}`);
    }
  }
  return found.sort();
}

/** The folder of protocol pieces a file lies in (`git` for protocols/git/status.ts), if any. */
function pieceFolderOf(file: string): string | undefined {
  const match = /^protocols\/([^/]+)\//.exec(file);
  return match && match[1] !== "contract" && match[1] !== "external" ? match[1] : undefined;
}

/** Imports of a protocol's pieces from anywhere but that protocol's file and its other pieces. */
function wrongPieceImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const folder = pieceFolderOf(target);
      if (folder !== undefined && file !== `protocols/${folder}.ts` && pieceFolderOf(file) !== folder) found.push(`${file} → ${target}`);
    }
  }
  return found.sort();
}

describe("the layers", () => {
  it("reads a real graph (the reader finds the sources and their imports)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("src/registry.ts")).toContain("protocols/contract/protocol.ts");
  });

  it("grammar/ imports nothing from tools/, protocols/ or src/; tools/ nothing from protocols/ or src/; protocols/ nothing from src/", () => {
    expect(wrongWayImports(graph)).toEqual([]);
  });

  it("has no import circles", () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe("the tools", () => {
  it("write no command syntax: their hints name actions, and the protocol layer writes the commands", () => {
    const commandLike = /\[[A-Z][A-Z0-9_]*:action=|\b[A-Z][A-Z0-9_]+ action=[a-z]/;
    const writers = [...graph.keys()].filter((file) => layerOf(file) === "tools" && commandLike.test(readFileSync(path.join(root, file), "utf8")));
    expect(writers).toEqual([]);
  });
});

describe("the protocols", () => {
  it("each protocol file has its tests under test/protocols/ (NAME.test.ts or a NAME/ folder)", () => {
    const protocols = readdirSync(path.join(root, "protocols")).filter((name) => name.endsWith(".ts"));
    expect(protocols.length).toBeGreaterThan(5);
    const untested = protocols
      .map((name) => name.slice(0, -3))
      .filter((name) => !existsSync(path.join(root, "test/protocols", `${name}.test.ts`)) && !existsSync(path.join(root, "test/protocols", name)));
    expect(untested).toEqual([]);
  });

  it("a folder in protocols/ holds the pieces of the protocol file of its name (contract/ and external/ aside)", () => {
    const names = readdirSync(path.join(root, "protocols"), { withFileTypes: true });
    const files = new Set(names.filter((entry) => entry.isFile() && entry.name.endsWith(".ts")).map((entry) => entry.name.slice(0, -3)));
    const folders = names.filter((entry) => entry.isDirectory() && !["contract", "external"].includes(entry.name)).map((entry) => entry.name);
    expect(folders.filter((folder) => !files.has(folder))).toEqual([]);
  });

  it("a protocol's pieces are imported only by its own file and by each other", () => {
    expect(wrongPieceImports(graph)).toEqual([]);
  });
});

describe("the checker itself", () => {
  it("finds static, re-exported, side-effect and dynamic imports", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "../b.js";',
      'export { c } from "./c.js";',
      'import "./d.js";',
      'const e = await import("./e.js");',
      'import { z } from "zod";',
    ].join("\n");
    expect(importSpecifiers(text)).toEqual(["./a.js", "../b.js", "./c.js", "./d.js", "./e.js"]);
  });

  it("reports a protocol's pieces imported from outside the protocol", () => {
    const sample = new Map([
      ["protocols/git.ts", ["protocols/git/status.ts"]],
      ["protocols/git/status.ts", ["protocols/git/access.ts", "protocols/contract/protocol.ts"]],
      ["protocols/todo.ts", ["protocols/git/access.ts", "protocols/external/naming.ts"]],
      ["src/registry.ts", ["protocols/git/status.ts"]],
    ]);
    expect(wrongPieceImports(sample)).toEqual(["protocols/todo.ts → protocols/git/access.ts", "src/registry.ts → protocols/git/status.ts"]);
  });

  it("reports an import pointing up a layer", () => {
    const sample = new Map([
      ["tools/a.ts", ["protocols/b.ts"]],
      ["protocols/b.ts", ["tools/a.ts"]],
    ]);
    expect(wrongWayImports(sample)).toEqual(["tools/a.ts → protocols/b.ts"]);
  });

  it("reports a circle of three and a file importing itself, and not a diamond", () => {
    const circle = new Map([
      ["src/a.ts", ["src/b.ts"]],
      ["src/b.ts", ["src/c.ts"]],
      ["src/c.ts", ["src/a.ts"]],
      ["src/self.ts", ["src/self.ts"]],
    ]);
    expect(importCycles(circle)).toEqual([["src/a.ts", "src/b.ts", "src/c.ts"], ["src/self.ts"]]);
    const diamond = new Map([
      ["src/top.ts", ["src/left.ts", "src/right.ts"]],
      ["src/left.ts", ["src/bottom.ts"]],
      ["src/right.ts", ["src/bottom.ts"]],
      ["src/bottom.ts", []],
    ]);
    expect(importCycles(diamond)).toEqual([]);
  });
});
