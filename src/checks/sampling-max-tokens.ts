/**
 * Sampling check: `maxTokens` is the cost bound the user approves, so it must be a positive
 * integer, and is clamped (on a copy) to the policy's `sampling.maxTokens`.
 *
 * @module
 */
import { describeValue, thrownName } from "../_internal/quote.ts";
import { pass, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";

/** The check built by {@linkcode createSamplingMaxTokensCheck}. */
export interface SamplingMaxTokensCheck {
  /** Refuses a `maxTokens` that is not a positive integer; clamps a larger one on a copy. */
  check<P extends { readonly maxTokens: number }>(params: P): Verdict<P>;
}

/**
 * Builds the check.
 *
 * @param options `maxTokens`: the largest value passed on (the policy's `sampling.maxTokens`).
 * @returns The frozen check.
 * @throws {TypeError} When `maxTokens` is not a positive integer.
 * @example
 * ```ts
 * import { createSamplingMaxTokensCheck } from "./sampling-max-tokens.ts";
 * const { check } = createSamplingMaxTokensCheck({ maxTokens: 4096 });
 * const verdict = check({ maxTokens: 999999, messages: [] });
 * if (verdict.ok) console.log(verdict.value.maxTokens); // 4096
 * ```
 */
export function createSamplingMaxTokensCheck(
  options: { readonly maxTokens: number },
): SamplingMaxTokensCheck {
  const max = options.maxTokens;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new TypeError(`"sampling.maxTokens" must be a positive integer, received ${describeValue(max)}`);
  }
  return Object.freeze({
    check<P extends { readonly maxTokens: number }>(params: P): Verdict<P> {
      try {
        return judge(params, max);
      } catch (error) {
        return samplingRefusal(`expected plain JSON params, reading them threw ${thrownName(error)}`);
      }
    },
  });
}

/** The check proper; a hostile getter or proxy throws out of it. */
function judge<P extends { readonly maxTokens: number }>(params: P, max: number): Verdict<P> {
  const requested: unknown = params.maxTokens;
  if (typeof requested !== "number" || !Number.isSafeInteger(requested) || requested < 1) {
    return samplingRefusal(`"maxTokens" must be a positive integer, received ${describeValue(requested)}`);
  }
  return pass(requested > max ? { ...params, maxTokens: max } : params);
}
