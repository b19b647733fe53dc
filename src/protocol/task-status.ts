/**
 * Task statuses, the same in the 2025-11-25 experimental tasks and the 2026-07-28 tasks extension.
 *
 * @module
 */
import * as v from "valibot";
import type { WireSchema } from "./decode.ts";

/** Where a task is: `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Every task status. */
export const TASK_STATUSES: readonly TaskStatus[] = Object.freeze([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);

/** A task status. */
export const TaskStatusSchema: WireSchema<TaskStatus> = v.picklist([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);

/**
 * Tells whether a status is terminal (the task will not change again).
 *
 * @param status A task status.
 * @returns `true` for `completed`, `failed` and `cancelled`.
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}
