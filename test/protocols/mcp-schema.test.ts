/**
 * How an MCP server's names and a tool's input schema become protocol names, action words,
 * parameters and a permission class (protocols/external), without a server.
 */
import { describe, expect, it } from "vitest";
import { permissionFromAnnotations } from "../../protocols/external/mcp.js";
import { isActionWord, protocolNameFor } from "../../protocols/external/naming.js";
import { parametersFromSchema } from "../../protocols/external/schema-parameters.js";

describe("names from outside", () => {
  it("a server key becomes an upper-case protocol name, other characters as _", () => {
    expect(protocolNameFor("fs")).toBe("FS");
    expect(protocolNameFor("my-db")).toBe("MY_DB");
    expect(protocolNameFor("github.com/x")).toBe("GITHUB_COM_X");
    expect(protocolNameFor("2fa")).toBe("MCP_2FA");
  });

  it("a tool name is an action when a model can write it bare", () => {
    for (const name of ["read_text_file", "get-sum", "v2.search", "x".repeat(64)]) expect(isActionWord(name)).toBe(true);
    for (const name of ["has space", "a:b", "é", "", "x".repeat(65), "__proto__", "-start"]) expect(isActionWord(name)).toBe(false);
  });

  it("the permission class comes from the annotations: read-only → read, open world → network, otherwise exec", () => {
    expect(permissionFromAnnotations({ readOnlyHint: true })).toBe("read");
    expect(permissionFromAnnotations({ readOnlyHint: true, openWorldHint: true })).toBe("network");
    expect(permissionFromAnnotations({ destructiveHint: false })).toBe("exec");
    expect(permissionFromAnnotations(undefined)).toBe("exec");
  });
});

describe("a tool's input schema as parameters", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string", description: "Where to look" },
      limit: { type: "number" },
      count: { type: "integer", description: "How many" },
      recursive: { type: "boolean" },
      options: { type: "object", description: "Extra options" },
      paths: { type: "array", items: { type: "string" } },
      mode: { enum: ["fast", "slow"], description: "Speed" },
      either: { type: ["string", "null"] },
      anything: {},
    },
    required: ["path", "count", "recursive", "paths"],
  };

  it("string → text, number/integer/boolean → word of that type, object/array/untyped → json, with required and descriptions", () => {
    const converted = parametersFromSchema(schema);
    if (!converted.ok) throw new Error(converted.reason);
    const { parameters } = converted;
    const shape = Object.fromEntries(
      Object.entries(parameters).map(([name, definition]) => [name, `${definition.kind}${definition.schema.safeParse(undefined).success ? "?" : ""}`]),
    );
    expect(shape).toEqual({
      path: "text",
      limit: "word?",
      count: "word",
      recursive: "word",
      options: "json?",
      paths: "json",
      mode: "text?",
      either: "text?",
      anything: "json?",
    });
    expect(parameters.path!.description).toBe("Where to look");
    expect(parameters.limit!.description).toBe("a number");
    expect(parameters.mode!.description).toBe('Speed (one of "fast", "slow")');
    // Words arrive as the schema's type.
    expect(parameters.limit!.schema.parse("2.5")).toBe(2.5);
    expect(parameters.count!.schema.parse("3")).toBe(3);
    expect(parameters.count!.schema.safeParse("3.5").success).toBe(false);
    expect(parameters.recursive!.schema.parse("true")).toBe(true);
    expect(parameters.limit!.schema.safeParse("ten").success).toBe(false);
    expect(parameters.paths!.schema.parse('["a", "b"]')).toEqual(["a", "b"]);
    expect(parameters.options!.schema.parse('{"depth": 2}')).toEqual({ depth: 2 });
  });

  it("refuses, saying why, a schema clio cannot take", () => {
    const reason = (value: unknown) => {
      const converted = parametersFromSchema(value);
      return converted.ok ? "taken" : converted.reason;
    };
    expect(reason(null)).toBe("its input schema is not an object");
    expect(reason({ type: "array" })).toBe('its input schema has type "array", not "object"');
    expect(reason({ type: "object", properties: [] })).toBe("its input schema's properties are not an object");
    expect(reason({ type: "object", required: "a" })).toBe("its input schema's required is not a list of names");
    expect(reason({ type: "object", properties: { action: { type: "string" } } })).toMatch(/its parameter "action" cannot be written as a key/);
    expect(reason({ type: "object", properties: {}, required: ["ghost"] })).toBe('it requires "ghost", which its schema does not describe');
    expect(reason({ type: "object", properties: Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`p${index}`, {}])) })).toBe("it has 65 parameters (at most 64)");
    expect(reason({ type: "object", properties: { p: { type: "string", description: "x".repeat(70_000) } } })).toMatch(
      /^its input schema is too large \(70,\d{3} characters; at most 65,536\)$/,
    );
  });
});
