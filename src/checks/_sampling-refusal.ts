/**
 * The refusal of a sampling request whose params cannot be accepted (`-32602`), in the words
 * every sampling check starts its message with. A refusal under the policy's `rejectionCode`
 * (no call in flight, too many tool turns) is worded where it is made.
 *
 * @module
 */
import { type Refusal, RefusalCode, refuse } from "./verdict.ts";

/**
 * Refuses a sampling request's params with `-32602`.
 *
 * @param reason What was wrong and what was expected.
 * @returns A refusing verdict: `Sampling request refused: ` and the reason.
 */
export function samplingRefusal(reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InvalidParams, `Sampling request refused: ${reason}`);
}
