/**
 * The check of the `ttlMs` a store's `set` or `claim` is given, the same for the token stores
 * and the Upstash rate-limit store: a `NaN` or an infinity would keep a value that was meant to
 * expire.
 *
 * @module
 */

/**
 * The `ttlMs` given, when it is a finite number.
 *
 * @param where The method, for the error: `createFileTokenStore().set()`.
 * @param ttlMs The time to live, in milliseconds, as given.
 * @returns `ttlMs`.
 * @throws {RangeError} When `ttlMs` is not a finite number.
 */
export function finiteTtlMs(where: string, ttlMs: number): number {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs)) {
    throw new RangeError(
      `${where}: "ttlMs" must be a finite number of milliseconds, received "${String(ttlMs)}"`,
    );
  }
  return ttlMs;
}
