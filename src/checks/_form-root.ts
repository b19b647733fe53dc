/**
 * The root of a form schema: `type: "object"`, `properties`, `required`, `$schema` (any string,
 * never fetched), and the harmless `title`, `description` and `additionalProperties: false`
 * that schema generators add.
 *
 * @module
 */
import { describeValue, quote } from "../_internal/quote.ts";

const ROOT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "$schema",
  "title",
  "description",
  "additionalProperties",
]);

/**
 * Checks the root keywords of a form schema, all but `properties` and `required`.
 *
 * @param schema The schema object.
 * @returns Why it is refused, or `undefined`.
 */
export function rootProblem(schema: Record<string, unknown>): string | undefined {
  if (schema["type"] !== "object") {
    return `keyword "type": expected "object", received ${describeValue(schema["type"])}`;
  }
  for (const key of Object.keys(schema)) {
    if (!ROOT_KEYWORDS.has(key)) return `keyword ${quote(key)}: not supported at the root of a form`;
  }
  for (const key of ["$schema", "title", "description"]) {
    const text = schema[key];
    if (text !== undefined && typeof text !== "string") {
      return `keyword ${quote(key)}: expected a string, received ${describeValue(text)}`;
    }
  }
  const extra = schema["additionalProperties"];
  if (extra !== undefined && extra !== false) {
    return `keyword "additionalProperties": expected false, received ${describeValue(extra)}`;
  }
  return undefined;
}

/**
 * Reads `required`: unique names of existing properties.
 *
 * @param value The keyword's value.
 * @param properties The schema's `properties`.
 * @returns The names, or why they are refused.
 */
export function readRequired(
  value: unknown,
  properties: Record<string, unknown>,
): ReadonlySet<string> | string {
  const names = new Set<string>();
  if (value === undefined) return names;
  if (!Array.isArray(value)) {
    return `keyword "required": expected an array of property names, received ${describeValue(value)}`;
  }
  for (let i = 0; i < value.length; i++) {
    const name: unknown = value[i];
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) {
      const received = describeValue(name);
      return `keyword "required": expected names listed in "properties", received ${received} at index ${i}`;
    }
    if (names.has(name)) return `keyword "required": expected unique names, received ${quote(name)} twice`;
    names.add(name);
  }
  return names;
}
