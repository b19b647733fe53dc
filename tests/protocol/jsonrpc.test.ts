import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createRequestIds,
  decodeMessage,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  isNotification,
  isRequest,
  isResponse,
  parseMessage,
} from "../../src/protocol/jsonrpc.ts";
import { schemaErrors } from "./_official-schema.ts";

describe("decodeMessage()", () => {
  test("decodes a request with a string id and object params", () => {
    assert.deepEqual(decodeMessage({ jsonrpc: "2.0", id: "a-1", method: "ping", params: { x: 1 } }), {
      ok: true,
      value: { jsonrpc: "2.0", id: "a-1", method: "ping", params: { x: 1 } },
    });
  });

  test("refuses a batch array at $", () => {
    assert.deepEqual(decodeMessage([{ jsonrpc: "2.0", method: "ping" }]), {
      ok: false,
      path: "$",
      expected: "a single JSON-RPC message (batches are not supported)",
      received: "an array",
      message: "$: expected a single JSON-RPC message (batches are not supported), received an array",
    });
  });

  test("refuses a null request id at $.id", () => {
    const result = decodeMessage({ jsonrpc: "2.0", id: null, method: "tools/call" });
    assert.equal(result.ok, false);
    assert.equal(result.ok ? "" : result.path, "$.id");
  });

  test("refuses a fractional request id at $.id", () => {
    const result = decodeMessage({ jsonrpc: "2.0", id: 1.5, method: "tools/call" });
    assert.deepEqual(result.ok ? null : [result.path, result.received], ["$.id", "1.5"]);
  });

  test("refuses params that are an array at $.params", () => {
    const result = decodeMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: [1] });
    assert.deepEqual(result.ok ? null : [result.path, result.expected], ["$.params", "Object"]);
  });

  test("refuses a wrong jsonrpc version at $.jsonrpc", () => {
    const result = decodeMessage({ jsonrpc: "1.0", method: "x" });
    assert.deepEqual(result.ok ? null : [result.path, result.expected, result.received], [
      "$.jsonrpc",
      '"2.0"',
      '"1.0"',
    ]);
  });

  test("refuses a message with both result and error", () => {
    const result = decodeMessage({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } });
    assert.deepEqual(result.ok ? null : [result.path, result.received], ["$", "both result and error"]);
  });

  test("gives an error response without id the id null", () => {
    assert.deepEqual(decodeMessage({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }), {
      ok: true,
      value: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
    });
  });

  test("locates a bad error code at $.error.code", () => {
    const result = decodeMessage({ jsonrpc: "2.0", id: 3, error: { code: "x", message: "m" } });
    assert.deepEqual(result.ok ? null : [result.path, result.expected, result.received], [
      "$.error.code",
      "number",
      '"x"',
    ]);
  });

  test("classifies requests, notifications and responses", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "a" } as const;
    const notification = { jsonrpc: "2.0", method: "b" } as const;
    const response = { jsonrpc: "2.0", id: 1, result: {} } as const;
    assert.deepEqual([isRequest(request), isNotification(request), isResponse(request)], [
      true,
      false,
      false,
    ]);
    assert.deepEqual([isRequest(notification), isNotification(notification), isResponse(notification)], [
      false,
      true,
      false,
    ]);
    assert.deepEqual([isRequest(response), isNotification(response), isResponse(response)], [
      false,
      false,
      true,
    ]);
  });
});

describe("parseMessage()", () => {
  test("reports text that is not JSON at $", () => {
    assert.deepEqual(parseMessage("{nope"), {
      ok: false,
      path: "$",
      expected: "JSON text",
      received: "text that is not JSON (5 characters)",
      message: "$: expected JSON text, received text that is not JSON (5 characters)",
    });
  });
});

describe("encoders", () => {
  test("encodeRequest() copies params and never returns the caller's object", () => {
    const params = { name: "t" };
    const message = encodeRequest(7, "tools/call", params);
    assert.deepEqual(message, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "t" } });
    assert.notEqual(message.params, params);
  });

  test("encodeNotification(), encodeResult() and encodeError() build exact messages", () => {
    assert.deepEqual(encodeNotification("notifications/initialized"), {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    assert.deepEqual(encodeResult("x", { ok: 1 }), { jsonrpc: "2.0", id: "x", result: { ok: 1 } });
    // Unidentified: no id, as 2025-11-25 and 2026-07-28 have it (neither allows null).
    assert.deepEqual(encodeError(null, { code: -32603, message: "Internal error", data: undefined }), {
      jsonrpc: "2.0",
      error: { code: -32603, message: "Internal error" },
    });
    assert.deepEqual(encodeError(7, { code: -32602, message: "Invalid params" }), {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32602, message: "Invalid params" },
    });
  });

  test("an error about an unidentified request fits the 2025-11-25 and 2026-07-28 schemas", () => {
    const error = encodeError(null, { code: -32700, message: "Parse error: expected JSON text" });
    assert.deepEqual(
      (["2025-11-25", "2026-07-28"] as const).flatMap((version) =>
        schemaErrors(version, "JSONRPCErrorResponse", error)
      ),
      [],
    );
  });

  test("createRequestIds() yields fresh ids per source", () => {
    const a = createRequestIds();
    const b = createRequestIds();
    assert.deepEqual([a(), a(), a(), b()], [1, 2, 3, 1]);
  });
});
