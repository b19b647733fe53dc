/**
 * Where upstream sign-ins keep what they must remember: tokens (per server, endpoint and principal),
 * client registrations (per server and authorization server), and sign-ins in progress (per
 * `state`, for a few minutes). One small interface of strings, so any key-value store fits:
 * the memory store here (the default: one process or isolate), the Upstash store of
 * `@sluice/mcp/upstash` (every isolate and instance; values encrypted with AES-GCM), the file
 * store of `@sluice/mcp/legacy` (the command line; owner-only permissions).
 *
 * Plugging another store (Deno KV, a Durable Object's storage, a database): implement the four
 * methods over it. `claim` must be atomic across everything that shares the store (Deno KV: an
 * `atomic()` check that the key is absent, then a set with `expireIn`; a Durable Object: its
 * single-threaded storage). Values hold tokens: encrypt them at rest unless the store does.
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
   * Claims `key` for `ttlMs`, atomically for everything sharing the store: `true` the first
   * time, `false` while claimed. Claims live apart from values (`claim("k")` never touches
   * `get("k")`).
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
   * The most values kept that expire (set with a `ttlMs`), and apart the most that do not, and
   * the most claims; past it the oldest value of its kind is dropped. Kept apart so that
   * short-lived values made on anyone's request (a sign-in started and never finished) never
   * push out the lasting ones (grants, client registrations). Expired claims make room for a new
   * one; while all still hold, a new claim rejects (failing its refresh or sign-in step) rather
   * than drop one, which would let its key be claimed twice.
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
 * Creates a token store in memory: one process or isolate, gone when it ends. Enough for one
 * self-hosted process; a gateway on several isolates or instances needs a shared store (a
 * sign-in started on one must be finished on whichever takes the callback).
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
  // Values without an expiry (grants, registrations) apart from those with one (flows).
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
        // A claim that holds is never dropped, or its key could be claimed twice.
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
