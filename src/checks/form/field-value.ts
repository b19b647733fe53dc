/**
 * Whether one value fits one compiled form field: the answer check asks it of what the handler
 * answered, the form check of the schema's own `default`. Reasons say what was expected and
 * never echo the value: an answer may hold what the user typed, and a refusal is sent to the
 * server.
 *
 * The string formats are the spec's, as valibot schemas built once: `email` (RFC 5321 / 6531
 * without quoted local parts or address literals), `uri` (an RFC 3986 absolute URI, ASCII only),
 * `date` (an RFC 3339 full-date that exists in the proleptic Gregorian calendar) and `date-time`
 * (RFC 3339 with a time zone offset, a leap second only at 23:59:60 UTC). valibot's own `email`
 * and `isoTimestamp` draw other lines (they refuse `o'brien@example.com` and accept
 * `2024-01-01 10:00:00Z`), so only `isoDate` is used as it is; the rest are regular expressions
 * with bounded backtracking.
 *
 * Fields are checked by plain comparisons, not a valibot schema per field: a form comes with each
 * request, and building a pipe costs far more.
 *
 * @module
 */
import * as v from "valibot";
import type { FieldShape, MultiSelectField, NumberField, StringField, StringFormat } from "./shape.ts";
import { describeKind } from "../../_internal/quote.ts";
import { isAbsoluteUri } from "../../_internal/uri.ts";

/**
 * Checks a value against a field.
 *
 * @param field The compiled field.
 * @param value The value, untrusted.
 * @returns Why it does not fit (`expected an integer, received a number with a fraction`), or
 *   `undefined` when it fits.
 * @example
 * ```ts
 * import { valueProblem } from "./field-value.ts";
 * const age = {
 *   name: "age",
 *   required: true,
 *   kind: "number",
 *   integer: true,
 *   minimum: 0,
 *   maximum: undefined,
 *   default: undefined,
 * } as const;
 * console.log(valueProblem(age, 1.5)); // "expected an integer, received a number with a fraction"
 * console.log(valueProblem(age, 36)); // undefined
 * ```
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
      return field.values.includes(value)
        ? undefined
        : `expected one of the ${field.values.length} allowed values`;
    case "multi":
      return selectionProblem(field, value);
  }
}

function stringProblem(field: StringField, value: unknown): string | undefined {
  if (typeof value !== "string") return `expected a string, received ${describeKind(value)}`;
  if (!value.isWellFormed()) return "expected well-formed Unicode text, received a lone surrogate";
  const { minLength, maxLength, format } = field;
  const length = minLength === undefined && maxLength === undefined ? 0 : codePoints(value);
  if (minLength !== undefined && length < minLength) return `expected at least ${minLength} characters`;
  if (maxLength !== undefined && length > maxLength) return `expected at most ${maxLength} characters`;
  if (format !== undefined && !v.is(FORMATS[format], value)) return `expected ${FORMAT_NAMES[format]}`;
  return undefined;
}

/**
 * What a person typed in a number field, as the answer check should see it: the number when the
 * trimmed text is a decimal number that a number holds as typed ({@linkcode isInexactNumber}),
 * else the text itself, for the check to refuse. The command line and the playground both use it.
 *
 * @param text The typed text.
 * @returns The number (`1e400` is `Infinity`, which the check refuses as not finite), or the text.
 * @example
 * ```ts
 * import { numberFromText } from "./field-value.ts";
 * console.log(numberFromText(" 36 ")); // 36
 * console.log(numberFromText("thirty")); // "thirty"
 * console.log(numberFromText("12345678901234567890")); // "12345678901234567890"
 * ```
 */
export function numberFromText(text: string): number | string {
  const trimmed = text.trim();
  if (!NUMBER_TEXT.test(trimmed) || isInexactNumber(trimmed)) return text;
  return Number(trimmed);
}

/** A decimal number, written so that no text makes it backtrack more than once per character. */
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** What the command line and the playground say of a typed number a number cannot hold ({@linkcode isInexactNumber}). */
export const INEXACT = "which a number cannot hold as written";

/**
 * Whether typed text is a decimal number that a number does not hold as typed: sent, it would
 * have other digits (`12345678901234567890`, `9007199254740993e0`, `0.30000000000000001`).
 *
 * @param text The typed text.
 * @returns `true` for a finite decimal number whose digits a number changes.
 * @example
 * ```ts
 * import { isInexactNumber } from "./field-value.ts";
 * console.log(isInexactNumber("12345678901234567890")); // true
 * console.log(isInexactNumber("0.1")); // false
 * ```
 */
export function isInexactNumber(text: string): boolean {
  const trimmed = text.trim();
  if (!NUMBER_TEXT.test(trimmed)) return false;
  const number = Number(trimmed);
  return Number.isFinite(number) && decimalOf(trimmed) !== decimalOf(String(number));
}

/**
 * The first number of JSON text (a tool's arguments as typed) that a number does not hold as
 * typed ({@linkcode isInexactNumber}), or at all (`1e400`): `JSON.parse` would read it as another.
 *
 * @param json JSON text.
 * @returns The number as written, or `undefined` when every number is held as typed.
 * @example
 * ```ts
 * import { inexactNumberIn } from "./field-value.ts";
 * console.log(inexactNumberIn('{"id": 12345678901234567890, "note": "1.0000000000000001"}')); // 12345678901234567890
 * console.log(inexactNumberIn('{"a": 1.5}')); // undefined
 * ```
 */
export function inexactNumberIn(json: string): string | undefined {
  for (const [token] of json.matchAll(JSON_TOKENS)) {
    // JSON.stringify sends one past ±1.8e308 as null.
    if (token[0] !== '"' && (isInexactNumber(token) || !Number.isFinite(Number(token)))) return token;
  }
  return undefined;
}

/** JSON's strings (skipped, so that digits inside them are not read) and numbers. */
const JSON_TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * A decimal number's value written one way (`0.05`, `5e-2` and `.050` alike): its significant
 * digits and the power of ten before them. Number's own strings (`1e+21`) read the same way.
 */
function decimalOf(text: string): string {
  const [, sign, whole = "", fraction = "", power = "0"] = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(
    text,
  )!;
  const all = whole + fraction;
  const leading = all.length - all.replace(/^0+/, "").length;
  const digits = all.slice(leading).replace(/0+$/, "");
  if (digits === "") return "0";
  return `${sign === "-" ? "-" : ""}${digits}e${whole.length - leading + Number(power)}`;
}

/** The number of code points of well-formed text: its length, less one per surrogate pair. */
function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xdc00 && code <= 0xdfff) pairs++;
  }
  return text.length - pairs;
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

/** Item by item, every rule on one item before the next, so the first bad index is named. */
function selectionProblem(field: MultiSelectField, value: unknown): string | undefined {
  if (!Array.isArray(value)) return `expected an array of strings, received ${describeKind(value)}`;
  const items: readonly unknown[] = value;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== "string") {
      return `expected an array of strings, received ${describeKind(item)} at index ${i}`;
    }
    if (!field.values.includes(item)) {
      return `expected only allowed values, received another value at index ${i}`;
    }
    // The items before this one are unique options, so looking back costs no more than `includes`.
    if (items.indexOf(item) < i) return `expected unique values, received a repeated value at index ${i}`;
  }
  const { minItems, maxItems } = field;
  if (minItems !== undefined && items.length < minItems) {
    return `expected at least ${minItems} selected values, received ${items.length}`;
  }
  if (maxItems !== undefined && items.length > maxItems) {
    return `expected at most ${maxItems} selected values, received ${items.length}`;
  }
  return undefined;
}

const FORMAT_NAMES: Readonly<Record<StringFormat, string>> = {
  email: "an email address",
  uri: "an absolute URI with a scheme",
  date: "a calendar date (YYYY-MM-DD)",
  "date-time": "an RFC 3339 date-time with a time zone offset",
};

/**
 * A dot-atom local part (RFC 5322 atext and any non-ASCII unit, RFC 6531), `@`, then two or
 * more domain labels of letters, digits and inner hyphens (non-ASCII letters allowed) of at most
 * 63 units, the last not all digits. Without the `u` flag, so ranges and lengths count UTF-16
 * units.
 */
const EMAIL =
  /^[\w!#$%&'*+/=?^`{|}~\x80-\uffff-]+(?:\.[\w!#$%&'*+/=?^`{|}~\x80-\uffff-]+)*@(?:[a-z\d\x80-\uffff](?:[a-z\d\x80-\uffff-]{0,61}[a-z\d\x80-\uffff])?\.)+(?!\d+$)[a-z\d\x80-\uffff](?:[a-z\d\x80-\uffff-]{0,61}[a-z\d\x80-\uffff])?$/i;
/** Whitespace, controls, format and bidi characters, lone surrogates: never in an address. */
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
/** `YYYY-MM-DD` (`T` or `t`) `hh:mm:ss`, an optional fraction, then `Z`, `z` or `±hh:mm`. */
const DATE_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt](?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

const FORMATS: Readonly<Record<StringFormat, v.GenericSchema<string>>> = {
  // At most 254 units, of which at most 64 before the `@`.
  email: v.pipe(
    v.string(),
    v.maxLength(254),
    v.check((text) => text.indexOf("@") <= 64 && EMAIL.test(text) && !INVISIBLE.test(text)),
  ),
  uri: v.pipe(v.string(), v.check(isAbsoluteUri)),
  date: v.pipe(v.string(), v.isoDate(), v.check(isCalendarDay)),
  "date-time": v.pipe(
    v.string(),
    v.regex(DATE_TIME),
    v.check((text) => isCalendarDay(text) && fitsLeapSecond(text)),
  ),
};

/** Whether the `YYYY-MM-DD` the text starts with (month 01–12, day 01–31) exists. */
function isCalendarDay(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2
    ? (leap ? 29 : 28)
    : month === 4 || month === 6 || month === 9 || month === 11
    ? 30
    : 31;
  return day <= days;
}

/** Whether a date-time's second is at most 59, or 60 at 23:59 UTC (its offset applied). */
function fitsLeapSecond(text: string): boolean {
  if (text.slice(17, 19) !== "60") return true;
  const sign = text.at(-6);
  const offset = sign === "+" || sign === "-"
    ? (sign === "+" ? 1 : -1) * (Number(text.slice(-5, -3)) * 60 + Number(text.slice(-2)))
    : 0;
  const utc = Number(text.slice(11, 13)) * 60 + Number(text.slice(14, 16)) - offset;
  return ((utc % 1440) + 1440) % 1440 === 23 * 60 + 59;
}
