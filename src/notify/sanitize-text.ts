/**
 * `sanitizeText`: any value as a single line of visible text, bounded in length and in cost.
 *
 * @example
 * ```ts
 * import { sanitizeText } from "./sanitize-text.ts";
 * console.log(sanitizeText("ok\u202E\n{\"forged\": true}", 64)); // ok{"forged": true}
 * ```
 *
 * @module
 */
import { clampText } from "./_clamp-text.ts";
import { renderJson } from "./_render-json.ts";

/**
 * How many code units of its input {@linkcode sanitizeText} examines at most for a given `max`:
 * `8 × max + 1024` (one more when a surrogate pair straddles the bound).
 *
 * The work must not depend on the input's length, yet removed characters must not push visible
 * text out: text where up to 7 of every 8 code units are invisible still yields the full `max`,
 * and the 1024 extra let a short `max` see past a long invisible preamble.
 *
 * @param max The clamp, as given to {@linkcode sanitizeText}.
 * @returns The bound in UTF-16 code units (`Infinity` for an unlimited `max`).
 * @example
 * ```ts
 * import { sanitizePrefixBound } from "./sanitize-text.ts";
 * console.log(sanitizePrefixBound(4096)); // 33792
 * ```
 */
export function sanitizePrefixBound(max: number): number {
  return normalMax(max) * 8 + 1024;
}

/**
 * Renders any value as one line of visible text, at most `max` UTF-16 code units long. Never
 * throws.
 *
 * - A string is taken as it is; anything else is rendered as compact JSON (non-finite numbers as
 *   `null`, a bigint as its digits, `undefined`, functions and symbols as the empty string at the
 *   top; objects from their own enumerable keys, without calling `toJSON`, 16 levels deep at
 *   most).
 * - Every character of Unicode general categories Cc, Cf, Zl and Zp (controls, line breaks,
 *   zero-width and bidi characters, tag characters) is removed, and so is every lone surrogate.
 * - The result is clamped to `max` code units without splitting a surrogate pair or, where
 *   `Intl.Segmenter` exists, a grapheme.
 * - Only the first {@linkcode sanitizePrefixBound}`(max)` code units are examined, so the cost does
 *   not depend on the input's length.
 *
 * Sanitizing a result again returns it unchanged.
 *
 * @param value Any value; usually a string from a server.
 * @param max The most UTF-16 code units returned: a non-negative integer (a fraction is rounded
 *   down, a negative number or `NaN` gives `""`); `Infinity` clamps nothing and examines all.
 * @returns The sanitized text.
 * @example
 * ```ts
 * import { sanitizeText } from "./sanitize-text.ts";
 * console.log(sanitizeText("Hello\u200D world\r\nINFO: fake entry", 16)); // Hello worldINFO:
 * console.log(sanitizeText({ level: 3, tags: ["a\tb"] }, 100)); // {"level":3,"tags":["a\tb"]}
 * ```
 */
export function sanitizeText(value: unknown, max: number): string {
  const clamp = normalMax(max);
  const limit = sanitizePrefixBound(clamp);
  switch (typeof value) {
    case "string":
      return clampText(value, clamp, limit);
    case "undefined":
    case "function":
    case "symbol":
      return "";
    default:
      return clampText(renderJson(value, limit), clamp, limit);
  }
}

function normalMax(max: number): number {
  if (typeof max !== "number" || !(max > 0)) return 0;
  return max === Infinity ? max : Math.floor(max);
}
