/**
 * Compiles one property of a form schema into a `FieldShape`, accepting exactly the
 * spec's primitive subset and refusing every other keyword (fail closed).
 *
 * @module
 */
import {
  enumNamesProblem,
  isObject,
  type KeywordProblem,
  problem,
  readEnum,
  readTitledOptions,
} from "./_enum-options.ts";
import { compileMultiSelect, compileNumber, compileString, type Draft } from "./_field-compilers.ts";
import { type FieldKeywords, Keyword } from "./_field-keywords.ts";
import { valueProblem } from "./_field-value.ts";
import { describeValue } from "../_internal/quote.ts";

const KIND_NAMES = {
  string: "a string field",
  enum: 'a single-select field with "enum"',
  oneOf: 'a single-select field with "oneOf"',
  number: "a number field",
  boolean: "a boolean field",
  array: "a multi-select field",
} as const;
const TYPES = '"string", "number", "integer", "boolean" or "array"';

/** Which shape of the spec's primitive subset a property claims to be. */
type Variant = "string" | "enum" | "oneOf" | "number" | "boolean" | "array";
const COMMON = Keyword.type | Keyword.title | Keyword.description | Keyword.default;
/** The keywords of each variant, one bit each. */
const ALLOWED: Readonly<Record<Variant, number>> = {
  string: COMMON | Keyword.minLength | Keyword.maxLength | Keyword.format,
  enum: COMMON | Keyword.enum | Keyword.enumNames,
  oneOf: COMMON | Keyword.oneOf,
  number: COMMON | Keyword.minimum | Keyword.maximum,
  boolean: COMMON,
  array: COMMON | Keyword.items | Keyword.minItems | Keyword.maxItems,
};

/**
 * Reads a property schema's keywords.
 *
 * @param schema The property's schema, untrusted.
 * @param keywords Where to read them to.
 * @returns A problem when the schema is not an object, else `undefined`.
 */
export function readProperty(schema: unknown, keywords: FieldKeywords): KeywordProblem | undefined {
  if (!isObject(schema)) {
    return problem(undefined, `expected a schema object, received ${describeValue(schema)}`);
  }
  keywords.read(schema);
  return undefined;
}

/**
 * Compiles one property schema whose keywords {@linkcode readProperty} has read.
 *
 * @param name The property name.
 * @param required Whether `required` lists it.
 * @param schema The property's schema, an object.
 * @param keywords Its keywords; on success, `title` and `description` are strings or `undefined`.
 * @param maxEnumValues The most options an enum may have.
 * @returns The field, not yet frozen, or the first problem found.
 */
export function compileProperty(
  name: string,
  required: boolean,
  schema: Record<string, unknown>,
  keywords: FieldKeywords,
  maxEnumValues: number,
): Draft | KeywordProblem {
  const variant = variantOf(keywords);
  // An unsupported `type` string is reported as such; a missing one after any unknown keyword
  // (so `{ "$ref": … }` names `$ref`).
  const foreign = keywords.foreign || (variant !== undefined && (keywords.present & ~ALLOWED[variant]) !== 0);
  if ((variant !== undefined || typeof keywords.type !== "string") && foreign) {
    const outside = foreignKeyword(schema, variant);
    if (outside !== undefined) return outside;
  }
  if (variant === undefined) {
    return problem("type", `expected ${TYPES}, received ${describeValue(keywords.type)}`);
  }
  const title = keywords.title;
  if (title !== undefined && typeof title !== "string") {
    return problem("title", `expected a string, received ${describeValue(title)}`);
  }
  const description = keywords.description;
  if (description !== undefined && typeof description !== "string") {
    return problem("description", `expected a string, received ${describeValue(description)}`);
  }
  const field = compileVariant(variant, name, required, keywords, maxEnumValues);
  if (field.kind === "problem" || !keywords.hasDefault) return field;
  const fallback = keywords.default;
  const wrong = valueProblem(field, fallback);
  if (wrong !== undefined) return problem("default", wrong);
  field.default = Array.isArray(fallback) ? fallback.slice() : fallback as never;
  return field;
}

/** The first key, in the schema's order, outside the variant's keywords. */
function foreignKeyword(
  schema: Record<string, unknown>,
  variant: Variant | undefined,
): KeywordProblem | undefined {
  for (const key in schema) {
    if (isKeywordOf(key, variant)) continue;
    return problem(
      key,
      `not supported ${variant === undefined ? "in an elicitation form" : `for ${KIND_NAMES[variant]}`}`,
    );
  }
  return undefined;
}

/** Which variant the keywords claim, from `type` (and the presence of `enum` or `oneOf`). */
function variantOf(keywords: FieldKeywords): Variant | undefined {
  switch (keywords.type) {
    case "string":
      return (keywords.present & Keyword.enum) !== 0
        ? "enum"
        : (keywords.present & Keyword.oneOf) !== 0
        ? "oneOf"
        : "string";
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
  keywords: FieldKeywords,
  maxEnumValues: number,
): Draft | KeywordProblem {
  switch (variant) {
    case "string":
      return compileString(name, required, keywords);
    case "number":
      return compileNumber(name, required, keywords);
    case "boolean":
      return { name, required, kind: "boolean", default: undefined };
    case "enum": {
      const values = readEnum(keywords.enum, "enum", maxEnumValues);
      if (!Array.isArray(values)) return values as KeywordProblem;
      const names = keywords.enumNames;
      const wrong = names === undefined ? undefined : enumNamesProblem(names, values.length);
      return wrong ?? { name, required, kind: "enum", values, default: undefined };
    }
    case "oneOf": {
      const values = readTitledOptions(keywords.oneOf, "oneOf", maxEnumValues);
      if (!Array.isArray(values)) return values as KeywordProblem;
      return { name, required, kind: "enum", values, default: undefined };
    }
    case "array":
      return compileMultiSelect(name, required, keywords, maxEnumValues);
  }
}
