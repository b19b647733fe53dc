/**
 * A token bucket that counts in whole numbers, so it is exact under a fake clock.
 *
 * A new bucket starts full. The level is kept in units where one token is `perMs` and each
 * millisecond adds `rate`, so no float ever accumulates error.
 *
 * @example
 * ```ts
 * import { TokenBucket } from "./token-bucket.ts";
 * const bucket = new TokenBucket({ rate: 10, perMs: 1000, burst: 2 }, 0);
 * console.log(bucket.take(0)); // { allowed: true, remaining: 1, retryAfterMs: 0 }
 * console.log(bucket.take(0)); // { allowed: true, remaining: 0, retryAfterMs: 0 }
 * console.log(bucket.take(0)); // { allowed: false, remaining: 0, retryAfterMs: 100 }
 * ```
 *
 * @module
 */

/** A token-bucket rule: `rate` tokens refill every `perMs` milliseconds, up to `burst` tokens. */
export interface Rate {
  /** Tokens added every `perMs` milliseconds: a positive safe integer. */
  readonly rate: number;
  /** The refill period in milliseconds: a positive safe integer. */
  readonly perMs: number;
  /** The bucket's capacity, and what a new bucket holds: a positive safe integer. */
  readonly burst: number;
}

/** The answer to one take. */
export interface TakeResult {
  /** Whether a token was taken. */
  readonly allowed: boolean;
  /** Whole tokens left after this take (0 when refused). */
  readonly remaining: number;
  /** 0 when allowed; otherwise the milliseconds until one token is available, in (0, perMs]. */
  readonly retryAfterMs: number;
}

const RULE_FIELDS = ["rate", "perMs", "burst"] as const;

/**
 * Checks a rule: every field a positive safe integer, and `burst × perMs` (the capacity) safe too.
 *
 * @param rate The rule to check.
 * @throws {RangeError} When a field is not a positive safe integer, or the capacity is too large.
 */
export function assertRate(rate: Rate): void {
  for (const field of RULE_FIELDS) {
    const value: unknown = rate[field];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(
        `Rate limit "${field}" must be a positive safe integer, received "${String(value)}"`,
      );
    }
  }
  if (!Number.isSafeInteger(rate.burst * rate.perMs)) {
    throw new RangeError(
      `Rate limit "burst" × "perMs" must be at most "${Number.MAX_SAFE_INTEGER}", received "${
        rate.burst * rate.perMs
      }"`,
    );
  }
}

/**
 * One bucket. Time is counted in whole milliseconds (a fractional `now` is floored); a clock that
 * goes backwards refills nothing until it passes the last time seen.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #perMs: number;
  readonly #capacity: number;
  /** Tokens × perMs. */
  #level: number;
  /** The last whole millisecond the level was brought up to. */
  #at: number;

  /**
   * Creates a full bucket.
   *
   * @param rate The rule; checked with {@linkcode assertRate}.
   * @param now The current time in milliseconds.
   * @throws {RangeError} When the rule is not valid.
   */
  constructor(rate: Rate, now: number) {
    assertRate(rate);
    this.#rate = rate.rate;
    this.#perMs = rate.perMs;
    this.#capacity = rate.burst * rate.perMs;
    this.#level = this.#capacity;
    this.#at = Math.floor(now);
  }

  /**
   * Takes one token if there is one.
   *
   * @param now The current time in milliseconds.
   * @returns Whether it was taken, the whole tokens left, and when to retry if refused.
   */
  take(now: number): TakeResult {
    this.#refill(Math.floor(now));
    if (this.#level >= this.#perMs) {
      this.#level -= this.#perMs;
      return { allowed: true, remaining: Math.floor(this.#level / this.#perMs), retryAfterMs: 0 };
    }
    // Safe integers, so the float division is correctly rounded and the ceiling exact.
    return {
      allowed: false,
      remaining: 0,
      retryAfterMs: Math.ceil((this.#perMs - this.#level) / this.#rate),
    };
  }

  #refill(now: number): void {
    if (now <= this.#at) return;
    const elapsed = now - this.#at;
    const missing = this.#capacity - this.#level;
    // Compare before multiplying: `elapsed × rate` below `missing` stays a safe integer.
    this.#level = elapsed >= Math.ceil(missing / this.#rate)
      ? this.#capacity
      : this.#level + elapsed * this.#rate;
    this.#at = now;
  }
}
