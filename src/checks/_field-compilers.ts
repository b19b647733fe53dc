/**
 * Compilers for the form fields that carry bounds or options: strings (length, format), numbers
 * (minimum, maximum) and multi-selects (items, minItems, maxItems).
 *
 * @module
 */
import type { FieldShape, StringFormat } from "./_form-shape.ts";
import { isObject, type KeywordProblem, problem, readEnum, readTitledOptions } from "./_enum-options.ts";
import type { FieldKeywords } from "./_field-keywords.ts";
import { describeValue } from "../_internal/quote.ts";

/** A field under construction: frozen once its default is checked. */
export type Draft = FieldShape extends infer F
  ? F extends unknown ? { -readonly [K in keyof F]: F[K] } : never
  : never;

/**
 * Compiles a free-text field.
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param keywords Its keywords, already vetted.
 * @returns The draft field, or a problem.
 */
export function compileString(
  name: string,
  required: boolean,
  keywords: FieldKeywords,
): Draft | KeywordProblem {
  const minLength = readCount(keywords.minLength, "minLength");
  if (typeof minLength === "object") return minLength;
  const maxLength = readCount(keywords.maxLength, "maxLength");
  if (typeof maxLength === "object") return maxLength;
  const inverted = invertedProblem("minLength", minLength, "maxLength", maxLength);
  if (inverted !== undefined) return inverted;
  const format = keywords.format;
  if (format !== undefined && !isFormat(format)) {
    return problem(
      "format",
      `expected "email", "uri", "date" or "date-time", received ${describeValue(format)}`,
    );
  }
  return { name, required, kind: "string", minLength, maxLength, format, default: undefined };
}

/**
 * Compiles a number or integer field.
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param keywords Its keywords, already vetted.
 * @returns The draft field, or a problem.
 */
export function compileNumber(
  name: string,
  required: boolean,
  keywords: FieldKeywords,
): Draft | KeywordProblem {
  const minimum = keywords.minimum;
  const maximum = keywords.maximum;
  const wrong = minimum !== undefined && !isFiniteNumber(minimum)
    ? "minimum"
    : maximum !== undefined && !isFiniteNumber(maximum)
    ? "maximum"
    : undefined;
  if (wrong !== undefined) {
    return problem(wrong, `expected a finite number, received ${describeValue(keywords[wrong])}`);
  }
  const low = minimum as number | undefined;
  const high = maximum as number | undefined;
  const inverted = invertedProblem("minimum", low, "maximum", high);
  if (inverted !== undefined) return inverted;
  const integer = keywords.type === "integer";
  return { name, required, kind: "number", integer, minimum: low, maximum: high, default: undefined };
}

/**
 * Compiles a multi-select field, untitled (`items.enum`) or titled (`items.anyOf`).
 *
 * @param name The property name.
 * @param required Whether it is required.
 * @param keywords Its keywords, already vetted.
 * @param maxEnumValues The most options allowed.
 * @returns The draft field, or a problem.
 */
export function compileMultiSelect(
  name: string,
  required: boolean,
  keywords: FieldKeywords,
  maxEnumValues: number,
): Draft | KeywordProblem {
  const options = itemsOptions(keywords.items);
  if ("kind" in options) return options;
  const values = options.titled
    ? readTitledOptions(options.list, "items.anyOf", maxEnumValues)
    : readEnum(options.list, "items.enum", maxEnumValues);
  if (!Array.isArray(values)) return values as KeywordProblem;
  const minItems = readCount(keywords.minItems, "minItems");
  if (typeof minItems === "object") return minItems;
  const maxItems = readCount(keywords.maxItems, "maxItems");
  if (typeof maxItems === "object") return maxItems;
  return invertedProblem("minItems", minItems, "maxItems", maxItems) ??
    { name, required, kind: "multi", values, minItems, maxItems, default: undefined };
}

/** The option list of a multi-select's `items`, and whether it is titled. */
export interface ItemsOptions {
  /** `true` for `anyOf` (titled options), `false` for `enum`. */
  readonly titled: boolean;
  /** The keyword's value, not yet read. */
  readonly list: unknown;
}

/**
 * Checks a multi-select's `items`: `{"type": "string", "enum": [...]}` or
 * `{"anyOf": [...]}` (with an optional `"type": "string"`), and nothing else.
 *
 * @param items The keyword's value.
 * @returns Its option list, or a problem.
 */
export function itemsOptions(items: unknown): ItemsOptions | KeywordProblem {
  if (!isObject(items)) {
    return problem(
      "items",
      `expected {"type": "string", "enum": [...]} or {"anyOf": [...]}, received ${describeValue(items)}`,
    );
  }
  let type: unknown = undefined;
  let anyOf: unknown = undefined;
  let list: unknown = undefined;
  let titled = false;
  let hasEnum = false;
  let other = false;
  for (const key in items) {
    switch (key) {
      case "type":
        type = items[key];
        break;
      case "anyOf":
        anyOf = items[key];
        titled = true;
        break;
      case "enum":
        list = items[key];
        hasEnum = true;
        break;
      default:
        other = true;
    }
  }
  if (type !== "string" && (!titled || type !== undefined)) {
    return problem("items.type", `expected "string", received ${describeValue(type)}`);
  }
  if (other || (titled && hasEnum)) {
    for (const key in items) {
      if (key !== "type" && key !== (titled ? "anyOf" : "enum")) {
        return problem(`items.${key}`, `not supported in the items of ${"a multi-select field"}`);
      }
    }
  }
  return { titled, list: titled ? anyOf : list };
}

/** A non-negative integer keyword, absent, or a problem. */
function readCount(value: unknown, key: string): number | undefined | KeywordProblem {
  if (value === undefined || (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
    return value;
  }
  return problem(key, `expected a non-negative integer, received ${describeValue(value)}`);
}

function isFormat(value: unknown): value is StringFormat {
  return value === "email" || value === "uri" || value === "date" || value === "date-time";
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
