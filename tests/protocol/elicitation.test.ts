import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  decodeElicitParams,
  decodeElicitResult,
  elicitationModeOf,
  encodeElicitResult,
} from "../../src/protocol/elicitation.ts";
import { encodeResult } from "../../src/protocol/jsonrpc.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";
import { schemaErrors } from "./_official-schema.ts";

const FORM = {
  message: "Your GitHub username?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};

describe("decodeElicitParams()", () => {
  test("decodes form params without mode (form) and keeps every property-schema key as sent", () => {
    const params = JSON.parse(`{
      "message": "m",
      "requestedSchema": {
        "type": "object",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "additionalProperties": false,
        "properties": {
          "nested": { "type": "object", "properties": { "a": { "type": "string" } }, "__proto__": { "x": 1 } },
          "__proto__": { "type": "string" }
        }
      }
    }`);
    const result = decodeElicitParams("2026-07-28", params);
    same(result, {
      ok: true,
      value: {
        message: "m",
        requestedSchema: {
          type: "object",
          $schema: "https://json-schema.org/draft/2020-12/schema",
          additionalProperties: false,
          properties: np({
            nested: np({ type: "object", properties: { a: { type: "string" } }, ["__proto__"]: { x: 1 } }),
            ["__proto__"]: np({ type: "string" }),
          }),
        },
      },
    });
    assert.equal(result.ok && elicitationModeOf(result.value), "form");
    assert.equal(
      result.ok && result.value.mode !== "url" &&
        Object.hasOwn(result.value.requestedSchema.properties, "__proto__"),
      true,
    );
  });

  test("refuses a property schema that is not an object at $.requestedSchema.properties.name", () => {
    const result = decodeElicitParams("2025-11-25", {
      message: "m",
      requestedSchema: { type: "object", properties: { name: "string" } },
    });
    same(result, {
      ok: false,
      path: "$.requestedSchema.properties.name",
      expected: "Object",
      received: '"string"',
      message: '$.requestedSchema.properties.name: expected Object, received "string"',
    });
  });

  test("requires elicitationId on 2025-11-25 URL params and drops it in 2026-07-28", () => {
    const url = { mode: "url", message: "Sign in", url: "https://mcp.example.com/login" };
    same(decodeElicitParams("2025-11-25", url), {
      ok: false,
      path: "$.elicitationId",
      expected: '"elicitationId"',
      received: "undefined",
      message: '$.elicitationId: expected "elicitationId", received undefined',
    });
    same(decodeElicitParams("2025-11-25", { ...url, elicitationId: "e-1", _meta: { a: 1 } }), {
      ok: true,
      value: { ...url, elicitationId: "e-1", _meta: np({ a: 1 }) },
    });
    same(decodeElicitParams("2026-07-28", { ...url, elicitationId: "e-1", _meta: { a: 1 } }), {
      ok: true,
      value: url,
    });
  });

  test("has no mode in 2025-06-18: a mode is dropped and URL params fail on requestedSchema", () => {
    same(decodeElicitParams("2025-06-18", { ...FORM, mode: "form" }), {
      ok: true,
      value: {
        message: "Your GitHub username?",
        requestedSchema: {
          type: "object",
          properties: np({ name: np({ type: "string" }) }),
          required: ["name"],
        },
      },
    });
    const url = decodeElicitParams("2025-06-18", { mode: "url", message: "m", url: "https://x" });
    same(url, failureAt("$.requestedSchema", '"requestedSchema"', "undefined"));
  });

  test("refuses an unknown mode at $.mode", () => {
    same(decodeElicitParams("2026-07-28", { ...FORM, mode: "oauth" }), {
      ok: false,
      path: "$.mode",
      expected: '("form" | "url")',
      received: '"oauth"',
      message: '$.mode: expected ("form" | "url"), received "oauth"',
    });
  });

  test("refuses a requestedSchema whose type is not object", () => {
    const result = decodeElicitParams("2026-07-28", {
      message: "m",
      requestedSchema: { type: "array", properties: {} },
    });
    same(result, failureAt("$.requestedSchema.type", '"object"', '"array"'));
  });
});

describe("decodeElicitResult()", () => {
  test("accepts multi-select string[] values from 2025-11-25 on, refuses them in 2025-06-18", () => {
    const answer = { action: "accept", content: { colors: ["Red"], age: 30, ok: true, name: "Ada" } };
    same(decodeElicitResult("2026-07-28", answer), {
      ok: true,
      value: { action: "accept", content: np({ colors: ["Red"], age: 30, ok: true, name: "Ada" }) },
    });
    same(decodeElicitResult("2025-06-18", answer), {
      ok: false,
      path: "$.content.colors",
      expected: "(string | number | boolean)",
      received: "Array",
      message: "$.content.colors: expected (string | number | boolean), received Array",
    });
  });

  test("locates a non-string inside a multi-select value at $.content.colors[1]", () => {
    const result = decodeElicitResult("2025-11-25", { action: "accept", content: { colors: ["Red", 2] } });
    same(result, failureAt("$.content.colors[1]", "string", "2"));
  });

  test("refuses an unknown action and drops _meta in 2026-07-28", () => {
    const bad = decodeElicitResult("2025-11-25", { action: "approve" });
    same(bad, failureAt("$.action", '("accept" | "decline" | "cancel")', '"approve"'));
    same(decodeElicitResult("2026-07-28", { action: "cancel", _meta: {} }), {
      ok: true,
      value: { action: "cancel" },
    });
  });
});

describe("encodeElicitResult()", () => {
  // schema.json types content scalars as string|integer|boolean (digest §3.5): integers here.
  const answer = {
    action: "accept" as const,
    content: np({ name: "Ada", age: 36, ok: true }),
    _meta: np({ t: 1 }),
  };

  test("keeps _meta in legacy answers, valid as JSON-RPC results of both versions", () => {
    for (const version of ["2025-06-18", "2025-11-25"] as const) {
      const result = encodeElicitResult(version, answer);
      same(result, {
        action: "accept",
        content: { name: "Ada", age: 36, ok: true },
        _meta: { t: 1 },
      });
      const message = encodeResult("e-1", result as never);
      same([
        ...schemaErrors(
          version,
          version === "2025-06-18" ? "JSONRPCResponse" : "JSONRPCResultResponse",
          message,
        ),
        ...schemaErrors(version, "ElicitResult", message.result),
      ], []);
    }
  });

  test("drops _meta in 2026-07-28 and validates as an inputResponses value, multi-select included", () => {
    const result = encodeElicitResult("2026-07-28", {
      action: "accept",
      content: np({ colors: ["Red", "Blue"], age: 36 }),
      _meta: np({ t: 1 }),
    });
    same(result, { action: "accept", content: { colors: ["Red", "Blue"], age: 36 } });
    same(schemaErrors("2026-07-28", "InputResponses", { github_login: result }), []);
    same(schemaErrors("2026-07-28", "ElicitResult", { action: "decline" }), []);
  });

  test("the official schema.json refuses a fractional number (the integer quirk of digest §3.5)", () => {
    assert.notDeepEqual(
      schemaErrors("2026-07-28", "ElicitResult", { action: "accept", content: { n: 3.5 } }),
      [],
    );
    same(decodeElicitResult("2026-07-28", { action: "accept", content: { n: 3.5 } }), {
      ok: true,
      value: { action: "accept", content: np({ n: 3.5 }) },
    });
  });
});
