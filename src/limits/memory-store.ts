/**
 * The embedded rate-limit store: token buckets in memory, per process or isolate, bounded.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "./memory-store.ts";
 * const store = createMemoryStore({ maxKeys: 1000 });
 * const rule = { rate: 10, perMs: 1000, burst: 20 };
 * console.log(store.take("github", rule).allowed); // true
 * ```
 *
 * @module
 */
import { type Clock, systemClock } from "../_internal/clock.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import type { RateLimitStore } from "./rate-limit-store.ts";
import { type Rate, type TakeResult, TokenBucket } from "./token-bucket.ts";

/** Options of {@linkcode createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock buckets refill by. @default systemClock */
  readonly clock?: Clock;
  /** The most buckets kept (one per key and rule); past it the least recently used goes. @default 10000 */
  readonly maxKeys?: number;
}

/** A memory store: answers synchronously. */
export interface MemoryStore extends RateLimitStore {
  /**
   * Takes one token from the bucket of `key` under `rate`.
   *
   * @param key Whose budget.
   * @param rate The rule.
   * @returns The answer, synchronously.
   * @throws {RangeError} When the rule is not valid.
   */
  take(key: string, rate: Rate): TakeResult;
  /**
   * Claims `key` for `ttlMs` in this process: `true` the first time, `false` while claimed. Past
   * `maxKeys` claims the expired, then the oldest, are dropped (rather than refusing every retry),
   * so size `maxKeys` above the claims made within one `stateTtl`.
   *
   * @param key The key.
   * @param ttlMs How long the claim holds.
   * @returns Whether this call claimed it.
   */
  claim(key: string, ttlMs: number): boolean;
  /**
   * Gives back the claim of `key`, so it can be claimed again (nothing happens when none holds).
   *
   * @param key The key.
   */
  release(key: string): void;
  /** How many buckets are held now (at most `maxKeys`). */
  readonly size: number;
}

/** The default of {@linkcode MemoryStoreOptions.maxKeys}. */
export const DEFAULT_MAX_KEYS: number = 10_000;

class BoundedMemoryStore implements MemoryStore {
  readonly #clock: Clock;
  readonly #maxKeys: number;
  /** Insertion order is recency order: the first entry is the least recently used. */
  readonly #buckets = new Map<string, TokenBucket>();
  /** Claimed keys and when each claim ends, oldest first. */
  readonly #claims = new Map<string, number>();
  /** The bucket of the last take, with its key and a copy of its rule (see `take`). */
  #last: { readonly key: string; readonly rule: Rate; readonly bucket: TokenBucket } | undefined;

  constructor(clock: Clock, maxKeys: number) {
    this.#clock = clock;
    this.#maxKeys = maxKeys;
  }

  get size(): number {
    return this.#buckets.size;
  }

  take(key: string, rate: Rate): TakeResult {
    const now = this.#clock.now();
    const last = this.#last;
    // A chain takes from one bucket request after request: that bucket is already the most recent.
    if (last !== undefined && last.key === key && sameRule(last.rule, rate)) return last.bucket.take(now);
    // The rule's fields contain no ":", so the first ":" ends the rule: no two pairs collide.
    const id = `${rate.rate}/${rate.perMs}/${rate.burst}:${key}`;
    let bucket = this.#buckets.get(id);
    if (bucket === undefined) {
      bucket = new TokenBucket(rate, now);
      // At the bound the map holds at least one bucket (maxKeys ≥ 1): drop the least recently used.
      if (this.#buckets.size >= this.#maxKeys) {
        this.#buckets.delete(this.#buckets.keys().next().value as string);
      }
    } else {
      this.#buckets.delete(id);
    }
    this.#buckets.set(id, bucket);
    this.#last = { key, rule: { rate: rate.rate, perMs: rate.perMs, burst: rate.burst }, bucket };
    return bucket.take(now);
  }

  claim(key: string, ttlMs: number): boolean {
    const now = this.#clock.now();
    const until = this.#claims.get(key);
    if (until !== undefined && until > now) return false;
    if (this.#claims.size >= this.#maxKeys) {
      for (const [held, expiry] of this.#claims) if (expiry <= now) this.#claims.delete(held);
      if (this.#claims.size >= this.#maxKeys) this.#claims.delete(this.#claims.keys().next().value as string);
    }
    this.#claims.delete(key);
    this.#claims.set(key, now + Math.max(1, ttlMs));
    return true;
  }

  release(key: string): void {
    this.#claims.delete(key);
  }
}

function sameRule(a: Rate, b: Rate): boolean {
  return a.rate === b.rate && a.perMs === b.perMs && a.burst === b.burst;
}

/**
 * Creates an in-memory store, per process or isolate (share one across isolates with the Upstash
 * store). It is bounded because keys may come from outside; a dropped key starts over with a full
 * bucket, so flooding `maxKeys` other keys resets a limit: size `maxKeys` well above the keys in use.
 *
 * @param options The clock and the bound.
 * @returns A store whose `take` answers synchronously.
 * @throws {RangeError} When `maxKeys` is not a positive safe integer.
 * @throws {TypeError} When an option is unknown.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  // maxKeys bounds replays (see SECURITY.md): a misspelt one is refused, never ignored.
  checkOptionKeys(options, ["clock", "maxKeys"], "createMemoryStore()");
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isSafeInteger(maxKeys) || maxKeys <= 0) {
    throw new RangeError(
      `createMemoryStore(): "maxKeys" must be a positive safe integer, received "${String(maxKeys)}"`,
    );
  }
  return new BoundedMemoryStore(options.clock ?? systemClock, maxKeys);
}
