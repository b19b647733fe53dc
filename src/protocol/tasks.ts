/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` may return a
 * task handle (`resultType: "task"`), polled with `tasks/get`, fed input with `tasks/update`,
 * stopped with `tasks/cancel`.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema, wireVariant } from "./decode.ts";
import { type InputRequests, InputRequestsSchema } from "./input-request.ts";
import { ErrorObjectSchema, type JsonObject, JsonObjectSchema, type JsonRpcErrorObject } from "./jsonrpc.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { type EndedStatus, type TaskStatus, TaskStatusSchema } from "./task-status.ts";

/** The extension identifier, a key of `capabilities.extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A task (2026-07-28 extension). */
export interface Task {
  /** The task id. */
  readonly taskId: string;
  /** Where the task is. */
  readonly status: TaskStatus;
  /** A human-readable note on the status. */
  readonly statusMessage?: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /** ISO 8601 time of the last change. */
  readonly lastUpdatedAt: string;
  /** Lifetime in ms, `null` for unlimited (required of servers; accepted missing). */
  readonly ttlMs?: number | null;
  /** Suggested polling interval in ms. */
  readonly pollIntervalMs?: number;
}

/** A task still working. */
export interface WorkingTask extends Task {
  /** Always `"working"`. */
  readonly status: "working";
}

/** A task waiting for the client's input. */
export interface InputRequiredTask extends Task {
  /** Always `"input_required"`. */
  readonly status: "input_required";
  /** Every outstanding request (a snapshot, repeated on each poll). */
  readonly inputRequests: InputRequests;
}

/** A task that finished. */
export interface CompletedTask extends Task {
  /** Always `"completed"`. */
  readonly status: "completed";
  /** What the original request would have returned (e.g. a `CallToolResult`). */
  readonly result: JsonObject;
}

/** A task that ended in a JSON-RPC error. */
export interface FailedTask extends Task {
  /** Always `"failed"`. */
  readonly status: "failed";
  /** The error. */
  readonly error: JsonRpcErrorObject;
}

/** A task that was cancelled. */
export interface CancelledTask extends Task {
  /** Always `"cancelled"`. */
  readonly status: "cancelled";
}

/** A task with the fields of its status. */
export type DetailedTask = WorkingTask | InputRequiredTask | CompletedTask | FailedTask | CancelledTask;

/** Fields of a task result. */
export interface TaskResultFields {
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** A `tools/call` result that is a task handle. */
export interface CreateTaskResult extends Task, TaskResultFields {
  /** Always `"task"`. */
  readonly resultType: "task";
}

/** The result of `tasks/get`: the task with the fields of its status. */
export type GetTaskResult = DetailedTask & TaskResultFields & {
  /** `"complete"` per the extension's text; `"task"` (its examples) and absent are accepted. */
  readonly resultType?: "complete" | "task";
};

/** A `tasks/get` result in a status the task ends in. */
export type EndedTask = Extract<GetTaskResult, { status: EndedStatus }>;

const opt = v.exactOptional;

const taskEntries = {
  taskId: v.string(),
  statusMessage: opt(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  // Informational (the server's retention), so a server that omits it is accepted.
  ttlMs: opt(v.nullable(v.number())),
  pollIntervalMs: opt(v.number()),
  _meta: opt(MetaSchema),
};

/** The result of a `tools/call` that became a task; unknown keys are kept. */
export const CreateTaskResultSchema: WireSchema<CreateTaskResult> = wireLooseObject({
  ...taskEntries,
  resultType: v.literal("task"),
  status: TaskStatusSchema,
});

const resultEntries = { ...taskEntries, resultType: opt(v.picklist(["complete", "task"])) };

/** The result of `tasks/get`; variant on `status`, unknown keys kept. */
const GetTaskResultSchema: WireSchema<GetTaskResult> = wireVariant("status", [
  wireLooseObject({ ...resultEntries, status: v.literal("working") }),
  wireLooseObject({
    ...resultEntries,
    status: v.literal("input_required"),
    inputRequests: InputRequestsSchema,
  }),
  wireLooseObject({ ...resultEntries, status: v.literal("completed"), result: JsonObjectSchema }),
  wireLooseObject({ ...resultEntries, status: v.literal("failed"), error: ErrorObjectSchema }),
  wireLooseObject({ ...resultEntries, status: v.literal("cancelled") }),
]);

/**
 * Decodes the result of `tasks/get` (`resultType` `"complete"`, `"task"` or absent).
 *
 * @param value The untrusted result.
 * @returns The task, or a failure naming the path (e.g. `$.inputRequests.k.method`).
 */
export function decodeGetTaskResult(value: unknown): Decoded<GetTaskResult> {
  return decode(GetTaskResultSchema, value);
}
