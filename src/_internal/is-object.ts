/**
 * The one test of "a JSON object": what every reader of untrusted JSON in sluice asks first.
 *
 * @module
 */

/**
 * Whether a value is an object that is neither `null` nor an array (a JSON object, once parsed).
 *
 * @param value Any value.
 * @returns `true` for an object.
 * @example
 * ```ts
 * import { isObject } from "./is-object.ts";
 * console.log(isObject({ a: 1 }), isObject([1]), isObject(null)); // true false false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
