import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeRequestMeta, MetaKey, type RequestMeta, withRequestMeta } from "../../src/protocol/meta.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";
import { schemaErrors } from "./_official-schema.ts";

const META: RequestMeta = {
  protocolVersion: "2026-07-28",
  clientCapabilities: { roots: { listChanged: true }, tasks: {}, elicitation: { form: {} } },
  clientInfo: { name: "agent", version: "1.0.0" },
};

describe("withRequestMeta()", () => {
  test("keeps the caller's progressToken and never lets it override the reserved keys", () => {
    const params = {
      name: "echo",
      arguments: { text: "hi" },
      _meta: {
        progressToken: "p-1",
        traceparent: "00-abc-def-01",
        [MetaKey.protocolVersion]: "1900-01-01",
        [MetaKey.clientCapabilities]: { sampling: {} },
        [MetaKey.clientInfo]: { name: "evil", version: "0" },
        [MetaKey.logLevel]: "debug",
      },
    };
    const before = structuredClone(params);
    const out = withRequestMeta(params, META);
    same(out, {
      name: "echo",
      arguments: { text: "hi" },
      _meta: {
        progressToken: "p-1",
        traceparent: "00-abc-def-01",
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { roots: {}, elicitation: { form: {} } },
        "io.modelcontextprotocol/clientInfo": { name: "agent", version: "1.0.0" },
      },
    });
    same(params, before);
    assert.notEqual(out, params);
    assert.notEqual(out._meta, params._meta);
    same(schemaErrors("2026-07-28", "CallToolRequestParams", out), []);
  });

  test("adds the log level from the metadata and builds params when there were none", () => {
    const out = withRequestMeta(undefined, { ...META, clientCapabilities: {}, logLevel: "warning" });
    same(out, {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "agent", version: "1.0.0" },
        "io.modelcontextprotocol/logLevel": "warning",
      },
    });
    same(schemaErrors("2026-07-28", "RequestParams", out), []);
  });

  test("copies a caller's __proto__ _meta key as an ordinary own key", () => {
    const params = JSON.parse('{"_meta": {"__proto__": {"polluted": true}}}') as { _meta: object };
    const out = withRequestMeta(params, META);
    const meta = out._meta as Record<string, unknown>;
    assert.equal(Object.hasOwn(meta, "__proto__"), true);
    assert.equal(Object.getPrototypeOf(meta), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("decodeRequestMeta()", () => {
  test("decodes the official example's _meta, keeping every key in a prototype-free map", () => {
    const result = decodeRequestMeta(JSON.parse(`{
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": { "roots": { "listChanged": true } },
      "progressToken": 7,
      "__proto__": { "x": 1 }
    }`));
    same(result, {
      ok: true,
      value: np({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "ExampleClient", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": { roots: {} },
        progressToken: 7,
        ["__proto__"]: { x: 1 },
      }),
    });
  });

  test("refuses a _meta without the protocol version, naming the key path", () => {
    same(decodeRequestMeta({ [MetaKey.clientCapabilities]: {} }), {
      ok: false,
      path: '$["io.modelcontextprotocol/protocolVersion"]',
      expected: "a value (required)",
      received: "undefined",
      message:
        '$["io.modelcontextprotocol/protocolVersion"]: expected a value (required), received undefined',
    });
  });

  test("refuses a _meta without client capabilities, naming the key path", () => {
    same(decodeRequestMeta({ [MetaKey.protocolVersion]: "2026-07-28" }), {
      ok: false,
      path: '$["io.modelcontextprotocol/clientCapabilities"]',
      expected: "a value (required)",
      received: "undefined",
      message:
        '$["io.modelcontextprotocol/clientCapabilities"]: expected a value (required), received undefined',
    });
  });

  test("locates an array where a capability object is expected inside the capabilities", () => {
    const result = decodeRequestMeta({
      [MetaKey.protocolVersion]: "2026-07-28",
      [MetaKey.clientCapabilities]: { elicitation: [] },
    });
    same(result, {
      ok: false,
      path: '$["io.modelcontextprotocol/clientCapabilities"].elicitation',
      expected: "Object",
      received: "Array",
      message: '$["io.modelcontextprotocol/clientCapabilities"].elicitation: expected Object, received Array',
    });
  });

  test("refuses an unknown log level and a fractional progress token", () => {
    const base = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    const level = decodeRequestMeta({ ...base, [MetaKey.logLevel]: "verbose" });
    same(
      level,
      failureAt(
        '$["io.modelcontextprotocol/logLevel"]',
        '("debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency")',
        '"verbose"',
      ),
    );
    const token = decodeRequestMeta({ ...base, progressToken: 1.5 });
    same(token, failureAt("$.progressToken", "a safe integer", "1.5"));
  });

  test("refuses an array as _meta at $", () => {
    same(decodeRequestMeta([]), {
      ok: false,
      path: "$",
      expected: "Object",
      received: "Array",
      message: "$: expected Object, received Array",
    });
  });
});
