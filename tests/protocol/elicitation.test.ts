import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeElicitParams, elicitationModeOf } from "../../src/protocol/elicitation.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

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
      expected: "a value (required)",
      received: "undefined",
      message: "$.elicitationId: expected a value (required), received undefined",
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

  test("has no mode in 2025-06-18: a form mode is dropped, and URL params fail on their mode, naming the version that has it", () => {
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
    same(url, failureAt("$.mode", 'form mode only (URL mode came with "2025-11-25")', '"url"'));
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
