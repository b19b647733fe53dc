/**
 * The experimental tasks of 2025-11-25: the `task` augmentation of a request, `Task`,
 * `CreateTaskResult { task }`, and the results of `tasks/get`, `tasks/cancel` and `tasks/list`.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, wireObject, type WireSchema } from "./decode.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { type TaskStatus, TaskStatusSchema } from "./task-status.ts";

/** Asks the receiver to run a request as a task (2025-11-25). */
export interface TaskMetadata {
  /** How long to keep the task after creation, in ms. */
  readonly ttl?: number;
}

/** A task augmentation; unknown keys are dropped. */
export const TaskMetadataSchema: WireSchema<TaskMetadata> = wireObject({ ttl: v.exactOptional(v.number()) });

/** A 2025-11-25 task. */
export interface LegacyTask {
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
  readonly ttl?: number | null;
  /** Suggested polling interval in ms. */
  readonly pollInterval?: number;
}

/** The result of a task-augmented request (2025-11-25). */
export interface LegacyCreateTaskResult {
  /** The task created. */
  readonly task: LegacyTask;
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

const opt = v.exactOptional;

/** A 2025-11-25 task; unknown keys are kept. */
const LegacyTaskSchema: WireSchema<LegacyTask> = wireLooseObject({
  taskId: v.string(),
  status: TaskStatusSchema,
  statusMessage: opt(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  // Informational (the server's retention), so a server that omits it is accepted.
  ttl: opt(v.nullable(v.number())),
  pollInterval: opt(v.number()),
});

/** `CreateTaskResult` of 2025-11-25; unknown keys are kept. */
const LegacyCreateTaskResultSchema: WireSchema<LegacyCreateTaskResult> = wireLooseObject({
  task: LegacyTaskSchema,
  _meta: opt(MetaSchema),
});

/**
 * Decodes the result of a task-augmented 2025-11-25 request.
 *
 * @param value The untrusted result.
 * @returns `{ task }`, or a failure naming the path.
 */
export function decodeLegacyCreateTaskResult(value: unknown): Decoded<LegacyCreateTaskResult> {
  return decode(LegacyCreateTaskResultSchema, value);
}

/**
 * Decodes the result of a 2025-11-25 `tasks/get` or `tasks/cancel`: the task itself.
 *
 * @param value The untrusted result.
 * @returns The task, or a failure naming the path.
 */
export function decodeLegacyTaskResult(value: unknown): Decoded<LegacyTask> {
  return decode(LegacyTaskSchema, value);
}

/** `ListTasksResult` of 2025-11-25; unknown keys are kept. */
const LegacyListTasksResultSchema: WireSchema<{ readonly tasks: readonly LegacyTask[] }> = wireLooseObject({
  tasks: v.array(LegacyTaskSchema),
  nextCursor: opt(v.string()),
});

/**
 * Decodes the result of a 2025-11-25 `tasks/list`.
 *
 * @param value The untrusted result.
 * @returns `{ tasks }`, or a failure naming the path.
 */
export function decodeLegacyListTasksResult(
  value: unknown,
): Decoded<{ readonly tasks: readonly LegacyTask[] }> {
  return decode(LegacyListTasksResultSchema, value);
}
