import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { encodeNotification, encodeRequest } from "../../src/protocol/jsonrpc.ts";
import {
  decodeInitializeResult,
  encodeInitializeParams,
  INITIALIZED_NOTIFICATION,
} from "../../src/protocol/lifecycle.ts";
import type { Implementation } from "../../src/protocol/meta.ts";
import { schemaErrors } from "./_official-schema.ts";
import { same } from "../_support/exact.ts";

const INFO: Implementation = {
  name: "agent",
  version: "1.0.0",
  title: "Agent",
  description: "An agent",
  websiteUrl: "https://example.com",
  icons: [{ src: "https://example.com/i.png" }],
};

describe("encodeInitializeParams()", () => {
  test("keeps every clientInfo field in 2025-11-25 and validates against its schema", () => {
    const params = encodeInitializeParams("2025-11-25", {
      elicitation: { form: {}, url: {} },
      extensions: {},
    }, INFO);
    same(params, {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {}, url: {} } },
      clientInfo: INFO,
    });
    assert.notEqual(params.clientInfo, INFO);
    same(
      schemaErrors("2025-11-25", "InitializeRequest", encodeRequest(0, "initialize", params as never)),
      [],
    );
  });

  test("reduces clientInfo and capabilities to 2025-06-18 and validates against its schema", () => {
    const params = encodeInitializeParams("2025-06-18", {
      sampling: { tools: {} },
      roots: { listChanged: true },
    }, INFO);
    same(params, {
      protocolVersion: "2025-06-18",
      capabilities: { sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: "agent", version: "1.0.0", title: "Agent" },
    });
    const message = encodeRequest(0, "initialize", params as never);
    same([
      ...schemaErrors("2025-06-18", "JSONRPCRequest", message),
      ...schemaErrors("2025-06-18", "InitializeRequest", message),
    ], []);
  });

  test("notifications/initialized validates in both legacy versions", () => {
    const message = encodeNotification(INITIALIZED_NOTIFICATION);
    same(message, { jsonrpc: "2.0", method: "notifications/initialized" });
    same([
      ...schemaErrors("2025-06-18", "InitializedNotification", message),
      ...schemaErrors("2025-11-25", "InitializedNotification", message),
    ], []);
  });
});

describe("decodeInitializeResult()", () => {
  test("decodes the server's answer and keeps unknown keys", () => {
    const result = {
      protocolVersion: "2025-06-18",
      capabilities: { logging: {}, tools: { listChanged: true } },
      serverInfo: { name: "S", version: "1" },
      instructions: "Be nice",
      extra: 1,
    };
    same(decodeInitializeResult(result), { ok: true, value: result });
  });

  test("locates a missing serverInfo version at $.serverInfo.version", () => {
    const result = decodeInitializeResult({
      protocolVersion: "x",
      capabilities: {},
      serverInfo: { name: "S" },
    });
    same(result, {
      ok: false,
      path: "$.serverInfo.version",
      expected: "a value (required)",
      received: "undefined",
      message: "$.serverInfo.version: expected a value (required), received undefined",
    });
  });
});
