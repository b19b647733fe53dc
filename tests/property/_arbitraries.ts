// Arbitraries shared by the property tests: values that reach the cases naive code gets wrong.
// Strings mix controls, invisible and bidi characters, line separators, lone surrogates, emoji,
// combining marks, full-width look-alikes and URL syntax; object keys include `__proto__`,
// `constructor` and friends as own keys (as JSON.parse makes them); numbers include -0, NaN,
// ±Infinity, 2^53 + 2 and what JSON text such as `1e309` or `-0` parses to; nesting goes deep.
// In-memory values JSON cannot hold are in _js-only-values.ts; edits of well-formed values in
// _mutated.ts.
import fc from "fast-check";

/** Single units (some longer) that break naive string handling. */
export const TRICKY_UNITS: readonly string[] = [
  "\u0000",
  "\t",
  "\n",
  "\r",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u00ad",
  "\u034f",
  "\u061c",
  "\u180e",
  "\u200b",
  "\u200d",
  "\u2028",
  "\u2029",
  "\u202e",
  "\u2060",
  "\u2066",
  "\u3000",
  "\ufe0f",
  "\ufeff",
  "\ufff9",
  "\ufffd",
  "\u{e0020}",
  "\u{e0041}",
  "\ud800",
  "\udc00",
  "😀",
  "👍🏽",
  "e\u0301",
  "\u0301",
  "é",
  "ß",
  "İ",
  "你",
  "а",
  "ｐ",
  "Ａ",
  "１",
  "¹",
  "。",
  "．",
  "%",
  "%2e",
  "%00",
  "@",
  ":",
  "/",
  "\\",
  "?",
  "#",
  "[",
  "]",
  '"',
  "'",
  "<",
  ">",
  "&",
  "=",
  "*",
  ".",
  "-",
  "_",
  " ",
  "xn--",
  "__proto__",
];

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((point) => String.fromCodePoint(point));
const asciiUnit = fc.integer({ min: 0x20, max: 0x7e }).map((unit) => String.fromCharCode(unit));
const trickyUnit = fc.constantFrom(...TRICKY_UNITS);

/**
 * Strings of tricky units, printable ASCII, any UTF-16 code unit and any code point.
 *
 * @param maxLength The most units.
 * @returns The arbitrary.
 */
export function hostileString(maxLength = 24): fc.Arbitrary<string> {
  return fc.string({ unit: fc.oneof(trickyUnit, trickyUnit, asciiUnit, codeUnit, codePoint), maxLength });
}

/** Keys that name `Object.prototype` members, or look like indexes, or are empty. */
export const HOSTILE_KEYS: readonly string[] = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "then",
  "length",
  "0",
  "",
];

/** Object keys: the hostile names above, or hostile strings. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), hostileString(8));

/**
 * Builds an ordinary object from entries, each an own enumerable data property (`__proto__`
 * included), as `JSON.parse` builds one.
 *
 * @param entries Keys and values; a later duplicate key wins.
 * @returns The object.
 */
export function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Numbers at the edges: -0, NaN, ±Infinity, unsafe integers, the smallest and largest doubles. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 4096, 4097, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, -1e21),
  fc.integer(),
  fc.double(),
);

/** Number literals as JSON text may spell them (`1e309` parses to Infinity, `-0` to -0). */
export const RAW_NUMBERS: readonly string[] = [
  "0",
  "-0",
  "-0.0",
  "0e0",
  "1",
  "-1",
  "1.5",
  "0.1",
  "4096",
  "4097",
  "1e309",
  "-1e309",
  "1E400",
  "5e-324",
  "2e-400",
  "9007199254740993",
  "1e21",
  "123456789012345678901234567890",
];

const finiteNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.constantFrom(0, 1, 4096, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE),
);

/**
 * JSON values with hostile strings and keys and finite numbers (no -0): what `JSON.stringify`
 * writes and `JSON.parse` reads back unchanged.
 */
export const jsonSafeValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString(),
    finiteNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map(objectOf),
  ),
})).value;

const whitespace = fc.constantFrom("", "", " ", "\n", "\t", "\r\n  ");
const stringText = fc.oneof(
  hostileString().map((text) => JSON.stringify(text)),
  fc.constantFrom('"\\ud800"', '"a\\udc00"', '"\\u0000"', '"\\u202e"', '"\\u2028"', '"\\/"'),
);
const keyText = fc.oneof(
  hostileKey.map((key) => JSON.stringify(key)),
  fc.constantFrom('"\\u005f_proto__"', '"__proto\\u005f_"', '"\\u0000"'),
);

/**
 * JSON text with hostile strings and keys (`__proto__` spelled plainly or with escapes),
 * duplicate keys, lone surrogate escapes, number literals such as `1e309` and `-0`, and odd
 * whitespace.
 */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ text: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(...RAW_NUMBERS),
    fc.constantFrom("true", "false", "null"),
    stringText,
    fc.tuple(whitespace, fc.array(tie("text"), { maxLength: 4 })).map(([space, items]) =>
      `[${space}${items.join(`,${space}`)}]`
    ),
    fc.tuple(whitespace, fc.array(fc.tuple(keyText, tie("text")), { maxLength: 4 })).map(([space, pairs]) =>
      `{${space}${pairs.map(([key, value]) => `${key}${space}:${value}`).join(",")}}`
    ),
  ),
})).text;

/** A value nested 64 to 500 levels deep, in objects or arrays (past the wire depth limit). */
export const deepValue: fc.Arbitrary<unknown> = fc.tuple(
  fc.integer({ min: 64, max: 500 }),
  fc.boolean(),
).map(([depth, arrays]) => {
  let value: unknown = arrays ? [] : {};
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
});

/** What arrives on the wire: JSON text parsed, JSON values, edge numbers and deep nesting. */
export const wireValue: fc.Arbitrary<unknown> = fc.oneof(
  jsonText.map((text) => JSON.parse(text) as unknown),
  jsonSafeValue,
  hostileNumber,
  hostileString(),
  deepValue,
);
