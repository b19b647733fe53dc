/**
 * The one check of a factory's whole-number option (a byte limit, a count, a duration), so a
 * configuration error is thrown when the factory is called.
 *
 * @module
 */

/** An option's default, and the least value it allows. */
export interface IntegerRule {
  /** The value when the option is unset. */
  readonly fallback: number;
  /** 1 for a positive integer, 0 for a non-negative one. */
  readonly least: 0 | 1;
}

/**
 * Resolves a whole-number option: its default when unset, else the value itself.
 *
 * @param where The option as the error names it: `createStdioConnection(): "graceMs"`.
 * @param value The option as given.
 * @param rule The default and the least value allowed.
 * @returns The value to use.
 * @throws {RangeError} When the value is not a safe integer at or above `rule.least`.
 * @example
 * ```ts
 * import { integerOption } from "./integer-option.ts";
 * console.log(integerOption('f(): "graceMs"', undefined, { fallback: 2000, least: 0 })); // 2000
 * ```
 */
export function integerOption(where: string, value: number | undefined, rule: IntegerRule): number {
  if (value === undefined) return rule.fallback;
  if (Number.isSafeInteger(value) && value >= rule.least) return value;
  const expected = rule.least === 0 ? "a non-negative integer" : "a positive integer";
  throw new RangeError(`${where} must be ${expected}, received "${String(value)}"`);
}
