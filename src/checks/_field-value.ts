/**
 * Whether one value fits one compiled form field. Used for the schema's own defaults and for the
 * handler's answers. Reasons never echo the value: an answer may hold what the user typed, and
 * a refusal is sent to the server.
 *
 * @module
 */
import type { FieldShape, MultiSelectField, NumberField, StringField } from "./_form-shape.ts";
import { fitsFormat } from "./_string-formats.ts";
import { describeKind } from "../_internal/quote.ts";
import { isOption } from "./_enum-options.ts";

const FORMAT_NAMES = {
  email: "an email address",
  uri: "an absolute URI with a scheme",
  date: "a calendar date (YYYY-MM-DD)",
  "date-time": "an RFC 3339 date-time with a time zone offset",
} as const;

/**
 * Checks a value against a field.
 *
 * @param field The compiled field.
 * @param value The value.
 * @returns Why it does not fit (`expected an integer, received a number with a fraction`), or
 *   `undefined` when it fits.
 */
export function valueProblem(field: FieldShape, value: unknown): string | undefined {
  switch (field.kind) {
    case "string":
      return stringProblem(field, value);
    case "number":
      return numberProblem(field, value);
    case "boolean":
      return typeof value === "boolean" ? undefined : `expected a boolean, received ${describeKind(value)}`;
    case "enum":
      if (typeof value !== "string") return `expected a string, received ${describeKind(value)}`;
      return isOption(field.values, value)
        ? undefined
        : `expected one of the ${field.values.length} allowed values`;
    case "multi":
      return multiProblem(field, value);
  }
}

/**
 * Counts the Unicode code points of a string.
 *
 * @param text The string.
 * @returns The number of code points, or -1 when the string holds a lone surrogate.
 */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1;
    count--;
    i++;
  }
  return count;
}

function stringProblem(field: StringField, value: unknown): string | undefined {
  if (typeof value !== "string") return `expected a string, received ${describeKind(value)}`;
  // isWellFormed() is native (constant time for Latin-1 text); code points are counted only
  // when a length bound needs them.
  if (!value.isWellFormed()) return "expected well-formed Unicode text, received a lone surrogate";
  if (field.minLength !== undefined || field.maxLength !== undefined) {
    const length = codePointLength(value);
    if (field.minLength !== undefined && length < field.minLength) {
      return `expected at least ${field.minLength} characters`;
    }
    if (field.maxLength !== undefined && length > field.maxLength) {
      return `expected at most ${field.maxLength} characters`;
    }
  }
  if (field.format !== undefined && !fitsFormat(field.format, value)) {
    return `expected ${FORMAT_NAMES[field.format]}`;
  }
  return undefined;
}

function numberProblem(field: NumberField, value: unknown): string | undefined {
  if (typeof value !== "number") {
    return `expected ${field.integer ? "an integer" : "a number"}, received ${describeKind(value)}`;
  }
  if (!Number.isFinite(value)) return "expected a finite number";
  if (field.integer && !Number.isInteger(value)) {
    return "expected an integer, received a number with a fraction";
  }
  if (field.minimum !== undefined && value < field.minimum) return `expected at least ${field.minimum}`;
  if (field.maximum !== undefined && value > field.maximum) return `expected at most ${field.maximum}`;
  return undefined;
}

function multiProblem(field: MultiSelectField, value: unknown): string | undefined {
  if (!Array.isArray(value)) return `expected an array of strings, received ${describeKind(value)}`;
  const items: readonly unknown[] = value;
  const seen = items.length > 16 ? new Set<string>() : undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== "string") {
      return `expected an array of strings, received ${describeKind(item)} at index ${i}`;
    }
    if (!isOption(field.values, item)) {
      return `expected only allowed values, received another value at index ${i}`;
    }
    if (seen === undefined ? items.indexOf(item) < i : seen.has(item)) {
      return `expected unique values, received a repeated value at index ${i}`;
    }
    seen?.add(item);
  }
  if (field.minItems !== undefined && items.length < field.minItems) {
    return `expected at least ${field.minItems} selected values, received ${items.length}`;
  }
  if (field.maxItems !== undefined && items.length > field.maxItems) {
    return `expected at most ${field.maxItems} selected values, received ${items.length}`;
  }
  return undefined;
}
