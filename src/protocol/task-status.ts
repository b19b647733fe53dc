/**
 * Task statuses, the same in the 2025-11-25 experimental tasks and the 2026-07-28 tasks extension.
 *
 * @module
 */
import * as v from "valibot";
import type { WireSchema } from "./decode.ts";

/** Where a task is: `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task status. */
export const TaskStatusSchema: WireSchema<TaskStatus> = v.picklist([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);
