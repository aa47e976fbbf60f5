/**
 * JSON values a zod schema accepts, drawn from the schema's shape (objects with their keys,
 * arrays, strings, numbers within bounds, booleans, enums, literals, unions): what a json
 * parameter is given in `validOnly` mode, where random JSON would almost never fit its schema.
 */
import fc from "fast-check";
import type { ZodTypeAny } from "zod";

type Definition = Record<string, unknown> & { typeName?: string };

const DEEPEST = 6;

/** Values for `schema`; anything it cannot read (a refinement, a custom type) is random JSON the caller filters. */
export function jsonValuesFor(schema: ZodTypeAny, depth = 0): fc.Arbitrary<unknown> {
  const definition = schema._def as Definition;
  if (depth > DEEPEST) return fc.constant(null);
  const inner = (value: unknown) => jsonValuesFor(value as ZodTypeAny, depth + 1);
  switch (definition.typeName) {
    case "ZodObject": {
      const shape = (schema as unknown as { shape: Record<string, ZodTypeAny> }).shape;
      return fc.record(Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, inner(value)])), {
        requiredKeys: Object.keys(shape).filter((key) => !shape[key]!.isOptional()),
      });
    }
    case "ZodArray":
      return fc.array(inner(definition.type), { maxLength: 4 });
    case "ZodString":
      return fc.string({ maxLength: 12 });
    case "ZodNumber":
      return fc.integer({ min: -100, max: 100 });
    case "ZodBoolean":
      return fc.boolean();
    case "ZodNull":
      return fc.constant(null);
    case "ZodEnum":
      return fc.constantFrom(...(definition.values as string[]));
    case "ZodLiteral":
      return fc.constant(definition.value);
    case "ZodOptional":
    case "ZodNullable":
    case "ZodDefault":
      return inner(definition.innerType);
    case "ZodEffects":
      return inner(definition.schema);
    case "ZodPipeline":
      return inner(definition.out);
    case "ZodUnion":
      return fc.oneof(...(definition.options as ZodTypeAny[]).map(inner));
    case "ZodRecord":
      return fc.dictionary(fc.string({ maxLength: 6 }), inner(definition.valueType), { maxKeys: 3 });
    default:
      return fc.json({ maxDepth: 2 }).map((text) => JSON.parse(text) as unknown);
  }
}
