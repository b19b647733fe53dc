/**
 * The `logRateLimit` rule, for the client and the gateway alike: one token bucket per server (or
 * per legacy connection), made with the server's rate at its first log entry. An entry with no
 * token left is not passed on. O(1) per entry, without a store's keying: it runs on the read path.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import { type Rate, TokenBucket } from "../limits/token-bucket.ts";

/**
 * The most buckets kept; past it the least recently used is dropped (it starts full if seen
 * again), so a flood of new connections drops idle buckets, not a busy one.
 */
export const MAX_LOG_BUCKETS = 10_000;

/** Log budgets by server, or by server and connection or caller. */
export class LogBudgets {
  readonly #clock: Clock;
  readonly #rateOf: (serverId: string) => Rate | undefined;
  readonly #buckets = new Map<string, TokenBucket>();

  /**
   * Creates empty budgets.
   *
   * @param clock The clock buckets refill by.
   * @param rateOf The `logRateLimit` of a server, read when a bucket of it is made; `undefined`
   *   (a server not known) refuses its entries.
   */
  constructor(clock: Clock, rateOf: (serverId: string) => Rate | undefined) {
    this.#clock = clock;
    this.#rateOf = rateOf;
  }

  /**
   * Takes one entry's token from the bucket of `serverId` (and `holder`, when given).
   *
   * @param serverId The operator's id of the server (letters, digits, `.`, `_`, `-`).
   * @param holder Whose budget it is when not the server's alone: the legacy era's connection
   *   number, or a gateway caller's `principalKey`.
   * @returns Whether the entry is within budget.
   * @throws {RangeError} When the server's rate is not a valid rule (its bucket cannot be made).
   */
  take(serverId: string, holder?: number | string): boolean {
    const key = holder === undefined ? serverId : `${serverId}#${holder}`;
    const now = this.#clock.now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      const rate = this.#rateOf(serverId);
      if (rate === undefined) return false;
      bucket = new TokenBucket(rate, now);
      if (this.#buckets.size >= MAX_LOG_BUCKETS) {
        this.#buckets.delete(this.#buckets.keys().next().value as string);
      }
    } else {
      // A Map keeps insertion order: moved to the end, its first key is the least recently used.
      this.#buckets.delete(key);
    }
    this.#buckets.set(key, bucket);
    return bucket.take(now).allowed;
  }
}
