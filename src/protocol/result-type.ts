/**
 * `resultType` (2026-07-28): `"complete"` (also when absent), `"input_required"` (MRTR) or `"task"`
 * (only when the client declared the tasks extension); any other value is invalid.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, nestFailure } from "./decode.ts";
import type { JsonObject } from "./jsonrpc.ts";

/** A result type sluice understands. */
export type ResultType = "complete" | "input_required" | "task";

/** The schema of `resultType` on a result that can only be final: absent or `"complete"`. */
export const CompleteResultTypeSchema: v.ExactOptionalSchema<
  v.LiteralSchema<"complete", undefined>,
  undefined
> = v
  .exactOptional(v.literal("complete"));

/** The schema of `ttlMs` on cacheable results (lenient: a hint the client does not need). */
export const TtlMsSchema: v.ExactOptionalSchema<v.NumberSchema<undefined>, undefined> = v.exactOptional(
  v.number(),
);

/** The schema of `cacheScope` on cacheable results (lenient: a hint the client does not need). */
export const CacheScopeSchema: v.ExactOptionalSchema<
  v.PicklistSchema<["public", "private"], undefined>,
  undefined
> = v.exactOptional(v.picklist(["public", "private"]));

const WITHOUT_TASKS = v.picklist(["complete", "input_required"]);
const WITH_TASKS = v.picklist(["complete", "input_required", "task"]);

/**
 * Reads the `resultType` of a modern result.
 *
 * @param result The result object.
 * @param options `task`: whether `"task"` is acceptable here (tasks declared, and the request
 * may become a task).
 * @returns The result type (`"complete"` when absent), or a failure at `$.resultType`.
 */
export function readResultType(result: JsonObject, options: { readonly task: boolean }): Decoded<ResultType> {
  if (!("resultType" in result)) return { ok: true, value: "complete" };
  const decoded = decode(options.task ? WITH_TASKS : WITHOUT_TASKS, result.resultType);
  return decoded.ok ? decoded : nestFailure("$.resultType", decoded);
}
