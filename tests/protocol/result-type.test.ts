import { describe, test } from "node:test";
import { readResultType } from "../../src/protocol/result-type.ts";
import { same } from "../_support/exact.ts";

describe("readResultType()", () => {
  test("reads absent as complete and accepts task only when allowed", () => {
    same(readResultType({}, { task: false }), { ok: true, value: "complete" });
    same(readResultType({ resultType: "input_required" }, { task: false }), {
      ok: true,
      value: "input_required",
    });
    same(readResultType({ resultType: "task" }, { task: true }), { ok: true, value: "task" });
  });

  test("refuses a non-string resultType at $.resultType", () => {
    same(readResultType({ resultType: 1 }, { task: true }), {
      ok: false,
      path: "$.resultType",
      expected: '("complete" | "input_required" | "task")',
      received: "1",
      message: '$.resultType: expected ("complete" | "input_required" | "task"), received 1',
    });
  });
});
