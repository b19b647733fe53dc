/**
 * Where upstream sign-ins keep tokens, client registrations and sign-ins in progress: one small
 * string interface, so any key-value store fits. Provided: memory (the default, one process), Upstash
 * (`@sluice/mcp/upstash`, encrypted, shared by every instance), a file (`@sluice/mcp/legacy`, the
 * command line). Another store must make `claim` atomic across everything sharing it (Deno KV: an
 * `atomic()` absent-check then a set with `expireIn`), and values hold tokens: encrypt them at rest.
 *
 * @example
 * ```ts
 * import { createMemoryTokenStore } from "./token-store.ts";
 * const store = createMemoryTokenStore();
 * await store.set("k", "v", 60_000);
 * console.log(await store.get("k")); // v
 * console.log(await store.claim("once", 60_000), await store.claim("once", 60_000)); // true false
 * ```
 *
 * @module
 */
import { type Clock, systemClock } from "../_internal/clock.ts";
import { integerOption } from "../_internal/integer-option.ts";
import { finiteTtlMs } from "../_internal/ttl-ms.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";

/**
 * A key-value store for upstream sign-ins. Keys are printable ASCII without spaces, at most 512
 * characters; values are strings (JSON) of at most 64 KiB.
 */
export interface TokenStore {
  /**
   * The value of `key`, or `undefined` when absent or expired.
   *
   * @param key The key.
   * @returns The value.
   */
  get(key: string): Promise<string | undefined>;
  /**
   * Sets `key` to `value`, replacing what was there.
   *
   * @param key The key.
   * @param value The value.
   * @param ttlMs When given, the value expires after this many milliseconds.
   */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /**
   * Removes `key` (nothing when absent).
   *
   * @param key The key.
   */
  delete(key: string): Promise<void>;
  /**
   * Claims `key` for `ttlMs`, atomically for everything sharing the store: `true` the first time,
   * `false` while claimed. Claims live apart from values.
   *
   * @param key The key.
   * @param ttlMs How long the claim holds.
   * @returns Whether this call claimed it.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/** Options of {@linkcode createMemoryTokenStore}. */
export interface MemoryTokenStoreOptions {
  /** The clock values expire by. @default systemClock */
  readonly clock?: Clock;
  /**
   * The most expiring values, the most lasting values, and the most claims, each counted apart so
   * sign-ins anyone starts never push out grants; past it the oldest of its kind is dropped. A claim
   * that holds is never dropped (its key could be claimed twice): a new claim past the bound rejects.
   *
   * @default 10000
   */
  readonly maxKeys?: number;
}

interface Held {
  readonly value: string;
  readonly until: number;
}

/**
 * Creates a token store in memory, for one process or isolate; a gateway on several needs a shared
 * store, since a sign-in's callback may reach any of them.
 *
 * @param options The clock and the bound.
 * @returns The store.
 * @throws {RangeError} When `maxKeys` is not a positive integer.
 * @throws {TypeError} When an option is unknown.
 */
export function createMemoryTokenStore(options: MemoryTokenStoreOptions = {}): TokenStore {
  checkOptionKeys(options, ["clock", "maxKeys"], "createMemoryTokenStore()");
  const clock = options.clock ?? systemClock;
  const maxKeys = integerOption('createMemoryTokenStore(): "maxKeys"', options.maxKeys, {
    fallback: 10_000,
    least: 1,
  });
  const lasting = new Map<string, Held>();
  const expiring = new Map<string, Held>();
  const claims = new Map<string, number>();
  const live = (key: string): Held | undefined => {
    const held = lasting.get(key) ?? expiring.get(key);
    if (held !== undefined && clock.now() >= held.until) {
      expiring.delete(key);
      return undefined;
    }
    return held;
  };
  // A bad ttlMs rejects the returned promise, as the file store's does (a throw in an executor).
  return {
    get: (key) => Promise.resolve(live(key)?.value),
    set: (key, value, ttlMs) =>
      new Promise((resolve) => {
        const until = ttlMs === undefined
          ? Infinity
          : clock.now() + finiteTtlMs("createMemoryTokenStore().set()", ttlMs);
        lasting.delete(key);
        expiring.delete(key);
        const kept = until === Infinity ? lasting : expiring;
        if (kept.size >= maxKeys) kept.delete(kept.keys().next().value as string);
        kept.set(key, { value, until });
        resolve();
      }),
    delete: (key) => {
      lasting.delete(key);
      expiring.delete(key);
      return Promise.resolve();
    },
    claim: (key, ttlMs) =>
      new Promise((resolve) => {
        const now = clock.now();
        const until = now + finiteTtlMs("createMemoryTokenStore().claim()", ttlMs);
        const held = claims.get(key);
        if (held !== undefined && now < held) return resolve(false);
        claims.delete(key);
        if (claims.size >= maxKeys) {
          for (const [other, end] of claims) if (now >= end) claims.delete(other);
        }
        if (claims.size >= maxKeys) {
          throw new Error(
            `createMemoryTokenStore().claim(): a new claim was refused: all "${maxKeys}" claims ("maxKeys") still hold, expected one to expire first (a claim that holds is never dropped, or its key could be claimed twice)`,
          );
        }
        claims.set(key, until);
        resolve(true);
      }),
  };
}
