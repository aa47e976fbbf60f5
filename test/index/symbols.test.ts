import { describe, expect, it } from "vitest";
import { braceBlockEnds } from "../../tools/index/blocks.js";
import { chunkLines } from "../../tools/index/chunks.js";
import { extractSymbols, type SymbolDefinition } from "../../tools/index/symbols.js";

const summary = (symbols: SymbolDefinition[]) =>
  symbols.map((symbol) => `${symbol.kind} ${symbol.parent ? `${symbol.parent}.` : ""}${symbol.name} ${symbol.line}-${symbol.endLine}`);

describe("symbol extraction", () => {
  it("TypeScript: functions, arrow functions, classes, methods, interfaces, types, enums, constants", () => {
    const source = [
      'import { x } from "./a.js";',
      "export interface Options { a: number }",
      "export type Name = string;",
      "export enum Color { Red }",
      "export const MAX = 3;",
      "export const handler = async (request: Request) => {",
      "  const inner = 1;",
      "  return inner;",
      "};",
      "export class Server extends Base {",
      "  constructor(port: number) {",
      "    super();",
      "  }",
      "  async listen(host: string): Promise<void> {",
      "    if (host) { return; }",
      "  }",
      "}",
      "export default function main() {}",
    ].join("\n");
    const { symbols, imports } = extractSymbols("src/server.ts", source);
    expect(summary(symbols)).toEqual([
      "interface Options 2-2",
      "type Name 3-3",
      "enum Color 4-4",
      "constant MAX 5-5",
      "function handler 6-9",
      "class Server 10-17",
      "method Server.constructor 11-13",
      "method Server.listen 14-16",
      "function main 18-18",
    ]);
    expect(imports).toEqual(["./a.js"]);
  });

  it("a default parameter's braces do not end the function early", () => {
    const { symbols } = extractSymbols("lock.ts", "export async function withLock(file: string, options: Options = {}): Promise<void> {\n  await run(file);\n}\n");
    expect(summary(symbols)).toEqual(["function withLock 1-3"]);
  });

  it("JavaScript: require and dynamic imports", () => {
    const { symbols, imports } = extractSymbols("lib/a.js", 'const fs = require("fs");\nfunction load() {\n  return import("./b.js");\n}\n');
    expect(summary(symbols)).toEqual(["constant fs 1-1", "function load 2-4"]);
    expect(imports).toEqual(["fs", "./b.js"]);
  });

  it("Python: classes, methods (nested helpers left out), functions, constants, relative imports", () => {
    const source = [
      "import os",
      "from .models import User",
      "MAX_RETRIES = 3",
      "class Store(Base):",
      "    LIMIT = 4",
      "    def get(self, key):",
      "        def inner():",
      "            pass",
      "        return 1",
      "",
      "    async def put(self, key, value):",
      "        pass",
      "def top(a,",
      "        b):",
      "    return a",
    ].join("\n");
    const { symbols, imports } = extractSymbols("store.py", source);
    expect(summary(symbols)).toEqual(["constant MAX_RETRIES 3-3", "class Store 4-12", "method Store.get 6-9", "method Store.put 11-12", "function top 13-15"]);
    expect(imports).toEqual(["os", ".models"]);
  });

  it("Go: functions, methods with receivers, structs, interfaces, grouped constants, import blocks", () => {
    const source = [
      "package main",
      "import (",
      '  "fmt"',
      '  log "github.com/x/log"',
      ")",
      "const (",
      "  A = 1",
      "  B",
      ")",
      "type Server struct {",
      "  port int",
      "}",
      "type Runner interface {",
      "  Run() error",
      "}",
      "func (s *Server) Start(ctx context.Context) error {",
      "  return nil",
      "}",
      "func main() {",
      '  fmt.Println("{")',
      "}",
    ].join("\n");
    const { symbols, imports } = extractSymbols("main.go", source);
    expect(summary(symbols)).toEqual(["constant A 7-7", "constant B 8-8", "struct Server 10-12", "interface Runner 13-15", "method Server.Start 16-18", "function main 19-21"]);
    expect(imports).toEqual(["fmt", "github.com/x/log"]);
  });

  it("Rust: structs, impl methods, traits, constants, macros, lifetimes and char literals", () => {
    const source = [
      "use std::collections::HashMap;",
      "pub struct Tokenizer<'a> {",
      "    input: &'a str,",
      "}",
      "impl<'a> Tokenizer<'a> {",
      "    pub fn new(input: &'a str) -> Self {",
      "        Self { input }",
      "    }",
      "    fn next_char(&mut self) -> Option<char> { let c = '{'; None }",
      "}",
      "pub trait Visitor { fn visit(&self); }",
      "const MAX: usize = 3;",
      "macro_rules! my_macro { () => {} }",
    ].join("\n");
    const { symbols, imports } = extractSymbols("src/lib.rs", source);
    expect(summary(symbols)).toEqual([
      "struct Tokenizer 2-4",
      "method Tokenizer.new 6-8",
      "method Tokenizer.next_char 9-9",
      "trait Visitor 11-11",
      "constant MAX 12-12",
      "macro my_macro 13-13",
    ]);
    expect(imports).toEqual(["std::collections::HashMap"]);
  });

  it("Java: classes, constructors, methods, static final constants, annotations", () => {
    const source = [
      "package x;",
      "import java.util.List;",
      "public class UserService {",
      "    private static final int MAX_USERS = 100;",
      "    public UserService(Repo repo) {",
      "        this.repo = repo;",
      "    }",
      "    public List<User> findAll() throws IOException {",
      "        return repo.all();",
      "    }",
      "    @Override",
      "    public String toString() {",
      '        return "x";',
      "    }",
      "}",
    ].join("\n");
    const { symbols, imports } = extractSymbols("UserService.java", source);
    expect(summary(symbols)).toEqual([
      "class UserService 3-15",
      "constant UserService.MAX_USERS 4-4",
      "method UserService.UserService 5-7",
      "method UserService.findAll 8-10",
      "method UserService.toString 12-14",
    ]);
    expect(imports).toEqual(["java.util.List"]);
  });

  it("C: functions (not prototypes), structs, typedefs, macros, includes", () => {
    const source = [
      "#include <stdio.h>",
      '#include "queue.h"',
      "#define MAX_SIZE 128",
      "typedef struct {",
      "  int x;",
      "} Point;",
      "struct node {",
      "  int v;",
      "};",
      "int queue_pop(struct queue *q);",
      "int queue_push(struct queue *q, int value)",
      "{",
      "  if (q->size == MAX_SIZE) { return -1; }",
      "  return 0;",
      "}",
    ].join("\n");
    const { symbols, imports } = extractSymbols("queue.c", source);
    expect(summary(symbols)).toEqual(["macro MAX_SIZE 3-3", "type Point 4-6", "struct node 7-9", "function queue_push 11-15"]);
    expect(imports).toEqual(["stdio.h", "queue.h"]);
  });

  it("C++: namespaces, classes with inline methods, out-of-class Class::method definitions", () => {
    const source = [
      "namespace shop {",
      "class Lexer : public Base {",
      "public:",
      "  Token next() {",
      "    return Token();",
      "  }",
      "  void skip();",
      "};",
      "void Parser::parse(const std::string& text) {",
      "}",
      "}",
    ].join("\n");
    const { symbols } = extractSymbols("lexer.cpp", source);
    expect(summary(symbols)).toEqual(["module shop 1-11", "class shop.Lexer 2-8", "method Lexer.next 4-6", "method Parser.parse 9-10"]);
  });
});

describe("symbol extraction edge cases (line filters, whole-text searches, block scanning)", () => {
  it("brace ends skip block comments, multi-line template strings and char literals, without a trailing newline", () => {
    const text = ["f() {", "  /* } {", "  */ const s = `}", "  {`;", "  c = '}';", "}", "g() { h({}) }"].join("\n");
    expect([...braceBlockEnds(text, text.split("\n").length)]).toEqual([5, -1, -1, -1, -1, -1, 6]);
  });

  it("brace ends: an unterminated string stops at its line; a line comment hides its braces", () => {
    const text = ['a("{', "b {", "} // }", "c { // {", "}"].join("\n");
    expect([...braceBlockEnds(text, text.split("\n").length)]).toEqual([-1, 2, -1, 4, -1]);
  });

  it("definitions on the first and the last line, with and without a trailing newline", () => {
    for (const ending of ["", "\n"]) {
      const { symbols } = extractSymbols("a.ts", `function first() {}\nfirst();\nexport const last = 1;${ending}`);
      expect(summary(symbols)).toEqual(["function first 1-1", "constant last 3-3"]);
    }
    expect(summary(extractSymbols("a.py", "x = 1\ndef last(): pass").symbols)).toEqual(["function last 2-2"]);
  });

  it("CRLF lines: methods found by their closing `{`, Go groups and import blocks", () => {
    const typescript = ["export class Box {\r", "  open(lid: Lid) {\r", "    lid.lift();\r", "  }\r", "}\r", ""].join("\n");
    expect(summary(extractSymbols("box.ts", typescript).symbols)).toEqual(["class Box 1-5", "method Box.open 2-4"]);
    const go = ["package main\r", "import ( \r", '  "fmt"\r', " )\r", "const ( \r", "  A = 1\r", ")\r"].join("\n");
    const { symbols, imports } = extractSymbols("main.go", go);
    expect(summary(symbols)).toEqual(["constant A 6-6"]);
    expect(imports).toEqual(["fmt"]);
  });

  it("a line ending in a non-ASCII blank still reaches the gate", () => {
    const source = ["class Box {", "  open(lid) {\u00a0", "    lid.lift();", "  }", "}"].join("\n");
    expect(summary(extractSymbols("box.js", source).symbols)).toEqual(["class Box 1-5", "method Box.open 2-4"]);
  });

  it("multi-line signatures: a TypeScript method opened by `(` at the line end, a Java method with a trailing comment", () => {
    const typescript = ["class Api {", "  fetch(", "    url: string,", "  ): void {", "  }", "}"].join("\n");
    expect(summary(extractSymbols("api.ts", typescript).symbols)).toEqual(["class Api 1-6", "method Api.fetch 2-5"]);
    const java = [
      "class Api {",
      "    String fetch(final String url) // fetches",
      "    {",
      "        return url;",
      "    }",
      "    int size = count(items); // not a method",
      "}",
    ].join("\n");
    expect(summary(extractSymbols("Api.java", java).symbols)).toEqual(["class Api 1-7", "method Api.fetch 2-5"]);
  });

  it("Python: tab indents count four, lines of blanks (spaces, tabs, CR) do not end a block", () => {
    const source = ["def f():", "\tx = 1", "    ", "\ty = 2", "z = 3", "def g():\r", "    pass\r", " \t\r", "    return\r", "h = 1"].join("\n");
    expect(summary(extractSymbols("tabs.py", source).symbols)).toEqual(["function f 1-4", "function g 6-9"]);
  });

  it("Java: generic methods are found; statements with a call and a trailing comment are not", () => {
    const source = [
      "public class Tally {",
      "    <T extends Comparable<T>> T max(T left, T right) {",
      "        total = count(left); // record max",
      "        return left;",
      "    }",
      "    Map<String, Integer> counts() // final answer",
      "    {",
      "        return null;",
      "    }",
      "}",
    ].join("\n");
    expect(summary(extractSymbols("Tally.java", source).symbols)).toEqual(["class Tally 1-10", "method Tally.max 2-5", "method Tally.counts 6-9"]);
  });

  it("imports: keywords inside strings and comments name nothing; re-exports, late requires and includes count", () => {
    const typescript = ['const note = "import x from y";', "// import z from 'z'", 'export { a } from "./a.js";', "function later() {", '  return require("./late.js");', "}"].join(
      "\n",
    );
    expect(extractSymbols("index.ts", typescript).imports).toEqual(["./a.js", "./late.js"]);
    expect(extractSymbols("m.py", 's = "import os"\ndef f():\n    from .util import helper\n').imports).toEqual([".util"]);
    expect(extractSymbols("lib.rs", "// use nothing\nfn f() {}\npub use crate::model::User;\nmod store;\n").imports).toEqual(["crate::model::User", "store"]);
    expect(extractSymbols("a.c", 'char *s = "#include <no.h>";\n  #  include "late.h"\n').imports).toEqual(["late.h"]);
  });

  it("C: a typedef struct named at its end, after other code", () => {
    const source = ["int x = 0;", "typedef union {", "  int a;", "  float b;", "} Value;", "int MAX_VALUE = 3;"].join("\n");
    expect(summary(extractSymbols("v.c", source).symbols)).toEqual(["type Value 2-5", "constant MAX_VALUE 6-6"]);
  });
});

describe("chunks", () => {
  it("follow definition boundaries, attach leading comments, and merge small neighbours", () => {
    const lines = [
      "import a from 'a';",
      "",
      "/** Adds. */",
      ...Array.from({ length: 3 }, (_, index) => `// note ${index}`),
      "export function add(x: number, y: number) {",
      ...Array.from({ length: 10 }, () => "  x += y;"),
      "  return x;",
      "}",
      "export function big() {",
      ...Array.from({ length: 130 }, (_, index) => `  step(${index});`),
      "}",
    ];
    const { symbols } = extractSymbols("a.ts", lines.join("\n"));
    const chunks = chunkLines(lines, symbols, { maxLines: 60, minLines: 8 });
    expect(chunks[0]).toEqual({ startLine: 1, endLine: 19, symbol: "add" });
    expect(chunks.slice(1).map((chunk) => [chunk.startLine, chunk.endLine, chunk.symbol])).toEqual([
      [20, 79, "big"],
      [80, 139, "big"],
      [140, 151, "big"],
    ]);
  });
});
