import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decode } from "../../src/protocol/decode.ts";
import { decodeInputRequest, InputRequestsSchema } from "../../src/protocol/input-request.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const SAMPLING = { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 };

describe("decodeInputRequest()", () => {
  test("decodes a legacy sampling request's params into the era-neutral shape", () => {
    same(
      decodeInputRequest("2025-11-25", "sampling/createMessage", { ...SAMPLING, _meta: { a: 1 } }),
      {
        ok: true,
        value: { method: "sampling/createMessage", params: { ...SAMPLING, _meta: np({ a: 1 }) } },
      },
    );
  });

  test("refuses an unknown method at $.method", () => {
    same(decodeInputRequest("2026-07-28", "tools/call", {}), {
      ok: false,
      path: "$.method",
      expected: '("sampling/createMessage" | "elicitation/create" | "roots/list")',
      received: '"tools/call"',
      message:
        '$.method: expected ("sampling/createMessage" | "elicitation/create" | "roots/list"), received "tools/call"',
    });
  });

  test("locates a params failure under $.params", () => {
    same(
      decodeInputRequest("2025-06-18", "sampling/createMessage", { messages: [], maxTokens: "10" }),
      {
        ok: false,
        path: "$.params.maxTokens",
        expected: "number",
        received: '"10"',
        message: '$.params.maxTokens: expected number, received "10"',
      },
    );
  });

  test("requires params for sampling and elicitation but not for roots/list", () => {
    const missing = decodeInputRequest("2025-11-25", "elicitation/create", undefined);
    same(missing, failureAt("$.params", "Object", "undefined"));
    same(decodeInputRequest("2025-06-18", "roots/list", undefined), {
      ok: true,
      value: { method: "roots/list", params: {} },
    });
  });

  test("decodes 2026 URL elicitation without elicitationId", () => {
    const params = { mode: "url", message: "Sign in", url: "https://example.com/a" };
    same(decodeInputRequest("2026-07-28", "elicitation/create", params), {
      ok: true,
      value: { method: "elicitation/create", params },
    });
  });
});

// `inputRequests` as a modern result and a task decode them.
describe("InputRequestsSchema", () => {
  const decodeInputRequests = (value: unknown) => decode(InputRequestsSchema, value);

  test("keeps a __proto__ key as an ordinary own key of a prototype-free map", () => {
    const result = decodeInputRequests(JSON.parse(`{
      "__proto__": { "method": "roots/list" },
      "constructor": { "method": "sampling/createMessage", "params": ${JSON.stringify(SAMPLING)} }
    }`));
    same(result, {
      ok: true,
      value: np({
        ["__proto__"]: { method: "roots/list", params: {} },
        constructor: { method: "sampling/createMessage", params: SAMPLING },
      }),
    });
    assert.equal(result.ok && Object.hasOwn(result.value, "__proto__"), true);
    assert.equal(result.ok && Object.getPrototypeOf(result.value), null);
    assert.equal(({} as { method?: unknown }).method, undefined);
  });

  test("locates an unknown method of one entry at $.github_login.method", () => {
    same(decodeInputRequests({ github_login: { method: "tools/list", params: {} } }), {
      ok: false,
      path: "$.github_login.method",
      expected: '("sampling/createMessage" | "elicitation/create" | "roots/list")',
      received: '"tools/list"',
      message:
        '$.github_login.method: expected ("sampling/createMessage" | "elicitation/create" | "roots/list"), received "tools/list"',
    });
  });

  test("locates a deep failure of an entry with a non-identifier key", () => {
    const result = decodeInputRequests({
      "a b": { method: "elicitation/create", params: { message: "m", requestedSchema: { type: "object" } } },
    });
    same(
      result,
      failureAt('$["a b"].params.requestedSchema.properties', "a value (required)", "undefined"),
    );
  });

  test("refuses an array entry and an array map", () => {
    const entry = decodeInputRequests({ k: [] });
    same(entry, failureAt("$.k", "Object", "Array"));
    same(decodeInputRequests([]), {
      ok: false,
      path: "$",
      expected: "Object",
      received: "Array",
      message: "$: expected Object, received Array",
    });
  });
});
