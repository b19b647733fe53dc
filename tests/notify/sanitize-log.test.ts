import { describe, test } from "node:test";
import { sanitizeLogParams } from "../../src/notify/sanitize-log.ts";
import { np, same } from "../_support/exact.ts";

describe("sanitizeLogParams()", () => {
  test("sanitizeLogParams() keeps level, logger and data only", () => {
    same(
      sanitizeLogParams({ level: "error", logger: "db", data: { code: 5 }, _meta: { x: 1 }, extra: "y" }),
      { level: "error", logger: "db", data: np({ code: 5 }) },
    );
  });

  for (const level of ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]) {
    test(`sanitizeLogParams() keeps the level "${level}"`, () => {
      same(sanitizeLogParams({ level, data: 1 }), { level, data: 1 });
    });
  }

  const unknown: Array<[string, unknown]> = [
    ["an unknown word", "shout"],
    ["a different case", "ERROR"],
    ["a padded level", " error"],
    ["a level with a zero-width space", "error\u200B"],
    ["a number", 3],
    ["null", null],
    ["an object", { toString: () => "error" }],
    ["nothing", undefined],
  ];
  for (const [name, level] of unknown) {
    test(`sanitizeLogParams() turns ${name} as level into "info"`, () => {
      same(sanitizeLogParams({ level, data: "x" }), { level: "info", data: "x" });
    });
  }

  test("sanitizeLogParams() cleans the logger, and leaves a non-string logger out", () => {
    same(sanitizeLogParams({ level: "info", logger: "db\u202E\nroot", data: 1 }), {
      level: "info",
      logger: "dbroot",
      data: 1,
    });
    same(sanitizeLogParams({ level: "info", logger: 42, data: 1 }), { level: "info", data: 1 });
  });

  const data: Array<[string, unknown, unknown]> = [
    ["a string", "line1\nline2", "line1line2"],
    ["a number", 12.5, 12.5],
    ["a boolean", false, false],
    ["null", null, null],
    ["an array", ["a\u2028", [1]], ["a", [1]]],
    ["missing data", undefined, null],
  ];
  for (const [name, input, expected] of data) {
    test(`sanitizeLogParams() keeps ${name} as data`, () => {
      same(sanitizeLogParams({ level: "notice", data: input }), { level: "notice", data: expected });
    });
  }

  test("sanitizeLogParams() of params that are not an object gives an info entry with null data", () => {
    same([sanitizeLogParams(null), sanitizeLogParams("x"), sanitizeLogParams(undefined)], [
      { level: "info", data: null },
      { level: "info", data: null },
      { level: "info", data: null },
    ]);
  });

  test("sanitizeLogParams() of params whose fields throw gives an info entry marked unreadable", () => {
    const params = {
      get level(): never {
        throw new Error("boom");
      },
    };
    same(sanitizeLogParams(params), { level: "info", data: "[unreadable]" });
  });
});
