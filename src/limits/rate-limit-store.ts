/**
 * Where token buckets live, and the error a store raises when it cannot answer (the budget then
 * refuses: fail closed).
 *
 * @example
 * ```ts
 * import { type RateLimitStore, StoreUnavailableError } from "./rate-limit-store.ts";
 * const down: RateLimitStore = {
 *   take: () => Promise.reject(new StoreUnavailableError("example", "no answer within \"1000\" ms")),
 * };
 * try {
 *   await down.take("github", { rate: 10, perMs: 1000, burst: 20 });
 * } catch (error) {
 *   console.log((error as Error).message);
 * }
 * // Rate-limit store "example": no answer within "1000" ms
 * ```
 *
 * @module
 */
import type { Rate, TakeResult } from "./token-bucket.ts";

/**
 * Holds one token bucket per key and rule. A store answers synchronously when it can, so the hot
 * path allocates no promise.
 */
export interface RateLimitStore {
  /**
   * Takes one token from the bucket of `key` under `rate`, creating a full bucket if none exists.
   *
   * @param key Whose budget: for example the server id.
   * @param rate The rule.
   * @returns The answer, or a promise of it.
   * @throws {StoreUnavailableError} When a remote store cannot answer (thrown or rejected).
   * @throws {RangeError} When the rule is not valid.
   */
  take(key: string, rate: Rate): TakeResult | Promise<TakeResult>;
  /**
   * Claims `key` for `ttlMs`: `true` the first time, `false` while it is claimed. The front spends
   * each sealed state's nonce with it; without it a state may be redeemed again until it expires.
   *
   * @param key The nonce's key.
   * @param ttlMs How long the claim holds, in milliseconds (at least 1).
   * @returns Whether this call claimed it.
   * @throws {StoreUnavailableError} When a remote store cannot answer (thrown or rejected).
   */
  claim?(key: string, ttlMs: number): boolean | Promise<boolean>;
  /**
   * Gives back a claim of `key`, so it can be claimed again: the front releases a state whose resumed
   * call did not run upstream. Without it such a retry is refused as a replay.
   *
   * @param key The key given to {@linkcode RateLimitStore.claim}.
   * @throws {StoreUnavailableError} When a remote store cannot answer (thrown or rejected); the
   *   claim then holds until it expires.
   */
  release?(key: string): void | Promise<void>;
}

/** A rate-limit or token store could not answer: unreachable, failed, too slow or nonsense. */
export class StoreUnavailableError extends Error {
  /** The store's name, such as `"upstash"`. */
  readonly store: string;

  /**
   * Creates the error; the message is `Rate-limit store "<store>": <failure>`, or
   * `Token store "<store>": <failure>` for a token store.
   *
   * @param store The store's name.
   * @param failure What failed and what was expected.
   * @param options The underlying error as `cause`, when there is one, and `holds: "tokens"`
   * for a token store.
   */
  constructor(
    store: string,
    failure: string,
    options?: { readonly cause?: unknown; readonly holds?: "budgets" | "tokens" },
  ) {
    super(`${options?.holds === "tokens" ? "Token" : "Rate-limit"} store "${store}": ${failure}`, options);
    this.name = "StoreUnavailableError";
    this.store = store;
  }
}
