/**
 * A tool's JSON Schema (an MCP tool's inputSchema) as protocol parameters: string → text,
 * number / integer / boolean → a word converted to that type, object / array (or anything
 * else) → json. Required properties are required parameters; descriptions come along.
 * The whole schema is checked again, with the SDK's validator, before each call.
 */
import { z } from "zod";
import { parameter, type ParameterDefinition } from "../contract/protocol.js";

/** Largest input schema taken, in characters of JSON. */
export const MAX_SCHEMA_CHARACTERS = 64 * 1024;
const MAX_PROPERTIES = 64;
/** Parameter keys the language allows (`KEY` in the grammar); `action` names the action itself. */
const PARAMETER_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

type SchemaResult = { ok: true; parameters: Record<string, ParameterDefinition> } | { ok: false; reason: string };

interface PropertySchema {
  type?: string | string[];
  description?: string;
  title?: string;
  enum?: unknown[];
  default?: unknown;
}

const numberPattern = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const toNumber = (value: unknown) => (typeof value === "string" && numberPattern.test(value) ? Number(value) : value);

function describe(property: PropertySchema, type: string): string {
  const text = (property.description ?? property.title ?? "").replace(/\s+/g, " ").trim();
  const choices = Array.isArray(property.enum) && property.enum.length <= 12 ? ` (one of ${property.enum.map((value) => JSON.stringify(value)).join(", ")})` : "";
  const line = `${text === "" ? `a ${type}` : text}${choices}`;
  return line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}

/** The single JSON type a property takes, ignoring "null". */
function typeOf(property: PropertySchema): string {
  const types = (Array.isArray(property.type) ? property.type : property.type === undefined ? [] : [property.type]).filter((type) => type !== "null");
  if (types.length === 1) return types[0]!;
  if (types.length === 0 && Array.isArray(property.enum) && property.enum.length > 0 && property.enum.every((value) => typeof value === "string")) return "string";
  return "json";
}

function definitionFor(property: PropertySchema, required: boolean): ParameterDefinition {
  const type = typeOf(property);
  const description = describe(property, type === "json" ? "JSON value" : type);
  let definition: ParameterDefinition;
  switch (type) {
    case "string":
      definition = parameter.text(description);
      break;
    case "number":
      definition = parameter.word(description, z.preprocess(toNumber, z.number({ invalid_type_error: "expected a number", required_error: "is required (a number)" }).finite()));
      break;
    case "integer":
      return required ? parameter.requiredInteger(description) : parameter.integer(description);
    case "boolean":
      return required ? parameter.requiredBoolean(description) : parameter.boolean(description);
    default:
      definition = parameter.json(description, z.unknown());
  }
  return required ? definition : { ...definition, schema: definition.schema.optional() };
}

/** Parameters for a tool's input schema, or why the schema cannot be taken. */
export function parametersFromSchema(schema: unknown): SchemaResult {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return { ok: false, reason: "its input schema is not an object" };
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARACTERS)
    return { ok: false, reason: `its input schema is too large (${size.toLocaleString("en-US")} characters; at most ${MAX_SCHEMA_CHARACTERS.toLocaleString("en-US")})` };
  const { type, properties = {}, required = [] } = schema as { type?: unknown; properties?: unknown; required?: unknown };
  if (type !== "object") return { ok: false, reason: `its input schema has type ${JSON.stringify(type)}, not "object"` };
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return { ok: false, reason: "its input schema's properties are not an object" };
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) return { ok: false, reason: "its input schema's required is not a list of names" };
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length > MAX_PROPERTIES) return { ok: false, reason: `it has ${entries.length} parameters (at most ${MAX_PROPERTIES})` };
  const parameters: Record<string, ParameterDefinition> = {};
  for (const [name, property] of entries) {
    if (!PARAMETER_KEY.test(name) || name === "action")
      return { ok: false, reason: `its parameter ${JSON.stringify(name)} cannot be written as a key (letters, digits, _ and -, not "action")` };
    if (typeof property !== "object" || property === null) return { ok: false, reason: `its parameter ${name} has no schema object` };
    parameters[name] = definitionFor(property as PropertySchema, required.includes(name));
  }
  for (const name of required) if (!(name in parameters)) return { ok: false, reason: `it requires ${JSON.stringify(name)}, which its schema does not describe` };
  return { ok: true, parameters };
}
