/**
 * Task statuses, the same in the 2025-11-25 experimental tasks and the 2026-07-28 tasks extension.
 *
 * @module
 */
import * as v from "valibot";
import type { WireSchema } from "./decode.ts";

/** Where a task is: `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses a task ends in. */
export type EndedStatus = "completed" | "failed" | "cancelled";

/**
 * Whether a status is one a task ends in.
 *
 * @param status A status, untrusted.
 * @returns `true` for `completed`, `failed` and `cancelled`.
 * @example
 * ```ts
 * import { isEnded } from "./task-status.ts";
 * console.log(isEnded("failed"), isEnded("working")); // true false
 * ```
 */
export function isEnded(status: unknown): status is EndedStatus {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** A task status. */
export const TaskStatusSchema: WireSchema<TaskStatus> = v.picklist([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);
