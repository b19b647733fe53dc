import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeModernResult } from "../../src/protocol/input-required.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const NO_TASKS = { tasks: false } as const;
const TASK = {
  resultType: "task",
  taskId: "t-1",
  status: "working",
  createdAt: "2026-08-01T00:00:00Z",
  lastUpdatedAt: "2026-08-01T00:00:00Z",
  ttlMs: null,
  pollIntervalMs: 500,
};

describe("decodeModernResult()", () => {
  test("treats an absent resultType as complete (an earlier server)", () => {
    same(decodeModernResult("tools/call", { content: [] }, NO_TASKS), {
      ok: true,
      value: { resultType: "complete", result: { content: [] } },
    });
  });

  test("decodes an input_required result with inputRequests and requestState", () => {
    const value = {
      resultType: "input_required",
      inputRequests: {
        confirm: { method: "elicitation/create", params: { mode: "url", message: "m", url: "https://a" } },
      },
      requestState: "eyJ4IjoxfQ",
    };
    same(decodeModernResult("resources/read", value, NO_TASKS), {
      ok: true,
      value: {
        resultType: "input_required",
        result: {
          resultType: "input_required",
          inputRequests: np({
            confirm: {
              method: "elicitation/create",
              params: { mode: "url", message: "m", url: "https://a" },
            },
          }),
          requestState: "eyJ4IjoxfQ",
        },
      },
    });
  });

  test("refuses an input_required result with neither inputRequests nor requestState at $", () => {
    same(decodeModernResult("prompts/get", { resultType: "input_required" }, NO_TASKS), {
      ok: false,
      path: "$",
      expected: '"inputRequests" or "requestState"',
      received: "neither",
      message: '$: expected "inputRequests" or "requestState", received neither',
    });
  });

  test("refuses an unknown resultType at $.resultType", () => {
    same(decodeModernResult("tools/call", { resultType: "partial", content: [] }, NO_TASKS), {
      ok: false,
      path: "$.resultType",
      expected: '("complete" | "input_required")',
      received: '"partial"',
      message: '$.resultType: expected ("complete" | "input_required"), received "partial"',
    });
  });

  test("refuses a task when tasks were not declared", () => {
    const result = decodeModernResult("tools/call", TASK, NO_TASKS);
    same(result, failureAt("$.resultType", '("complete" | "input_required")', '"task"'));
  });

  test("decodes a task for tools/call when tasks were declared", () => {
    same(decodeModernResult("tools/call", TASK, { tasks: true }), {
      ok: true,
      value: { resultType: "task", result: TASK },
    });
  });

  test("refuses a task for resources/read even when tasks were declared", () => {
    same(decodeModernResult("resources/read", TASK, { tasks: true }), {
      ok: false,
      path: "$.resultType",
      expected: '("complete" | "input_required")',
      received: '"task"',
      message: '$.resultType: expected ("complete" | "input_required"), received "task"',
    });
  });

  test("locates a malformed entry at $.inputRequests.k.params.messages", () => {
    const result = decodeModernResult("tools/call", {
      resultType: "input_required",
      inputRequests: { k: { method: "sampling/createMessage", params: { maxTokens: 1 } } },
    }, NO_TASKS);
    same(result, failureAt("$.inputRequests.k.params.messages", "a value (required)", "undefined"));
  });

  test("refuses a non-string requestState and a non-object result", () => {
    const state = decodeModernResult(
      "tools/call",
      { resultType: "input_required", requestState: 5 },
      NO_TASKS,
    );
    same(state, failureAt("$.requestState", "string", "5"));
    same(decodeModernResult("tools/call", "done", NO_TASKS), {
      ok: false,
      path: "$",
      expected: "Object",
      received: '"done"',
      message: '$: expected Object, received "done"',
    });
  });

  test("keeps requestState byte for byte", () => {
    const requestState = "  \u2028é=\u0000 ";
    const result = decodeModernResult("tools/call", { resultType: "input_required", requestState }, NO_TASKS);
    assert.equal(
      result.ok && result.value.resultType === "input_required" && result.value.result.requestState,
      requestState,
    );
  });

  test("never throws: a hostile value (a revoked proxy) is a failure at $", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    same(
      decodeModernResult("tools/call", proxy, NO_TASKS),
      failureAt("$", "a JSON value", "a value that threw TypeError when read"),
    );
  });
});
