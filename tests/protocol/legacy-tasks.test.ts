import { describe, test } from "node:test";
import {
  decodeLegacyCreateTaskResult,
  decodeLegacyListTasksResult,
  decodeLegacyTaskResult,
} from "../../src/protocol/legacy-tasks.ts";
import { schemaErrors } from "./_official-schema.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const TASK = {
  taskId: "t-9",
  status: "working",
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:00Z",
  ttl: null,
  pollInterval: 2000,
};

describe("decodeLegacyCreateTaskResult()", () => {
  test("decodes the official shape { task } and keeps unknown keys", () => {
    const value = { task: TASK, _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-9" } } };
    same(schemaErrors("2025-11-25", "CreateTaskResult", value), []);
    const result = decodeLegacyCreateTaskResult({ ...value, extra: 1 });
    same(result.ok && [result.value.task, result.value.extra], [TASK, 1]);
  });

  test("locates a non-integer-or-null ttl at $.task.ttl and an unknown status at $.task.status", () => {
    const result = decodeLegacyCreateTaskResult({ task: { ...TASK, ttl: "1h" } });
    same(result, failureAt("$.task.ttl", "number", '"1h"'));
    same(
      decodeLegacyCreateTaskResult({ task: { ...TASK, status: "done" } }),
      failureAt(
        "$.task.status",
        '("working" | "input_required" | "completed" | "failed" | "cancelled")',
        '"done"',
      ),
    );
  });
});

describe("decodeLegacyTaskResult() and decodeLegacyListTasksResult()", () => {
  test("decode the official GetTaskResult, CancelTaskResult and ListTasksResult, keeping unknown keys", () => {
    const list = { tasks: [TASK], nextCursor: "c2" };
    same(
      [
        schemaErrors("2025-11-25", "GetTaskResult", TASK),
        schemaErrors("2025-11-25", "CancelTaskResult", TASK),
        schemaErrors("2025-11-25", "ListTasksResult", list),
      ],
      [[], [], []],
    );
    const task = decodeLegacyTaskResult({ ...TASK, extra: 1 });
    const listed = decodeLegacyListTasksResult({ ...list, extra: 1 });
    same([task.ok && task.value, listed.ok && listed.value], [{ ...TASK, extra: 1 }, { ...list, extra: 1 }]);
  });

  test("locate a task without its status at $.status, and in a list at $.tasks[0].status", () => {
    const { status: _status, ...statusless } = TASK;
    const expected = "a value (required)";
    same(
      [decodeLegacyTaskResult(statusless), decodeLegacyListTasksResult({ tasks: [statusless] })],
      [failureAt("$.status", expected, "undefined"), failureAt("$.tasks[0].status", expected, "undefined")],
    );
  });
});
