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

/**
 * The part of an `@upstash/redis` client the store uses: `evalsha`, and `eval` when Redis does
 * not know the script yet (`NOSCRIPT`). Any client of `@upstash/redis` (`/cloudflare`, `/fastly`,
 * the Node entry) fits.
 */
export type UpstashRedis = Pick<Redis, "eval" | "evalsha">;

/** Options of {@linkcode createUpstashStore}. */
export interface UpstashStoreOptions {
  /** The Redis client, e.g. `new Redis({ url, token })` from `@upstash/redis/cloudflare`. */
  readonly redis: UpstashRedis;
  /**
   * Prepended to every Redis key, then the rule, then the key: `<prefix>:<rate>/<perMs>/<burst>:<key>`.
   *
   * @default "sluice:ratelimit"
   */
  readonly prefix?: string | undefined;
  /**
   * How long a take may wait for Redis before it rejects with {@linkcode StoreUnavailableError}.
   * The request itself is not cancelled (the client takes no signal per request): give the
   * client one of its own, `new Redis({ url, token, signal: () => AbortSignal.timeout(5000) })`,
   * so that a Redis that never answers does not hold a connection per request.
   *
   * @default 1000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Turns Upstash's reset time into `retryAfterMs` (Upstash itself stamps buckets with `Date.now()`).
   *
   * @default systemClock
   */
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
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails, answers nonsense or is too
   *   slow; a token Redis takes after a rejection for slowness is given back once it answers.
   * @throws {RangeError} (rejects) When the rule is not valid.
   */
  take(key: string, rate: Rate): Promise<TakeResult>;
  /**
   * Claims `key` for `ttlMs` in Redis (`SET NX PX`), for every instance at once: `true` the
   * first time, `false` while claimed. The key is `<prefix>:claim:<key>`, holding a random value
   * of this claim's own.
   *
   * A claim that rejects is given back: when its request reaches Redis after the rejection (Redis
   * slower than `timeoutMs`) or its answer was lost, the key is deleted once the request settles,
   * if it still holds this claim's value, so the same claim can be made again; until then, the
   * same store's next claim of the key takes it over. The client's own retries of the request
   * (`@upstash/redis` retries a failed fetch) find the claim's own value and count as the same
   * claim. Another instance's claim finds it held until it is given back.
   *
   * @param key The key.
   * @param ttlMs How long the claim holds.
   * @returns Whether this call claimed it.
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails or is too slow.
   * @throws {RangeError} (rejects) When `ttlMs` is not a finite number.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Gives back the claim of `key` in Redis (`DEL`), so any instance can claim it again. The front
   * gives back only a claim it made itself, of a state's nonce, which no one else holds meanwhile.
   *
   * @param key The key.
   * @throws {StoreUnavailableError} (rejects) When Redis is unreachable, fails or is too slow; the
   *   claim then holds until it expires.
   */
  release(key: string): Promise<void>;
}

/**
 * Sets the key to ARGV[2], expiring in ARGV[1] ms, when it is absent or holds ARGV[3] (this
 * store's claim of it given up on, not yet given back): 1 when set or already ARGV[2] (a retry of
 * the same request), else 0.
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
 * Creates a store over Upstash Redis. It fails closed: when Redis is unreachable, answers with an
 * error or something that is not a token-bucket answer, or takes longer than `timeoutMs`, the take
 * rejects with {@linkcode StoreUnavailableError} and the budget refuses.
 *
 * How it differs from the memory store: Upstash's bucket refills `rate` tokens at once at the end
 * of each `perMs` period (the memory store refills continuously); burst and long-run rate are the
 * same. `retryAfterMs` is clamped to (0, perMs], since machines stamp buckets with their own clocks.
 *
 * Fixed `@upstash/ratelimit` settings, none of them configurable: `timeout: 0` (its default lets
 * requests through after 5 s: fail open), `ephemeralCache: false` (an unbounded local map keyed by
 * the key), `analytics: false`, `enableProtection: false` (downloads a deny list),
 * `enableTelemetry: false` (it would add headers to the caller's client).
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
  /** One `Ratelimit` per distinct rule. Rules come from policies, so this stays small. */
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
        // Refused for want of an answer, yet Redis may still take the token: it is given back once
        // it does, so a request refused is not charged (as a claim given up on is given back). Only
        // before the bucket's next refill: ratelimit's script does not cap a give-back at the burst.
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
