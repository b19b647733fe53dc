/**
 * Sampling check: `includeContext` other than `"none"` would hand this server what other
 * servers said; it becomes `"none"` (on a copy) unless the policy sets `sampling.context`.
 *
 * @module
 */
import { pass, type Verdict } from "./verdict.ts";

/** The check built by {@linkcode createSamplingContextCheck}. */
export interface SamplingContextCheck {
  /** Rewrites `includeContext` to `"none"` unless context is allowed; never refuses. */
  check<P extends { readonly includeContext?: string }>(params: P): Verdict<P>;
}

/**
 * Builds the check.
 *
 * @param options `allow`: the policy's `sampling.context`.
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createSamplingContextCheck } from "./sampling-context.ts";
 * const verdict = createSamplingContextCheck({ allow: false }).check({ includeContext: "allServers" });
 * if (verdict.ok) console.log(verdict.value.includeContext); // none
 * ```
 */
export function createSamplingContextCheck(options: { readonly allow: boolean }): SamplingContextCheck {
  const allow = options.allow;
  return Object.freeze({
    check<P extends { readonly includeContext?: string }>(params: P): Verdict<P> {
      if (allow || params.includeContext === undefined || params.includeContext === "none") {
        return pass(params);
      }
      return pass({ ...params, includeContext: "none" });
    },
  });
}
