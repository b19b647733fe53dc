/**
 * Sampling check: `tools` and `toolChoice` are allowed only when the client declared
 * `sampling.tools` (the spec's "client MUST return an error" rule).
 *
 * @module
 */
import { pass, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";

/** The fields of a sampling request this check reads. */
export interface SamplingToolsInput {
  /** Tools offered to the model. */
  readonly tools?: readonly unknown[];
  /** How the model should use them. */
  readonly toolChoice?: unknown;
}

/** The check built by {@linkcode createSamplingToolsCheck}. */
export interface SamplingToolsCheck {
  /** Refuses `tools`/`toolChoice` when `sampling.tools` was not declared. */
  check<P extends SamplingToolsInput>(params: P): Verdict<P>;
}

/**
 * Builds the check.
 *
 * @param options `declared`: whether the client declared `sampling.tools`.
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createSamplingToolsCheck } from "./sampling-tools.ts";
 * const { check } = createSamplingToolsCheck({ declared: false });
 * console.log(check({ tools: [] }).ok); // false
 * ```
 */
export function createSamplingToolsCheck(options: { readonly declared: boolean }): SamplingToolsCheck {
  const declared = options.declared;
  return Object.freeze({
    check<P extends SamplingToolsInput>(params: P): Verdict<P> {
      if (declared || (params.tools === undefined && params.toolChoice === undefined)) return pass(params);
      const field = params.tools === undefined ? "toolChoice" : "tools";
      return samplingRefusal(
        `"${field}" requires the sampling.tools capability, which this client did not declare`,
      );
    },
  });
}
