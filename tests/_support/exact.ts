// Exact comparison of values holding prototype-free objects, on every runtime. node:assert/strict
// compares prototypes, but workerd's port calls `propertyIsEnumerable` on the objects it compares,
// which a prototype-free object does not have; so both sides are first copied into plain objects,
// each prototype-free one marked with a symbol key (a prototype mismatch still fails).
import assert from "node:assert/strict";

const NULL_PROTOTYPE = Symbol.for("sluice.test.null-prototype");

/**
 * Builds a prototype-free object, as the checks return for untrusted keys.
 *
 * @param entries The entries.
 * @returns A copy with no prototype.
 */
export function np<T extends object>(entries: T): T {
  return Object.assign(Object.create(null) as T, entries);
}

/**
 * Asserts that two values are deeply and strictly equal, prototype-free objects included.
 *
 * @param actual The value under test.
 * @param expected The expected value.
 */
export function same(actual: unknown, expected: unknown): void {
  assert.deepEqual(comparable(actual), comparable(expected));
}

function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== "object" || value === null) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== null && prototype !== Object.prototype) return value;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: comparable((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (prototype === null) copy[NULL_PROTOTYPE] = true;
  return copy;
}
