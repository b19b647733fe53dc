import { describe, test } from "node:test";
import {
  decodeCancelledNotificationParams,
  decodeElicitationCompleteNotificationParams,
  decodeLoggingMessageNotificationParams,
  decodeProgressNotificationParams,
} from "../../src/protocol/notifications.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("notifications", () => {
  test("decodeLoggingMessageNotificationParams() accepts any level string and any JSON data, drops the rest", () => {
    same(
      decodeLoggingMessageNotificationParams({
        level: "verbose",
        logger: "db",
        data: [1, { a: null }],
        x: 1,
      }),
      { ok: true, value: { level: "verbose", logger: "db", data: [1, { a: null }] } },
    );
    same(decodeLoggingMessageNotificationParams({ level: "info", data: null }), {
      ok: true,
      value: { level: "info", data: null },
    });
  });

  test("decodeLoggingMessageNotificationParams() requires data, naming the key", () => {
    same(decodeLoggingMessageNotificationParams({ level: "info" }), {
      ok: false,
      path: "$.data",
      expected: '"data"',
      received: "undefined",
      message: '$.data: expected "data", received undefined',
    });
  });

  test("decodeCancelledNotificationParams() accepts a missing requestId and refuses a null one", () => {
    same(decodeCancelledNotificationParams({ reason: "user" }), {
      ok: true,
      value: { reason: "user" },
    });
    const result = decodeCancelledNotificationParams({ requestId: null });
    same(result, failureAt("$.requestId", "(string | number)", "null"));
  });

  test("decodeProgressNotificationParams() decodes fractional progress and refuses a boolean token", () => {
    same(
      decodeProgressNotificationParams({ progressToken: 3, progress: 0.5, total: 1, message: "half" }),
      {
        ok: true,
        value: { progressToken: 3, progress: 0.5, total: 1, message: "half" },
      },
    );
    same(decodeProgressNotificationParams({ progressToken: true, progress: 1 }), {
      ok: false,
      path: "$.progressToken",
      expected: "(string | number)",
      received: "true",
      message: "$.progressToken: expected (string | number), received true",
    });
  });

  test("decodeElicitationCompleteNotificationParams() requires elicitationId", () => {
    same(decodeElicitationCompleteNotificationParams({ elicitationId: "e-1" }), {
      ok: true,
      value: { elicitationId: "e-1" },
    });
    const result = decodeElicitationCompleteNotificationParams({});
    same(result, failureAt("$.elicitationId", '"elicitationId"', "undefined"));
  });
});
