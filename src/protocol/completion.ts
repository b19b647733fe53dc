/**
 * Completion: the result of `completion/complete` (any era), checked before the front relays it.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CompleteResultTypeSchema } from "./result-type.ts";

/** The result of `completion/complete`. */
export interface CompleteResult {
  /** The completions offered. */
  readonly completion: {
    /** At most 100 values. */
    readonly values: readonly string[];
    /** How many there are in all, which may exceed those sent. */
    readonly total?: number;
    /** Whether there are more than those sent. */
    readonly hasMore?: boolean;
  };
  /** 2026-07-28: `"complete"` (absent from earlier servers). */
  readonly resultType?: "complete";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

const opt = v.exactOptional;

/** The result of `completion/complete`; unknown keys are kept. */
const CompleteResultSchema: WireSchema<CompleteResult> = wireLooseObject({
  completion: wireLooseObject({
    values: v.pipe(v.array(v.string()), v.maxLength(100)),
    total: opt(v.pipe(v.number(), v.safeInteger())),
    hasMore: opt(v.boolean()),
  }),
  resultType: CompleteResultTypeSchema,
  _meta: opt(MetaSchema),
});

/**
 * Decodes a `completion/complete` result (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 * @example
 * ```ts
 * import { decodeCompleteResult } from "./completion.ts";
 * const decoded = decodeCompleteResult({ completion: { values: ["a", 1] } });
 * if (!decoded.ok) console.log(decoded.message); // $.completion.values[1]: expected string, received 1
 * ```
 */
export function decodeCompleteResult(value: unknown): Decoded<CompleteResult> {
  return decode(CompleteResultSchema, value);
}
