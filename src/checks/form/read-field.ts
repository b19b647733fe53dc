/**
 * Compiles one property of a form schema into a frozen {@linkcode FieldShape}, accepting exactly
 * the spec's primitive subset and refusing every other keyword (fail closed): text, numbers,
 * booleans, single-selects (`enum`, legacy `enum` + `enumNames`, titled `oneOf`) and multi-selects
 * (`items.enum` or titled `items.anyOf`). A `default` must fit its field. Keywords are own keys
 * only; nothing inherited counts.
 *
 * @module
 */
import type { FieldShape, StringFormat } from "./shape.ts";
import { valueProblem } from "./field-value.ts";
import { describeValue } from "../../_internal/quote.ts";
import { isObject } from "../../_internal/is-object.ts";
import { REMOVABLE } from "../../_internal/removable.ts";

/** Why a property is refused: the offending keyword (none for the property itself), and why. */
export interface KeywordProblem {
  /** Discriminant. */
  readonly kind: "problem";
  /** The keyword (`minimum`, `items.enum`), or `undefined` for the property itself. */
  readonly keyword: string | undefined;
  /** What was expected and what was found. */
  readonly reason: string;
}

/** A field under construction: frozen once its default is checked. */
type Draft = FieldShape extends infer F ? F extends unknown ? { -readonly [K in keyof F]: F[K] } : never
  : never;

const KIND_NAMES = {
  string: "a string field",
  enum: 'a single-select field with "enum"',
  oneOf: 'a single-select field with "oneOf"',
  number: "a number field",
  boolean: "a boolean field",
  array: "a multi-select field",
} as const;

/** Which shape of the spec's primitive subset a property claims to be. */
type Variant = keyof typeof KIND_NAMES;

const COMMON = ["type", "title", "description", "default"];
/** The keywords of each variant. */
const KEYWORDS: Readonly<Record<Variant, ReadonlySet<string>>> = {
  string: new Set([...COMMON, "minLength", "maxLength", "format"]),
  enum: new Set([...COMMON, "enum", "enumNames"]),
  oneOf: new Set([...COMMON, "oneOf"]),
  number: new Set([...COMMON, "minimum", "maximum"]),
  boolean: new Set(COMMON),
  array: new Set([...COMMON, "items", "minItems", "maxItems"]),
};
const ANY_KEYWORD: ReadonlySet<string> = new Set(Object.values(KEYWORDS).flatMap((keys) => [...keys]));
const TYPES = '"string", "number", "integer", "boolean" or "array"';

/**
 * Compiles one property schema.
 *
 * @param name The property name.
 * @param required Whether the form's `required` lists it.
 * @param schema The property's schema, untrusted; never modified.
 * @param maxEnumValues The most options an enum may have.
 * @returns The frozen field, or the first problem found.
 * @example
 * ```ts
 * import { readField } from "./read-field.ts";
 * console.log(readField("age", true, { type: "integer", minimum: 0 }, 500));
 * // { name: "age", required: true, kind: "number", integer: true, minimum: 0, maximum: undefined, default: undefined }
 * console.log(readField("age", true, { type: "integer", pattern: "^1" }, 500));
 * // { kind: "problem", keyword: "pattern", reason: "not supported for a number field" }
 * ```
 */
export function readField(
  name: string,
  required: boolean,
  schema: unknown,
  maxEnumValues: number,
): FieldShape | KeywordProblem {
  if (!isObject(schema)) {
    return problem(undefined, `expected a schema object, received ${describeValue(schema)}`);
  }
  const type = keywordOf(schema, "type");
  const variant = variantOf(schema, type);
  // An unsupported `type` string is reported as such; a missing one after any unknown keyword
  // (so `{ "$ref": … }` names `$ref`).
  if (variant !== undefined || typeof type !== "string") {
    const allowed = variant === undefined ? ANY_KEYWORD : KEYWORDS[variant];
    const foreign = Object.keys(schema).find((key) => !allowed.has(key));
    if (foreign !== undefined) {
      const where = variant === undefined ? "in an elicitation form" : `for ${KIND_NAMES[variant]}`;
      return problem(foreign, `not supported ${where}`);
    }
  }
  if (variant === undefined) return problem("type", `expected ${TYPES}, received ${describeValue(type)}`);
  const wrongText = textProblem(schema, "title") ?? textProblem(schema, "description");
  if (wrongText !== undefined) return wrongText;
  const field = readVariant(variant, { name, required, schema, maxEnumValues });
  if (field.kind === "problem") return field;
  if (!Object.hasOwn(schema, "default")) return Object.freeze(field);
  const fallback = schema["default"];
  const wrong = valueProblem(field, fallback);
  if (wrong !== undefined) return problem("default", wrong);
  field.default = Array.isArray(fallback) ? fallback.slice() : fallback as never;
  return Object.freeze(field);
}

/**
 * A keyword's value: `undefined` when the schema has no such own key (nothing inherited counts).
 *
 * @param schema The schema object.
 * @param key The keyword.
 * @returns Its value.
 */
export function keywordOf(schema: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(schema, key) ? schema[key] : undefined;
}

function textProblem(schema: Record<string, unknown>, key: string): KeywordProblem | undefined {
  const text = keywordOf(schema, key);
  if (text === undefined || typeof text === "string") return undefined;
  return problem(key, `expected a string, received ${describeValue(text)}`);
}

function problem(keyword: string | undefined, reason: string): KeywordProblem {
  return { kind: "problem", keyword, reason };
}

/** Which variant a property claims, from `type` (and the presence of `enum` or `oneOf`). */
function variantOf(schema: Record<string, unknown>, type: unknown): Variant | undefined {
  switch (type) {
    case "string":
      return Object.hasOwn(schema, "enum") ? "enum" : Object.hasOwn(schema, "oneOf") ? "oneOf" : "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
    case "array":
      return type;
    default:
      return undefined;
  }
}

/** What every variant's reader gets. */
interface Property {
  readonly name: string;
  readonly required: boolean;
  readonly schema: Record<string, unknown>;
  readonly maxEnumValues: number;
}

function readVariant(variant: Variant, property: Property): Draft | KeywordProblem {
  const { name, required, schema, maxEnumValues } = property;
  switch (variant) {
    case "string":
      return readString(property);
    case "number":
      return readNumber(property);
    case "boolean":
      return { name, required, kind: "boolean", default: undefined };
    case "enum": {
      const values = readOptions(keywordOf(schema, "enum"), "enum", maxEnumValues, false);
      if (!Array.isArray(values)) return values;
      const names = keywordOf(schema, "enumNames");
      return (names === undefined ? undefined : enumNamesProblem(names, values.length)) ??
        { name, required, kind: "enum", values, default: undefined };
    }
    case "oneOf": {
      const values = readOptions(keywordOf(schema, "oneOf"), "oneOf", maxEnumValues, true);
      if (!Array.isArray(values)) return values;
      return { name, required, kind: "enum", values, default: undefined };
    }
    case "array":
      return readMultiSelect(property);
  }
}

function readString({ name, required, schema }: Property): Draft | KeywordProblem {
  const minLength = readCount(schema, "minLength");
  if (typeof minLength === "object") return minLength;
  const maxLength = readCount(schema, "maxLength");
  if (typeof maxLength === "object") return maxLength;
  const inverted = invertedProblem("minLength", minLength, "maxLength", maxLength);
  if (inverted !== undefined) return inverted;
  const format = keywordOf(schema, "format");
  if (format !== undefined && !isFormat(format)) {
    return problem(
      "format",
      `expected "email", "uri", "date" or "date-time", received ${describeValue(format)}`,
    );
  }
  return { name, required, kind: "string", minLength, maxLength, format, default: undefined };
}

function readNumber({ name, required, schema }: Property): Draft | KeywordProblem {
  const minimum = keywordOf(schema, "minimum");
  const maximum = keywordOf(schema, "maximum");
  for (const [key, bound] of [["minimum", minimum], ["maximum", maximum]] as const) {
    if (bound !== undefined && !(typeof bound === "number" && Number.isFinite(bound))) {
      return problem(key, `expected a finite number, received ${describeValue(bound)}`);
    }
  }
  const low = minimum as number | undefined;
  const high = maximum as number | undefined;
  const inverted = invertedProblem("minimum", low, "maximum", high);
  if (inverted !== undefined) return inverted;
  const integer = keywordOf(schema, "type") === "integer";
  // Bounds in order can still hold no integer (0.5 to 0.9): no answer could pass.
  if (integer && low !== undefined && high !== undefined && Math.ceil(low) > high) {
    return problem("minimum", `expected an integer between it and "maximum" (${high}), received ${low}`);
  }
  return { name, required, kind: "number", integer, minimum: low, maximum: high, default: undefined };
}

/** A multi-select: `items` is `{"type": "string", "enum": [...]}` or `{"anyOf": [...]}`. */
function readMultiSelect({ name, required, schema, maxEnumValues }: Property): Draft | KeywordProblem {
  const items = keywordOf(schema, "items");
  if (!isObject(items)) {
    return problem(
      "items",
      `expected {"type": "string", "enum": [...]} or {"anyOf": [...]}, received ${describeValue(items)}`,
    );
  }
  const titled = Object.hasOwn(items, "anyOf");
  const type = keywordOf(items, "type");
  if (type !== "string" && (!titled || type !== undefined)) {
    return problem("items.type", `expected "string", received ${describeValue(type)}`);
  }
  const list = titled ? "anyOf" : "enum";
  const foreign = Object.keys(items).find((key) => key !== "type" && key !== list);
  if (foreign !== undefined) {
    return problem(`items.${foreign}`, "not supported in the items of a multi-select field");
  }
  const values = readOptions(keywordOf(items, list), `items.${list}`, maxEnumValues, titled);
  if (!Array.isArray(values)) return values;
  const minItems = readCount(schema, "minItems");
  if (typeof minItems === "object") return minItems;
  const maxItems = readCount(schema, "maxItems");
  if (typeof maxItems === "object") return maxItems;
  const inverted = invertedProblem("minItems", minItems, "maxItems", maxItems);
  if (inverted !== undefined) return inverted;
  // An answer's items are unique options, so a required field that needs more leaves the person
  // only declining; an optional one can be left out, and is accepted.
  if (required && minItems !== undefined && minItems > values.length) {
    return problem(
      "minItems",
      `expected at most the number of "items.${list}" values (${values.length}) for a required field, ` +
        `received ${minItems}`,
    );
  }
  return { name, required, kind: "multi", values, minItems, maxItems, default: undefined };
}

/**
 * Reads an option list: one to `max` unique strings (`enum`), or as many objects with exactly a
 * string `const` and a string `title` (`oneOf`, `items.anyOf`), their `const`s unique and their
 * titles told apart ({@linkcode labelProblem}).
 */
function readOptions(
  value: unknown,
  keyword: string,
  max: number,
  titled: boolean,
): string[] | KeywordProblem {
  if (!Array.isArray(value)) {
    const what = titled ? 'objects with "const" and "title"' : "strings";
    return problem(keyword, `expected an array of ${what}, received ${describeValue(value)}`);
  }
  if (value.length === 0) return problem(keyword, "expected at least one value, received none");
  if (value.length > max) return problem(keyword, `expected at most ${max} values, received ${value.length}`);
  const values: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const option: unknown = value[i];
    if (!titled && typeof option !== "string") {
      return problem(keyword, `expected strings only, received ${describeValue(option)} at index ${i}`);
    }
    const constant = titled ? readTitledOption(option, keyword, i) : option as string;
    if (typeof constant !== "string") return constant;
    if (seen.has(constant)) {
      return problem(keyword, `expected unique values, received ${describeValue(constant)} twice`);
    }
    seen.add(constant);
    values.push(constant);
  }
  return (titled
    ? labelProblem(value.map((option) => option.title as string), keyword, true)
    : labelProblem(values, keyword, false)) ?? values;
}

/** A surrogate without its other half: a screen shows nothing of it either. */
const LONE_SURROGATE = /\p{Cs}/gu;

/** Printable ASCII words apart by single spaces, which every step below leaves as they are. */
const PLAIN = /^[!-~]+(?: [!-~]+)*$/;

/** How much of an option a person sees at least: the command line cuts a line at 300 characters. */
const SHOWN_LENGTH = 300;

/**
 * Whether a person can tell the options apart: each as shown (without what `sanitizeText` removes
 * and lone surrogates, in NFKC form, white space collapsed and trimmed, its first
 * {@linkcode SHOWN_LENGTH} characters) unlike the others, and titles showing something. Else two
 * choices that look the same could send different values (`"Keep my data\u200B"` meaning
 * `delete_all`). An empty untitled value is fine: it is sent as it shows.
 */
function labelProblem(
  labels: readonly string[],
  keyword: string,
  titles: boolean,
): KeywordProblem | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    const shown = (PLAIN.test(label) ? label : label.replace(REMOVABLE, "").replace(LONE_SURROGATE, "")
      .normalize("NFKC").replace(/\s+/g, " ").trim()).slice(0, SHOWN_LENGTH);
    if (shown === "" && titles) {
      return problem(
        keyword,
        `expected options a person can tell apart, received one that shows nothing at index ${i}`,
      );
    }
    const earlier = seen.get(shown);
    if (earlier !== undefined) {
      return problem(
        keyword,
        `expected options a person can tell apart, received two shown as ${
          describeValue(shown)
        }, at indexes ${earlier} and ${i}`,
      );
    }
    seen.set(shown, i);
  }
  return undefined;
}

/** The `const` of a titled option (an object of exactly a string `const` and a string `title`), or why not. */
function readTitledOption(option: unknown, keyword: string, index: number): string | KeywordProblem {
  const shape = `expected {"const": string, "title": string}`;
  if (!isObject(option)) {
    return problem(keyword, `${shape}, received ${describeValue(option)} at index ${index}`);
  }
  const foreign = Object.keys(option).find((key) => key !== "const" && key !== "title");
  if (foreign !== undefined) {
    return problem(keyword, `${shape}, received the keyword ${describeValue(foreign)} at index ${index}`);
  }
  const constant = keywordOf(option, "const");
  if (typeof constant === "string" && typeof keywordOf(option, "title") === "string") return constant;
  return problem(keyword, `${shape}, received another shape at index ${index}`);
}

/** The legacy `enumNames`: one string per `enum` value. */
function enumNamesProblem(value: unknown, count: number): KeywordProblem | undefined {
  if (!Array.isArray(value)) {
    return problem("enumNames", `expected an array of strings, received ${describeValue(value)}`);
  }
  if (value.length !== count) {
    return problem("enumNames", `expected ${count} names (one per "enum" value), received ${value.length}`);
  }
  const index = value.findIndex((name) => typeof name !== "string");
  if (index < 0) return labelProblem(value, "enumNames", true);
  return problem(
    "enumNames",
    `expected strings only, received ${describeValue(value[index])} at index ${index}`,
  );
}

/** A non-negative integer keyword, absent, or a problem. */
function readCount(schema: Record<string, unknown>, key: string): number | undefined | KeywordProblem {
  const value = keywordOf(schema, key);
  if (value === undefined || (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
    return value;
  }
  return problem(key, `expected a non-negative integer, received ${describeValue(value)}`);
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

function isFormat(value: unknown): value is StringFormat {
  return value === "email" || value === "uri" || value === "date" || value === "date-time";
}
