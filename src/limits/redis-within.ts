/**
 * What both Upstash stores (budgets and tokens) do around each Redis request: a deadline, and
 * failures turned into {@linkcode StoreUnavailableError} (fail closed).
 *
 * @module
 */
import { StoreUnavailableError } from "./rate-limit-store.ts";

/** The stores' name in {@linkcode StoreUnavailableError}. */
const STORE = "upstash";

/**
 * Settles like `work`, or rejects after `ms` if it has not; failures become
 * {@linkcode StoreUnavailableError} (shared by the Upstash stores: budgets and tokens).
 *
 * @param work A Redis request.
 * @param ms How long it may take.
 * @param expected What was expected of it, for the message.
 * @returns What it settled with.
 */
export function within<T>(work: Promise<T>, ms: number, expected: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StoreUnavailableError(STORE, `no answer within "${ms}" ms, ${expected}`)),
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

/** The longest delay `setTimeout` keeps (2^31 − 1 ms). */
const MAX_TIMEOUT_MS = 2_147_483_647;

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
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(
      `${who}: "timeoutMs" must be a positive integer of at most "${MAX_TIMEOUT_MS}", received "${
        String(timeoutMs)
      }"`,
    );
  }
  return timeoutMs;
}
