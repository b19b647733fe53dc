/**
 * A shallow copy of an object's own enumerable string keys into a plain object: what `{ ...o }`
 * gives, for the objects sluice copies on every request.
 *
 * Not spread: V8's spread falls to a slow path for dictionary-mode objects (every
 * `Object.create(null)` record sluice decodes into) and for sites that see many shapes; a loop
 * over the keys does not (bench/RESULTS.md).
 *
 * @module
 */

/**
 * Copies `source`'s own enumerable string-keyed properties into a new plain object, in order.
 * A key named `__proto__` stays an own property (as with spread), never the prototype.
 *
 * @param source The object to copy.
 * @returns The copy.
 * @example
 * ```ts
 * import { copyOwn } from "./copy.ts";
 * const record = Object.assign(Object.create(null), { a: 1 });
 * console.log(copyOwn(record)); // { a: 1 }
 * ```
 */
export function copyOwn(source: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = (source as Record<string, unknown>)[key];
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = value;
    }
  }
  return out;
}
