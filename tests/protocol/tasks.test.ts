import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeGetTaskResult, TASKS_EXTENSION } from "../../src/protocol/tasks.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const BASE = {
  taskId: "t-1",
  createdAt: "2026-08-01T00:00:00Z",
  lastUpdatedAt: "2026-08-01T00:01:00Z",
  ttlMs: 60000,
};

describe("decodeGetTaskResult()", () => {
  test("decodes an input_required task with its outstanding input requests", () => {
    const value = {
      ...BASE,
      resultType: "complete",
      status: "input_required",
      inputRequests: { ["__proto__"]: { method: "roots/list" } },
    };
    const result = decodeGetTaskResult(JSON.parse(JSON.stringify(value)));
    same(result, {
      ok: true,
      value: {
        ...BASE,
        resultType: "complete",
        status: "input_required",
        inputRequests: np({ ["__proto__"]: { method: "roots/list", params: {} } }),
      },
    });
  });

  test("accepts resultType task (the extension's examples), and absent", () => {
    const completed = { ...BASE, status: "completed", result: { content: [], isError: true } };
    same(decodeGetTaskResult({ ...completed, resultType: "task" }), {
      ok: true,
      value: { ...completed, resultType: "task" },
    });
    same(decodeGetTaskResult(completed), { ok: true, value: completed });
  });

  test("refuses resultType input_required at $.resultType", () => {
    const result = decodeGetTaskResult({ ...BASE, status: "working", resultType: "input_required" });
    same(result, failureAt("$.resultType", '("complete" | "task")', '"input_required"'));
  });

  test("requires the fields of the status: a failed task without error, a completed one without result", () => {
    const failed = decodeGetTaskResult({ ...BASE, status: "failed" });
    same(failed, failureAt("$.error", "a value (required)", "undefined"));
    const completed = decodeGetTaskResult({ ...BASE, status: "completed", result: [] });
    same(completed, failureAt("$.result", "Object", "Array"));
  });

  test("refuses an unknown status at $.status", () => {
    same(decodeGetTaskResult({ ...BASE, status: "paused" }), {
      ok: false,
      path: "$.status",
      expected: '("working" | "input_required" | "completed" | "failed" | "cancelled")',
      received: '"paused"',
      message:
        '$.status: expected ("working" | "input_required" | "completed" | "failed" | "cancelled"), received "paused"',
    });
  });

  test("locates a bad error code of a failed task at $.error.code", () => {
    same(
      decodeGetTaskResult({ ...BASE, status: "failed", error: { code: "E1", message: "boom" } }),
      failureAt("$.error.code", "number", '"E1"'),
    );
  });

  test("accepts a task without ttlMs (informational) and decodes a failed task's error", () => {
    const { ttlMs: _, ...noTtl } = BASE;
    const value = { ...noTtl, status: "failed", error: { code: -32603, message: "boom" } };
    same(decodeGetTaskResult(value), { ok: true, value });
  });
});

describe("TASKS_EXTENSION", () => {
  test("names the extension", () => {
    assert.equal(TASKS_EXTENSION, "io.modelcontextprotocol/tasks");
  });
});
