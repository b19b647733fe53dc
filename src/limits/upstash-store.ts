/**
 * A rate-limit store shared by every isolate and machine: `@upstash/ratelimit`'s token bucket
 * over an `@upstash/redis` client. Web standards only (it runs on Cloudflare Workers).
 *
 * @example
 * ```ts
 * import { Redis } from "@upstash/redis";
 * import { createUpstashStore } from "./upstash-store.ts";
 * const store = createUpstashStore({ redis: new Redis({ url: "https://x.upstash.io", token: "t" }) });
 * ```
 *
 * @module
 */
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { type Clock, systemClock } from "../_internal/clock.ts";
import { finiteTtlMs } from "../_internal/ttl-ms.ts";
import { type RateLimitStore, StoreUnavailableError } from "./rate-limit-store.ts";
import { checkUpstashOptions, clip, STORE, timeoutOption, within } from "./redis-within.ts";
import { assertRate, type Rate, type TakeResult } from "./token-bucket.ts";

/** The part of an `@upstash/redis` client (any entry) the store uses: `evalsha` and `eval`. */
export type UpstashRedis = Pick<Redis, "eval" | "evalsha">;

/** Options of {@linkcode createUpstashStore}. */
export interface UpstashStoreOptions {
  /** The Redis client, e.g. `new Redis({ url, token })` from `@upstash/redis/cloudflare`. */
  readonly redis: UpstashRedis;
  /** Prepended to every Redis key: `<prefix>:<rate>/<perMs>/<burst>:<key>`. @default "sluice:ratelimit" */
  readonly prefix?: string | undefined;
  /**
   * How long a take may wait for Redis before it rejects with {@linkcode StoreUnavailableError}, in
   * milliseconds. The request itself is not cancelled: give the client its own `signal`.
   * @default 1000
   */
  readonly timeoutMs?: number | undefined;
  /** Turns Upstash's reset time into `retryAfterMs`. @default systemClock */
  readonly clock?: Clock | undefined;
}

/** An Upstash store: always answers with a promise. */
export interface UpstashStore extends RateLimitStore {
  /**
   * Takes one token from the bucket of `key` under `rate`, in Redis.
   *
   * @param key Whose budget.
   * @param rate The rule.
   * @returns The answer.
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails, answers nonsense or is
   *   too slow (a token taken late is given back).
   * @throws {RangeError} (rejects) When the rule is not valid.
   */
  take(key: string, rate: Rate): Promise<TakeResult>;
  /**
   * Claims `<prefix>:claim:<key>` for `ttlMs` in Redis, across every instance: `true` the first
   * time, `false` while claimed. A claim that rejects is given back once its request settles.
   *
   * @param key The key.
   * @param ttlMs How long the claim holds.
   * @returns Whether this call claimed it.
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails or is too slow.
   * @throws {RangeError} (rejects) When `ttlMs` is not a finite number.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Gives back the claim of `key` in Redis (`DEL`), so any instance can claim it again.
   *
   * @param key The key.
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails or is too slow; the
   *   claim then holds until it expires.
   */
  release(key: string): Promise<void>;
}

/**
 * Sets the key to ARGV[2] for ARGV[1] ms when absent or holding ARGV[3] (this store's claim given
 * up on): 1 when set or already ARGV[2] (the client retried the request), else 0.
 */
const CLAIM_SCRIPT = `local held = redis.call("GET", KEYS[1])
if held == ARGV[2] then return 1 end
if held == false or (ARGV[3] ~= "" and held == ARGV[3]) then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[1]) return 1
end
return 0`;
/** Deletes the key when it holds ARGV[1]: a claim given back. */
const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`;

/** Deletes the key: a claim given back by the one who made it. */
const DELETE_SCRIPT = `return redis.call("DEL", KEYS[1])`;

/** The most claims given up on that a store remembers (a hung Redis settles none). */
const MAX_GIVEN_UP = 10_000;

/** The client type `Ratelimit`'s config declares. */
type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

const EXPECTED = "expected a token-bucket answer";
const OPTION_KEYS: readonly (keyof UpstashStoreOptions)[] = ["redis", "prefix", "timeoutMs", "clock"];

/**
 * Creates a store over Upstash Redis that fails closed. Unlike the memory store, its bucket refills
 * `rate` tokens at once at the end of each `perMs`; `retryAfterMs` is clamped to (0, perMs]. Fixed
 * ratelimit settings: `timeout: 0` (its default fails open after 5 s), no `ephemeralCache` (an
 * unbounded map), analytics, protection (downloads a deny list) or telemetry (adds headers).
 *
 * @param options The client, key prefix, timeout and clock.
 * @returns A store whose `take` returns a promise.
 * @throws {TypeError} When an option is unknown, or `redis` has no `eval` and `evalsha`.
 * @throws {RangeError} When `timeoutMs` is not a positive integer of at most 2^31 − 1.
 */
export function createUpstashStore(options: UpstashStoreOptions): UpstashStore {
  checkUpstashOptions("createUpstashStore()", options, OPTION_KEYS, ["eval", "evalsha"]);
  if (options.clock !== undefined && typeof options.clock?.now !== "function") {
    throw new TypeError('createUpstashStore(): "clock" must be { now() }');
  }
  const timeoutMs = timeoutOption("createUpstashStore()", options.timeoutMs);
  const prefix = options.prefix ?? "sluice:ratelimit";
  const clock = options.clock ?? systemClock;
  /** One `Ratelimit` per rule; rules come from policies, so this stays small. */
  const limiters = new Map<string, Ratelimit>();
  /** The value of each key's claim given up on (it rejected), until it is given back. */
  const givenUp = new Map<string, string>();

  const limiterFor = (rate: Rate): Ratelimit => {
    const rule = `${rate.rate}/${rate.perMs}/${rate.burst}`;
    let limiter = limiters.get(rule);
    if (limiter === undefined) {
      limiter = new Ratelimit({
        // With the settings below only evalsha and eval run (ratelimit's type also names get, set).
        redis: options.redis as unknown as RatelimitRedis,
        limiter: Ratelimit.tokenBucket(rate.rate, `${rate.perMs} ms`, rate.burst),
        prefix: `${prefix}:${rule}`,
        timeout: 0,
        ephemeralCache: false,
        analytics: false,
        enableProtection: false,
        enableTelemetry: false,
      });
      limiters.set(rule, limiter);
    }
    return limiter;
  };

  return {
    async take(key: string, rate: Rate): Promise<TakeResult> {
      assertRate(rate);
      const limiter = limiterFor(rate);
      const sent = limiter.limit(key);
      let answer: LimitAnswer;
      try {
        answer = await within(sent, timeoutMs, EXPECTED);
      } catch (error) {
        // Redis may still take the token: give it back, so a refused request is not charged; only
        // before the bucket's next refill, as ratelimit's script does not cap a give-back at burst.
        const giveBack = (late: LimitAnswer) =>
          late.success === true && late.reason === undefined && typeof late.reset === "number" &&
            clock.now() < late.reset
            ? limiter.limit(key, { rate: -1 })
            : undefined;
        void sent.then(giveBack).catch(() => {});
        throw error;
      }
      return toTakeResult(answer, rate, clock.now());
    },
    async claim(key: string, ttlMs: number): Promise<boolean> {
      const ttl = String(Math.max(1, Math.ceil(finiteTtlMs("UpstashStore.claim()", ttlMs))));
      const redisKey = `${prefix}:claim:${key}`;
      const value = crypto.randomUUID();
      const sent = options.redis.eval(CLAIM_SCRIPT, [redisKey], [ttl, value, givenUp.get(redisKey) ?? ""]);
      try {
        const claimed = await within(sent, timeoutMs, "expected an answer to SET NX") === 1;
        if (claimed) givenUp.delete(redisKey);
        return claimed;
      } catch (error) {
        // Rejected, yet the SET may have landed, or land later: a caller told that nothing was
        // spent would then find its same retry refused as a replay until the claim expired.
        givenUp.set(redisKey, value);
        if (givenUp.size > MAX_GIVEN_UP) givenUp.delete(givenUp.keys().next().value as string);
        const giveBack = () =>
          options.redis.eval(RELEASE_SCRIPT, [redisKey], [value]).finally(() => {
            if (givenUp.get(redisKey) === value) givenUp.delete(redisKey);
          });
        void sent.then(giveBack, giveBack).catch(() => {});
        throw error;
      }
    },
    async release(key: string): Promise<void> {
      const sent = options.redis.eval(DELETE_SCRIPT, [`${prefix}:claim:${key}`], []);
      await within(sent, timeoutMs, "expected an answer to DEL");
    },
  };
}

/** What `Ratelimit.limit` resolves to, as far as the store reads it. */
interface LimitAnswer {
  readonly success: unknown;
  readonly remaining: unknown;
  readonly reset: unknown;
  readonly reason?: unknown;
}

function toTakeResult(answer: LimitAnswer, rate: Rate, now: number): TakeResult {
  const { success, remaining, reset, reason } = answer;
  // A `reason` means ratelimit answered without Redis (timeout, cache, deny list): never trusted.
  if (
    reason !== undefined || typeof success !== "boolean" || typeof remaining !== "number" ||
    !Number.isFinite(remaining) || typeof reset !== "number" || !Number.isFinite(reset)
  ) {
    const shown = JSON.stringify({ success, remaining, reset, reason });
    throw new StoreUnavailableError(STORE, `unexpected answer "${clip(shown)}", ${EXPECTED}`);
  }
  if (success) {
    return {
      allowed: true,
      remaining: Math.min(rate.burst, Math.max(0, Math.floor(remaining))),
      retryAfterMs: 0,
    };
  }
  return {
    allowed: false,
    remaining: 0,
    retryAfterMs: Math.min(rate.perMs, Math.max(1, Math.ceil(reset - now))),
  };
}
