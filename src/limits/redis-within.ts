/**
 * What both Upstash stores (budgets and tokens) share: the options check, and a deadline on each
 * Redis request with failures turned into {@linkcode StoreUnavailableError} (fail closed).
 *
 * @module
 */
import { isObject } from "../_internal/is-object.ts";
import { describeValue } from "../_internal/quote.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { MAX_TIMER_MS } from "../_internal/timers.ts";
import { StoreUnavailableError } from "./rate-limit-store.ts";

/** The stores' name in {@linkcode StoreUnavailableError}. */
export const STORE = "upstash";

/**
 * Settles like `work`, or rejects after `ms`; failures become {@linkcode StoreUnavailableError}.
 *
 * @param work A Redis request.
 * @param ms How long it may take.
 * @param expected What was expected of it, for the message.
 * @param holds What the store holds, for the message.
 * @returns What it settled with.
 */
export function within<T>(
  work: Promise<T>,
  ms: number,
  expected: string,
  holds: "budgets" | "tokens" = "budgets",
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StoreUnavailableError(STORE, `no answer within "${ms}" ms, ${expected}`, { holds })),
      ms,
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        const reason = error instanceof Error ? error.message : String(error);
        reject(
          new StoreUnavailableError(STORE, `Redis request failed with "${clip(reason)}", ${expected}`, {
            cause: error,
            holds,
          }),
        );
      },
    );
  });
}

/**
 * A message from Redis, at most 200 characters.
 *
 * @param text The message.
 * @returns It, clipped.
 */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * An Upstash store's `timeoutMs` option, checked.
 *
 * @param who The function, for the message (`createUpstashStore()`).
 * @param value The option as given.
 * @returns It, or 1000 when not given.
 * @throws {RangeError} When it is not a positive integer of at most 2^31 − 1.
 */
export function timeoutOption(who: string, value: number | undefined): number {
  const timeoutMs = value ?? 1000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS) {
    throw new RangeError(
      `${who}: "timeoutMs" must be a positive integer of at most "${MAX_TIMER_MS}", received "${
        String(timeoutMs)
      }"`,
    );
  }
  return timeoutMs;
}

/**
 * Checks an Upstash store's options: known keys only, a `redis` with the methods the store calls,
 * a non-empty `prefix`; otherwise a missing client would fail every request as an outage.
 *
 * @param who The function, for the message (`createUpstashStore()`).
 * @param options The options as given.
 * @param known Every option's name.
 * @param methods The methods of `redis` the store calls.
 * @throws {TypeError} Naming the option that is not what it must be.
 */
export function checkUpstashOptions(
  who: string,
  options: unknown,
  known: readonly string[],
  methods: readonly string[],
): void {
  if (!isObject(options)) {
    throw new TypeError(
      `${who}: the options must be an object { redis, … }, received ${describeValue(options)}`,
    );
  }
  checkOptionKeys(options, known, who);
  const { redis, prefix } = options;
  if (!isObject(redis) || methods.some((name) => typeof redis[name] !== "function")) {
    throw new TypeError(
      `${who}: "redis" must be an @upstash/redis client (with ${methods.join(", ")}), received ${
        describeValue(redis)
      }`,
    );
  }
  if (prefix !== undefined && (typeof prefix !== "string" || prefix === "")) {
    throw new TypeError(
      `${who}: "prefix" must be a string that is not empty, received ${describeValue(prefix)}`,
    );
  }
}
