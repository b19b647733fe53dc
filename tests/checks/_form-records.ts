// The answer check returns form content as an object that inherits nothing (made with
// `Object.create(null)`). `sameRecords` compares answers exactly as `same()` does: a record equals
// `np({...})` when it has the same own keys and values, and never equals a plain object, nor the
// reverse (`same()` marks every prototype-free object it compares).
import { same } from "../_support/exact.ts";

/**
 * Asserts that two values are deeply and strictly equal, the answer check's records compared as
 * the prototype-free objects they are.
 *
 * @param actual The value under test.
 * @param expected The expected value, its prototype-free objects made with `np(...)`.
 */
export function sameRecords(actual: unknown, expected: unknown): void {
  same(actual, expected);
}
