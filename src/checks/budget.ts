/**
 * Budget check: input requests of one server share a token bucket (10/s, burst 20 by default), so
 * a server cannot flood the user with forms or spend their model budget. When the store cannot
 * answer, the request is refused (fail closed) unless the policy sets `rateLimitFailOpen`.
 *
 * @module
 */
import { pass, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import { assertRate, type Rate, type TakeResult } from "../limits/token-bucket.ts";

/** Options of {@linkcode createBudgetCheck}. */
export interface BudgetOptions {
  /** Where the bucket lives. */
  readonly store: RateLimitStore;
  /** The bucket's key, e.g. `input:github`. */
  readonly key: string;
  /** The rule (the policy's `inputRateLimit`). */
  readonly rate: Rate;
  /** Lets requests through when the store fails (the policy's `rateLimitFailOpen`). */
  readonly failOpen: boolean;
  /** The code for a refused sampling request (the policy's `sampling.rejectionCode`). */
  readonly samplingCode: number;
}

/** The check built by {@linkcode createBudgetCheck}. */
export interface BudgetCheck {
  /**
   * Takes a token for one input request; synchronous when the store is. A gateway's callers each
   * have their own bucket: `subject` is the caller's (`ctx.principal.subject`), when known.
   */
  check(method: string, subject?: string): Verdict<void> | Promise<Verdict<void>>;
}

/**
 * Builds the check.
 *
 * @param options Store, key, rule and refusal codes.
 * @returns The frozen check.
 * @throws {RangeError} When the rule is not valid.
 * @example
 * ```ts
 * import { createBudgetCheck } from "./budget.ts";
 * import { createMemoryStore } from "../limits/memory-store.ts";
 * const budget = createBudgetCheck({
 *   store: createMemoryStore(),
 *   key: "input:demo",
 *   rate: { rate: 10, perMs: 1000, burst: 1 },
 *   failOpen: false,
 *   samplingCode: -1,
 * });
 * console.log(budget.check("roots/list"), budget.check("roots/list"));
 * // { ok: true, value: undefined } { ok: false, refusal: { code: -32000, message: "Input request refused: over the policy's inputRateLimit of 10 per 1000 ms (burst 1); retry in 100 ms" } }
 * ```
 */
export function createBudgetCheck(options: BudgetOptions): BudgetCheck {
  const { store, key, rate, failOpen, samplingCode } = options;
  assertRate(rate);
  const codeFor = (method: string) =>
    method === "sampling/createMessage" ? samplingCode : RefusalCode.ServerError;
  const judge = (method: string, result: TakeResult): Verdict<void> =>
    result.allowed ? pass(undefined) : refuse(
      codeFor(method),
      `Input request refused: over the policy's inputRateLimit of ${rate.rate} per ${rate.perMs} ms (burst ${rate.burst}); retry in ${result.retryAfterMs} ms`,
    );
  const unavailable = (method: string): Verdict<void> =>
    failOpen
      ? pass(undefined)
      : refuse(codeFor(method), "Input request refused: the rate-limit store is unavailable");
  return Object.freeze({
    check(method: string, subject?: string): Verdict<void> | Promise<Verdict<void>> {
      let result: TakeResult | Promise<TakeResult>;
      try {
        // A subject may hold any character: encoded, it cannot reach into another key.
        result = store.take(subject === undefined ? key : `${key}@${encodeURIComponent(subject)}`, rate);
      } catch {
        return unavailable(method);
      }
      if (!(result instanceof Promise)) return judge(method, result);
      return result.then((r) => judge(method, r), () => unavailable(method));
    },
  });
}
