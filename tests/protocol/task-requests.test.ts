import { describe, test } from "node:test";
import { encodeElicitResult } from "../../src/protocol/elicitation.ts";
import { encodeRequest } from "../../src/protocol/jsonrpc.ts";
import {
  encodeCancelTask,
  encodeGetTask,
  encodeTaskResult,
  encodeUpdateTask,
} from "../../src/protocol/task-requests.ts";
import { np, same } from "../_support/exact.ts";
import { schemaErrors } from "./_official-schema.ts";
import { check, META, WIRE_META } from "./_request-fixtures.ts";

describe("task requests", () => {
  test("2025-11-25 tasks/get, tasks/cancel and tasks/result validate against the official schema", () => {
    const target = { protocolVersion: "2025-11-25" } as const;
    same(encodeGetTask(target, "t-1"), { method: "tasks/get", params: { taskId: "t-1" } });
    same([
      ...check("2025-11-25", "GetTaskRequest", encodeGetTask(target, "t-1")),
      ...check("2025-11-25", "CancelTaskRequest", encodeCancelTask(target, "t-1")),
      ...check("2025-11-25", "GetTaskPayloadRequest", encodeTaskResult("t-1")),
    ], []);
  });

  test("modern tasks/get, tasks/update and tasks/cancel carry the full _meta", () => {
    // The tasks extension has no schema in the core schema.json: check the framing, the
    // _meta and the inputResponses against the core definitions.
    const update = encodeUpdateTask(META, {
      taskId: "t-2",
      inputResponses: np({
        q: encodeElicitResult("2026-07-28", { action: "accept", content: np({ n: 1 }) }),
      }),
    });
    same(update, {
      method: "tasks/update",
      params: {
        taskId: "t-2",
        inputResponses: { q: { action: "accept", content: { n: 1 } } },
        _meta: WIRE_META,
      },
    });
    for (const request of [encodeGetTask(META, "t-2"), encodeCancelTask(META, "t-2"), update]) {
      same([
        ...schemaErrors("2026-07-28", "JSONRPCRequest", encodeRequest(5, request.method, request.params)),
        ...schemaErrors("2026-07-28", "RequestParams", request.params),
      ], []);
    }
    same(schemaErrors("2026-07-28", "InputResponses", update.params?.inputResponses), []);
  });
});
