/**
 * Encoders for the task requests: `tasks/get` and `tasks/cancel` (2025-11-25 and the 2026-07-28
 * tasks extension), `tasks/update` (extension) and `tasks/result` (2025-11-25). Modern task
 * requests carry the full `_meta`, with the extension in the declared capabilities.
 *
 * @module
 */
import type { RequestMeta } from "./meta.ts";
import { type OutgoingRequest, requestFor } from "./requests.ts";
import type { UpdateTaskParams } from "./tasks.ts";

/** A target that has tasks: 2025-11-25, or modern with the tasks extension. */
export type TaskTarget = { readonly protocolVersion: "2025-11-25" } | RequestMeta;

/**
 * Builds a `tasks/get` request.
 *
 * @param target A 2025-11-25 session, or modern metadata declaring the tasks extension.
 * @param taskId The task.
 * @returns A new request.
 */
export function encodeGetTask(target: TaskTarget, taskId: string): OutgoingRequest {
  return requestFor(target, "tasks/get", { taskId });
}

/**
 * Builds a `tasks/cancel` request.
 *
 * @param target A 2025-11-25 session, or modern metadata declaring the tasks extension.
 * @param taskId The task.
 * @returns A new request.
 */
export function encodeCancelTask(target: TaskTarget, taskId: string): OutgoingRequest {
  return requestFor(target, "tasks/cancel", { taskId });
}

/**
 * Builds a `tasks/update` request (2026-07-28 tasks extension) answering outstanding input.
 *
 * @param meta Modern metadata declaring the tasks extension.
 * @param params The task and the answers by input request key.
 * @returns A new request.
 */
export function encodeUpdateTask(meta: RequestMeta, params: UpdateTaskParams): OutgoingRequest {
  return requestFor(meta, "tasks/update", {
    taskId: params.taskId,
    inputResponses: { ...params.inputResponses },
  });
}

/**
 * Builds a `tasks/result` request (2025-11-25): blocks until the task ends, then answers what
 * the original request would have.
 *
 * @param taskId The task.
 * @returns A new request.
 */
export function encodeTaskResult(taskId: string): OutgoingRequest {
  return { method: "tasks/result", params: { taskId } };
}
