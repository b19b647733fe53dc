// The answer check returns form content as a record of src/checks/_form-record.ts: an object whose
// prototype is one frozen, empty, prototype-free object, so it inherits nothing yet stays in V8's
// fast mode. `sameRecords` compares such records exactly as the prototype-free objects that
// `np(...)` builds: a record equals `np({...})` when it has the same own keys and values (and
// records do inherit nothing: their prototype's invariants are asserted each time), and a record
// never equals a plain object, nor the reverse.
import assert from "node:assert/strict";
import { same } from "../_support/exact.ts";
import { RECORD_PROTOTYPE } from "../../src/checks/_form-record.ts";

/**
 * Asserts that two values are deeply and strictly equal, with every record of the answer check
 * in `actual` compared as a prototype-free object.
 *
 * @param actual The value under test.
 * @param expected The expected value, its prototype-free objects made with `np(...)`.
 */
export function sameRecords(actual: unknown, expected: unknown): void {
  same(asPrototypeFree(actual), expected);
}

/**
 * A copy of a value with every record of the answer check made a prototype-free object, for
 * comparing two answers of the check with `same()`.
 *
 * @param value The value.
 * @returns The copy (other values as they are).
 */
export function asPrototypeFree(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asPrototypeFree);
  if (typeof value !== "object" || value === null) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== RECORD_PROTOTYPE && prototype !== Object.prototype) return value;
  if (prototype === RECORD_PROTOTYPE) {
    assert.equal(Object.isFrozen(RECORD_PROTOTYPE), true);
    assert.deepEqual(Reflect.ownKeys(RECORD_PROTOTYPE), []);
    assert.equal(Object.getPrototypeOf(RECORD_PROTOTYPE), null);
  }
  const copy: Record<string, unknown> = prototype === RECORD_PROTOTYPE ? Object.create(null) : {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: asPrototypeFree((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
