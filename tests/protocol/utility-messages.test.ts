import { describe, test } from "node:test";
import { encodeNotification, encodeResult } from "../../src/protocol/jsonrpc.ts";
import {
  encodeCancelled,
  encodePing,
  encodePingResult,
  encodeRootsListChanged,
  encodeSetLevel,
} from "../../src/protocol/utility-messages.ts";
import { same } from "../_support/exact.ts";
import { schemaErrors } from "./_official-schema.ts";
import { check, LEGACY } from "./_request-fixtures.ts";

describe("legacy utilities", () => {
  test("logging/setLevel, ping and the ping answer validate in both legacy versions", () => {
    for (const version of LEGACY) {
      same(encodeSetLevel("warning"), {
        method: "logging/setLevel",
        params: { level: "warning" },
      });
      same(encodePing(), { method: "ping" });
      const pong = encodeResult(3, encodePingResult());
      same(pong, { jsonrpc: "2.0", id: 3, result: {} });
      same([
        ...check(version, "SetLevelRequest", encodeSetLevel("warning")),
        ...check(version, "PingRequest", encodePing()),
        ...schemaErrors(
          version,
          version === "2025-06-18" ? "JSONRPCResponse" : "JSONRPCResultResponse",
          pong,
        ),
      ], []);
    }
  });

  test("notifications/cancelled validates in every version; roots/list_changed in legacy ones", () => {
    const cancelled = encodeCancelled("r-1", "user closed the tab");
    same(cancelled, {
      method: "notifications/cancelled",
      params: { requestId: "r-1", reason: "user closed the tab" },
    });
    same(encodeCancelled(4), { method: "notifications/cancelled", params: { requestId: 4 } });
    const changed = encodeRootsListChanged();
    same(changed, { method: "notifications/roots/list_changed" });
    for (const version of [...LEGACY, "2026-07-28"] as const) {
      const message = encodeNotification(cancelled.method, cancelled.params);
      same(schemaErrors(version, "CancelledNotification", message), []);
    }
    for (const version of LEGACY) {
      same(
        schemaErrors(version, "RootsListChangedNotification", encodeNotification(changed.method)),
        [],
      );
    }
  });
});
