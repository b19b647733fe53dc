/**
 * The log budgets of one client's servers: one token bucket per server (per connection in the
 * legacy era), created with the server's rate (its policy's `logRateLimit`) on first use. O(1)
 * per entry and without a memory store's generic keying, because this runs on the connection's
 * read path.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import { type Rate, TokenBucket } from "../limits/token-bucket.ts";

/** The most buckets kept; past it the oldest is dropped (it starts full if seen again). */
const MAX_BUCKETS = 10_000;

/** Log budgets by server, or by server and connection. */
export class LogBudgets {
  readonly #clock: Clock;
  readonly #rateOf: (serverId: string) => Rate;
  readonly #buckets = new Map<string, TokenBucket>();

  /**
   * Creates empty budgets.
   *
   * @param clock The clock buckets refill by.
   * @param rateOf The rate of a server, read when its bucket is made.
   */
  constructor(clock: Clock, rateOf: (serverId: string) => Rate) {
    this.#clock = clock;
    this.#rateOf = rateOf;
  }

  /**
   * Takes one entry's token from the bucket of `serverId` (and `connection`, when given).
   *
   * @param serverId The operator's id of the server (letters, digits, `.`, `_`, `-`).
   * @param connection The legacy era's connection number, whose budget is its own.
   * @returns Whether the entry is within budget.
   * @throws {RangeError} When the server's rate is not a valid rule (its bucket cannot be made).
   */
  take(serverId: string, connection: number | undefined): boolean {
    const key = connection === undefined ? serverId : `${serverId}#${connection}`;
    const now = this.#clock.now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.#rateOf(serverId), now);
      if (this.#buckets.size >= MAX_BUCKETS) {
        const oldest = this.#buckets.keys().next();
        if (oldest.done !== true) this.#buckets.delete(oldest.value);
      }
      this.#buckets.set(key, bucket);
    }
    return bucket.take(now).allowed;
  }
}
