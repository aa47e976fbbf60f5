/**
 * An XML element named after a protocol or a tool, with its arguments as attributes (`<read_file
 * path="a.ts"/>`, `<FILE_OP action="read" path="a.ts">…</FILE_OP>`): read as the element form is,
 * its attributes before its child elements; anything else about it stays what it was.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import { chunkedAndWhole, expectChunkingLaw, expectEveryChunking, SMALL_VOCABULARY } from "./support.js";

const commandsOf = (text: string) => parse(text, SMALL_VOCABULARY).commands.map((command) => print(command));

describe("XML elements with attributes", () => {
  it("read entities, `>` inside a quoted value, and attributes beside child elements", () => {
    expect(commandsOf('<execute_command command="echo &quot;hi&quot; &gt; out.txt &#x41;&#66;"/>')).toEqual(['[EXEC:action=run:command="echo \\"hi\\" > out.txt AB"]']);
    expect(commandsOf('<read_file path="a > b.ts" limit="5"/>')).toEqual(['[FILE_OP:action=read:path="a > b.ts":limit=5]']);
    expect(commandsOf('<FILE_OP action="write" path="n.md">\n<content>hello</content>\n</FILE_OP>')).toEqual(['[FILE_OP:action=write:path="n.md":content="hello"]']);
    expect(commandsOf('Reading it: <read_file path="a.ts"/> now.')).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
  });

  it("is an error whose message says how to write an attribute that cannot be read, and runs nothing", () => {
    const result = parse('<read_file path="a.ts" = />', SMALL_VOCABULARY);
    expect(result.commands).toEqual([]);
    expect(result.errors).toMatchObject([{ code: "unmapped_call" }]);
    expect(result.errors[0]!.message).toContain('key="value"');
  });

  it("leaves text as it was: elements naming nothing, a start tag broken by a line, `<`, or too long, one never closed, code", () => {
    for (const text of [
      '<div class="x">hello</div> <b/> <br />',
      '<read_file path="a.ts"\n/>',
      '<read_file path="a.ts" <b>',
      `<read_file ${"x".repeat(600)}/>`,
      '<read_file path="a.ts">',
    ]) {
      expect(parse(text, SMALL_VOCABULARY), text).toEqual({ commands: [], mentions: [], errors: [] });
    }
    expect(parse('`<read_file path="a.ts"/>`', SMALL_VOCABULARY)).toMatchObject({
      commands: [],
      mentions: [{ context: "inline-code", hint: '[FILE_OP:action=read:path="a.ts"]' }],
    });
  });

  it("reports the same in any chunking", () => {
    const pieces = ['<read_file path="a.ts"/>', "<FILE_OP action='read' path=a.ts></FILE_OP>", '<read_file path="x >', " ", "\n", "/>", '"', "<b>", "`", "prose "];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }), (chosen, sizes) => {
        const text = chosen.join("");
        const chunks: string[] = [];
        for (let at = 0, turn = 0; at < text.length; turn++) {
          chunks.push(text.slice(at, at + sizes[turn % sizes.length]!));
          at += sizes[turn % sizes.length]!;
        }
        const { chunked, whole } = chunkedAndWhole(SMALL_VOCABULARY, text, chunks);
        expect(chunked).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it("is text for 100,000 start tags that never end, and for attributes that never end; a command after them runs", () => {
    expect(parse('<read_file path="a.ts" '.repeat(100_000), SMALL_VOCABULARY).commands).toEqual([]);
    expect(parse(`<read_file path="${"x".repeat(1_000_000)}\n[FILE_OP:action=read:path="b"]`, SMALL_VOCABULARY).commands).toHaveLength(1);
  });
});

describe("a <tool_call> naming its tool in an attribute", () => {
  const READ = '[FILE_OP:action=read:path="src/a.ts"]';

  it("runs as the command, its arguments the JSON body or an `arguments` attribute, in every chunking", () => {
    for (const text of [
      '<tool_call name="read_file">{"path": "src/a.ts"}</tool_call>',
      `<tool_call name="read_file" arguments='{"path": "src/a.ts"}'/>`,
      '<TOOL_CALL Name="FILE_OP.read">\n{"path": "src/a.ts"}\n</TOOL_CALL>',
      '<function_call name="read_file" parameters=\'{"path": "src/a.ts"}\'></function_call>',
    ]) {
      const result = expectEveryChunking(text);
      expect(result.errors, text).toEqual([]);
      expect(
        result.commands.map((command) => [print(command), command.dialect]),
        text,
      ).toEqual([[READ, "hermes"]]);
    }
    expect(commandsOf('<tool_call name="execute_command" arguments=\'{"command": "ls"}\'></tool_call>')).toEqual(['[EXEC:action=run:command="ls"]']);
  });

  it("with other attributes only, is read from its body as before; naming no tool or with arguments that are no object, an error", () => {
    expect(commandsOf('<tool_call id="7">{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>')).toEqual([READ]);
    expect(expectEveryChunking('<tool_call name="get_weather">{"city": "Paris"}</tool_call>').errors).toMatchObject([{ code: "unmapped_call" }]);
    expect(expectEveryChunking('<tool_call name="read_file" arguments="[1]"/>').errors[0]!.message).toContain("must be a JSON object");
  });

  it("stays text in prose and in the other wrappers with a body of prose; in inline code it is a mention", () => {
    for (const text of ["Use the <tool_call format> here.", '<tools name="x">a list of tools</tools>', '<tool_call name="read_file"\n>{"path": "a"}</tool_call>']) {
      expect(expectEveryChunking(text), text).toEqual({ commands: [], mentions: [], errors: [] });
    }
    expect(expectEveryChunking('`<tool_call name="read_file">{"path": "src/a.ts"}</tool_call>`').mentions.map((mention) => mention.hint)).toEqual([READ]);
  });

  it("runs with an `arguments` attribute whose JSON object is not quoted, when it reads; else it is an error whose hint names the tool's command", () => {
    for (const text of [
      '<tool_call name="read_file" arguments={"path": "src/a.ts"}/>',
      '<tool_call arguments={"path": "src/a.ts"} name="read_file"></tool_call>',
      "<tool_call name=\"read_file\" PARAMETERS={'path': 'src/a.ts'}/>",
    ]) {
      const result = expectEveryChunking(text);
      expect(result.errors, text).toEqual([]);
      expect(
        result.commands.map((command) => print(command)),
        text,
      ).toEqual([READ]);
    }
    // A `>`, `}` or `)` inside a string of the object is its data.
    expect(commandsOf('<tool_call name="execute_command" arguments={"command": "echo \'}>)\' > out.txt"}/>')).toEqual([`[EXEC:action=run:command="echo '}>)' > out.txt"]`]);
    for (const broken of ['<tool_call name="read_file" arguments={"path": "src/a.ts"/>', '<tool_call name="read_file" arguments={path: src/a.ts}/>']) {
      const result = expectEveryChunking(broken);
      expect(result.commands, broken).toEqual([]);
      expect(result.errors, broken).toMatchObject([{ code: "unmapped_call", hint: "[FILE_OP:action=read]" }]);
    }
    expect(expectEveryChunking('<tool_call name="get_weather" arguments={"city": "Paris"}/>').errors).toMatchObject([
      { code: "unmapped_call", message: expect.stringContaining("get_weather") },
    ]);
    expect(expectEveryChunking('`<tool_call name="read_file" arguments={"path": "src/a.ts"}/>`').mentions.map((mention) => mention.hint)).toEqual([READ]);
  });

  it("reports the same in any chunking of its pieces", () => {
    expectChunkingLaw(
      ['<tool_call name="read_file">', '{"path": "a"}', "</tool_call>", "<tool_call ", "arguments='{}'", "arguments=", "/>", ">", " ", "\n", "`", "prose ", '"'],
      16,
    );
  });

  it("is text for 100,000 start tags that never end, and one whose body never closes is read once; a command after them runs", () => {
    const after = '\n\n[FILE_OP:action=read:path="b"]';
    expect(parse(`${'<tool_call name="read_file" '.repeat(100_000)}${after}`, SMALL_VOCABULARY).commands).toHaveLength(1);
    expect(parse(`${'<tool_call name="read_file">'.repeat(100_000)}${after}`, SMALL_VOCABULARY).commands).toHaveLength(1);
  });
});
