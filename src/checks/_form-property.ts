/**
 * Compiles one property of a form schema into a {@linkcode FieldShape}, accepting exactly the
 * spec's primitive subset and refusing every other keyword (fail closed).
 *
 * @module
 */
import type { FieldShape } from "./_form-shape.ts";
import {
  enumNamesProblem,
  isObject,
  type KeywordProblem,
  problem,
  readEnum,
  readTitledOptions,
} from "./_enum-options.ts";
import { compileMultiSelect, compileNumber, compileString, type Draft } from "./_field-compilers.ts";
import { valueProblem } from "./_field-value.ts";
import { describeValue } from "../_internal/quote.ts";

type Variant = "string" | "enum" | "oneOf" | "number" | "boolean" | "array";
const KIND_NAMES = {
  string: "a string field",
  enum: 'a single-select field with "enum"',
  oneOf: 'a single-select field with "oneOf"',
  number: "a number field",
  boolean: "a boolean field",
  array: "a multi-select field",
} as const;
const TYPES = '"string", "number", "integer", "boolean" or "array"';

/**
 * Compiles one property schema.
 *
 * @param name The property name.
 * @param required Whether `required` lists it.
 * @param schema The property's schema, untrusted.
 * @param maxEnumValues The most options an enum may have.
 * @returns The frozen field, or the first problem found.
 */
export function compileProperty(
  name: string,
  required: boolean,
  schema: unknown,
  maxEnumValues: number,
): FieldShape | KeywordProblem {
  if (!isObject(schema)) {
    return problem(undefined, `expected a schema object, received ${describeValue(schema)}`);
  }
  const variant = variantOf(schema);
  const keywordProblem = unknownKeyword(schema, variant);
  if (keywordProblem !== undefined) return keywordProblem;
  if (variant === undefined) {
    return problem("type", `expected ${TYPES}, received ${describeValue(schema["type"])}`);
  }
  const title = schema["title"];
  if (title !== undefined && typeof title !== "string") {
    return problem("title", `expected a string, received ${describeValue(title)}`);
  }
  const description = schema["description"];
  if (description !== undefined && typeof description !== "string") {
    return problem("description", `expected a string, received ${describeValue(description)}`);
  }
  const field = compileVariant(variant, name, required, schema, maxEnumValues);
  if (field.kind === "problem") return field;
  if (Object.hasOwn(schema, "default")) {
    const fallback = schema["default"];
    const wrong = valueProblem(field, fallback);
    if (wrong !== undefined) return problem("default", wrong);
    field.default = Array.isArray(fallback) ? fallback.slice() : fallback as never;
  }
  return Object.freeze(field);
}

/** Which shape of the subset a property claims to be, from its `type` (and `enum`/`oneOf`). */
function variantOf(schema: Record<string, unknown>): Variant | undefined {
  switch (schema["type"]) {
    case "string":
      return Object.hasOwn(schema, "enum") ? "enum" : Object.hasOwn(schema, "oneOf") ? "oneOf" : "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return "array";
    default:
      return undefined;
  }
}

/**
 * The first keyword outside the variant's set. An unsupported `type` string is reported as such;
 * a missing one after any unknown keyword (so `{ "$ref": … }` names `$ref`).
 */
function unknownKeyword(
  schema: Record<string, unknown>,
  variant: Variant | undefined,
): KeywordProblem | undefined {
  if (variant === undefined && typeof schema["type"] === "string") return undefined;
  for (const key of Object.keys(schema)) {
    if (isKeywordOf(key, variant)) continue;
    return problem(
      key,
      `not supported ${variant === undefined ? "in an elicitation form" : `for ${KIND_NAMES[variant]}`}`,
    );
  }
  return undefined;
}

/** Whether `key` is a keyword of the variant (of any variant when `undefined`). */
function isKeywordOf(key: string, variant: Variant | undefined): boolean {
  switch (key) {
    case "type":
    case "title":
    case "description":
    case "default":
      return true;
    case "minLength":
    case "maxLength":
    case "format":
      return variant === undefined || variant === "string";
    case "enum":
    case "enumNames":
      return variant === undefined || variant === "enum";
    case "oneOf":
      return variant === undefined || variant === "oneOf";
    case "minimum":
    case "maximum":
      return variant === undefined || variant === "number";
    case "items":
    case "minItems":
    case "maxItems":
      return variant === undefined || variant === "array";
    default:
      return false;
  }
}

function compileVariant(
  variant: Variant,
  name: string,
  required: boolean,
  schema: Record<string, unknown>,
  maxEnumValues: number,
): Draft | KeywordProblem {
  switch (variant) {
    case "string":
      return compileString(name, required, schema);
    case "number":
      return compileNumber(name, required, schema);
    case "boolean":
      return { name, required, kind: "boolean", default: undefined };
    case "enum": {
      const values = readEnum(schema["enum"], "enum", maxEnumValues);
      if ("kind" in values) return values;
      const names = schema["enumNames"];
      const wrong = names === undefined ? undefined : enumNamesProblem(names, values.length);
      return wrong ?? { name, required, kind: "enum", values, default: undefined };
    }
    case "oneOf": {
      const values = readTitledOptions(schema["oneOf"], "oneOf", maxEnumValues);
      return "kind" in values ? values : { name, required, kind: "enum", values, default: undefined };
    }
    case "array":
      return compileMultiSelect(name, required, schema, maxEnumValues);
  }
}
