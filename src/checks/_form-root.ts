/**
 * The root of a form schema: `type: "object"`, `properties`, `required`, `$schema` (any string,
 * never fetched), and the harmless `title`, `description` and `additionalProperties: false`
 * that schema generators add.
 *
 * @module
 */
import { describeValue, quote } from "../_internal/quote.ts";

/** The root keywords the form check goes on with, unchecked. */
export interface RootKeywords {
  /** The value of `properties`. */
  readonly properties: unknown;
  /** The value of `required`. */
  readonly required: unknown;
}

/**
 * Reads the root keywords of a form schema in one `for…in` pass (see `_field-keywords.ts` for
 * why), and checks all but `properties` and `required`.
 *
 * @param schema The schema object.
 * @returns `properties` and `required`, or why the root is refused.
 */
export function readRoot(schema: Record<string, unknown>): RootKeywords | string {
  let type: unknown = undefined;
  let properties: unknown = undefined;
  let required: unknown = undefined;
  let dialect: unknown = undefined;
  let title: unknown = undefined;
  let description: unknown = undefined;
  let extra: unknown = undefined;
  let foreign: string | undefined;
  for (const key in schema) {
    switch (key) {
      case "type":
        type = schema[key];
        break;
      case "properties":
        properties = schema[key];
        break;
      case "required":
        required = schema[key];
        break;
      case "$schema":
        dialect = schema[key];
        break;
      case "title":
        title = schema[key];
        break;
      case "description":
        description = schema[key];
        break;
      case "additionalProperties":
        extra = schema[key];
        break;
      default:
        if (foreign === undefined) foreign = key;
    }
  }
  if (type !== "object") return `keyword "type": expected "object", received ${describeValue(type)}`;
  if (foreign !== undefined) return `keyword ${quote(foreign)}: not supported at the root of a form`;
  const wrong = textProblem("$schema", dialect) ?? textProblem("title", title) ??
    textProblem("description", description);
  if (wrong !== undefined) return wrong;
  if (extra !== undefined && extra !== false) {
    return `keyword "additionalProperties": expected false, received ${describeValue(extra)}`;
  }
  return { properties, required };
}

function textProblem(key: string, text: unknown): string | undefined {
  if (text === undefined || typeof text === "string") return undefined;
  return `keyword ${quote(key)}: expected a string, received ${describeValue(text)}`;
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
