/**
 * Sampling check: a legacy server that asks for sampling while no call of ours is in flight spends
 * the user's model budget on its own initiative; refused unless `sampling.allowIdle`. (Modern
 * input requests always belong to a call.)
 *
 * @module
 */
import { pass, refuse, type Verdict } from "./verdict.ts";

/** The check built by {@linkcode createSamplingIdleCheck}. */
export interface SamplingIdleCheck {
  /** Refuses when `callInFlight` is false, unless idle sampling is allowed. */
  check(callInFlight: boolean): Verdict<void>;
}

/**
 * Builds the check.
 *
 * @param options `allowIdle` (the policy's `sampling.allowIdle`) and `rejectionCode`.
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createSamplingIdleCheck } from "./sampling-idle.ts";
 * const { check } = createSamplingIdleCheck({ allowIdle: false, rejectionCode: -1 });
 * console.log(check(false)); // { ok: false, refusal: { code: -1, message: "Sampling request refused: no call to this server is in flight" } }
 * ```
 */
export function createSamplingIdleCheck(
  options: { readonly allowIdle: boolean; readonly rejectionCode: number },
): SamplingIdleCheck {
  const { allowIdle, rejectionCode } = options;
  return Object.freeze({
    check(callInFlight: boolean): Verdict<void> {
      if (allowIdle || callInFlight) return pass(undefined);
      return refuse(rejectionCode, "Sampling request refused: no call to this server is in flight");
    },
  });
}
