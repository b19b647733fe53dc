/**
 * Renders untrusted values inside check messages: strings are double-quoted, escaped and
 * shortened, so a message never carries a control, bidirectional or invisible character that
 * could forge a log line or hide part of itself.
 *
 * @module
 */

/** Characters escaped in a quoted string: invisible, formatting, control, quote, backslash. */
const ESCAPED = /[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}"\\]/gu;

/** The default number of UTF-16 code units kept before an ellipsis. */
export const QUOTE_LIMIT = 96;

/**
 * Double-quotes a string for a message, escaping what could not be seen or would break the
 * quoting (`\u202E`, `\"`; a plain space stays), cut to `limit` code units with a trailing `…`.
 *
 * @param text The untrusted string.
 * @param limit How many UTF-16 code units to keep.
 * @returns The quoted string.
 */
export function quote(text: string, limit: number = QUOTE_LIMIT): string {
  return `"${shortened(text, limit).replace(ESCAPED, escapeOne)}"`;
}

/**
 * A string cut to `limit` UTF-16 code units, never inside a surrogate pair, with a trailing `…`
 * when cut; else the string itself.
 *
 * @param text The string.
 * @param limit How many UTF-16 code units to keep.
 * @returns The string, or its start and `…`.
 */
export function shortened(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = isLowSurrogate(text.charCodeAt(limit)) && isHighSurrogate(text.charCodeAt(limit - 1))
    ? limit - 1
    : limit;
  return `${text.slice(0, end)}…`;
}

/**
 * Describes a received value: strings quoted (see {@linkcode quote}), finite numbers, booleans
 * and `null` as JSON, and everything else by its kind, never by its content.
 *
 * @param value The untrusted value.
 * @returns A short description such as `"ten"`, `1.5`, `an array` or `an object`.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "a non-finite number";
    case "boolean":
      return String(value);
    default:
      return describeKind(value);
  }
}

/**
 * Names a value's JSON kind without showing it, for messages that must not echo user data.
 *
 * @param value The value.
 * @returns `a string`, `a number`, `a boolean`, `null`, `an array`, `an object` or `nothing`.
 */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  const kind = typeof value;
  return kind === "object" ? "an object" : `a ${kind}`;
}

/**
 * Writes a code point as `U+XXXX`, for messages naming a character.
 *
 * @param codePoint The code point.
 * @returns `U+` and at least four upper-case hexadecimal digits.
 */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Names what a hostile input threw while being read (a getter, a revoked proxy), without its
 * message.
 *
 * @param error What was thrown.
 * @returns `TypeError`, `RangeError`, … or the `typeof` of a non-error.
 */
export function thrownName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function escapeOne(char: string): string {
  if (char === " ") return char;
  if (char === '"' || char === "\\") return `\\${char}`;
  const codePoint = char.codePointAt(0) ?? 0;
  const hex = codePoint.toString(16).toUpperCase();
  return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
