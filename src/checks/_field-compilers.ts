/**
 * Compilers for the form fields that carry bounds or options: strings (length, format), numbers
 * (minimum, maximum) and multi-selects (items, minItems, maxItems).
 *
 * @module
 */
import type { FieldShape, StringFormat } from "./_form-shape.ts";
import { isObject, type KeywordProblem, problem, readEnum, readTitledOptions } from "./_enum-options.ts";
import { describeValue } from "../_internal/quote.ts";

/** A field under construction: frozen once its default is checked. */
export type Draft = FieldShape extends infer F
  ? F extends unknown ? { -readonly [K in keyof F]: F[K] } : never
  : never;

const FORMATS: ReadonlySet<string> = new Set(["email", "uri", "date", "date-time"]);

/**
 * Compiles a free-text field.
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param schema Its schema, keywords already vetted.
 * @returns The draft field, or a problem.
 */
export function compileString(
  name: string,
  required: boolean,
  schema: Record<string, unknown>,
): Draft | KeywordProblem {
  const minLength = readCount(schema, "minLength");
  if (typeof minLength === "object") return minLength;
  const maxLength = readCount(schema, "maxLength");
  if (typeof maxLength === "object") return maxLength;
  const inverted = invertedProblem("minLength", minLength, "maxLength", maxLength);
  if (inverted !== undefined) return inverted;
  const format = schema["format"];
  if (format !== undefined && (typeof format !== "string" || !FORMATS.has(format))) {
    return problem(
      "format",
      `expected "email", "uri", "date" or "date-time", received ${describeValue(format)}`,
    );
  }
  const checked = format as StringFormat | undefined;
  return { name, required, kind: "string", minLength, maxLength, format: checked, default: undefined };
}

/**
 * Compiles a number or integer field.
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param schema Its schema, keywords already vetted.
 * @returns The draft field, or a problem.
 */
export function compileNumber(
  name: string,
  required: boolean,
  schema: Record<string, unknown>,
): Draft | KeywordProblem {
  const minimum = schema["minimum"];
  const maximum = schema["maximum"];
  const wrong = minimum !== undefined && !isFiniteNumber(minimum)
    ? "minimum"
    : maximum !== undefined && !isFiniteNumber(maximum)
    ? "maximum"
    : undefined;
  if (wrong !== undefined) {
    return problem(wrong, `expected a finite number, received ${describeValue(schema[wrong])}`);
  }
  const low = minimum as number | undefined;
  const high = maximum as number | undefined;
  const inverted = invertedProblem("minimum", low, "maximum", high);
  if (inverted !== undefined) return inverted;
  const integer = schema["type"] === "integer";
  return { name, required, kind: "number", integer, minimum: low, maximum: high, default: undefined };
}

/**
 * Compiles a multi-select field, untitled (`items.enum`) or titled (`items.anyOf`).
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param schema Its schema, keywords already vetted.
 * @param maxEnumValues The most options allowed.
 * @returns The draft field, or a problem.
 */
export function compileMultiSelect(
  name: string,
  required: boolean,
  schema: Record<string, unknown>,
  maxEnumValues: number,
): Draft | KeywordProblem {
  const items = schema["items"];
  if (!isObject(items)) {
    return problem(
      "items",
      `expected {"type": "string", "enum": [...]} or {"anyOf": [...]}, received ${describeValue(items)}`,
    );
  }
  const titled = Object.hasOwn(items, "anyOf");
  if (items["type"] !== "string" && (!titled || items["type"] !== undefined)) {
    return problem("items.type", `expected "string", received ${describeValue(items["type"])}`);
  }
  for (const key of Object.keys(items)) {
    if (key !== "type" && key !== (titled ? "anyOf" : "enum")) {
      return problem(`items.${key}`, `not supported in the items of ${"a multi-select field"}`);
    }
  }
  const values = titled
    ? readTitledOptions(items["anyOf"], "items.anyOf", maxEnumValues)
    : readEnum(items["enum"], "items.enum", maxEnumValues);
  if ("kind" in values) return values;
  const minItems = readCount(schema, "minItems");
  if (typeof minItems === "object") return minItems;
  const maxItems = readCount(schema, "maxItems");
  if (typeof maxItems === "object") return maxItems;
  return invertedProblem("minItems", minItems, "maxItems", maxItems) ??
    { name, required, kind: "multi", values, minItems, maxItems, default: undefined };
}

/** A non-negative integer keyword, absent, or a problem. */
function readCount(schema: Record<string, unknown>, key: string): number | undefined | KeywordProblem {
  const value = schema[key];
  if (value === undefined || (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
    return value;
  }
  return problem(key, `expected a non-negative integer, received ${describeValue(value)}`);
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value);
}

function invertedProblem(
  lowKey: string,
  low: number | undefined,
  highKey: string,
  high: number | undefined,
): KeywordProblem | undefined {
  if (low === undefined || high === undefined || low <= high) return undefined;
  return problem(lowKey, `expected at most "${highKey}" (${high}), received ${low}`);
}
