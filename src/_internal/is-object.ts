/**
 * The one test of "a JSON object": what every reader of untrusted JSON in sluice asks first, and
 * the one look at a key of such a value before it is decoded.
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

/**
 * An object's own data property, read without running a getter: `undefined` where there is none,
 * or where looking throws (a revoked proxy). For a look at untrusted input before its decoder.
 *
 * @param value Any value.
 * @param key The property's name.
 * @returns The property's value, or `undefined`.
 * @example
 * ```ts
 * import { ownData } from "./is-object.ts";
 * console.log(ownData({ mode: "url" }, "mode"), ownData({ get mode() { return "url"; } }, "mode")); // url undefined
 * ```
 */
export function ownData(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null
      ? Object.getOwnPropertyDescriptor(value, key)?.value
      : undefined;
  } catch {
    return undefined;
  }
}
