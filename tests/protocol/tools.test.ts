import { describe, test } from "node:test";
import { decode } from "../../src/protocol/decode.ts";
import { decodeListToolsResult, SamplingToolSchema, ToolSchema } from "../../src/protocol/tools.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("decodeListToolsResult()", () => {
  test("keeps a tool's schemas exactly as sent ($ref is not followed) and unknown keys", () => {
    const tool = {
      name: "find",
      inputSchema: {
        type: "object",
        $ref: "https://evil.example/schema.json",
        properties: { q: { type: "string", "x-mcp-header": "Query" } },
      },
      outputSchema: { type: "array", items: { type: "string" } },
      execution: { taskSupport: "optional" },
      future: 1,
    };
    same(
      decodeListToolsResult({ tools: [tool], nextCursor: "n", ttlMs: 300000, cacheScope: "public" }),
      {
        ok: true,
        value: { tools: [tool], nextCursor: "n", ttlMs: 300000, cacheScope: "public" },
      },
    );
  });

  test("accepts a 2026 list without ttlMs and cacheScope (hints the client does not need)", () => {
    same(decodeListToolsResult({ resultType: "complete", tools: [] }), {
      ok: true,
      value: { resultType: "complete", tools: [] },
    });
  });

  test("refuses an input_required result for tools/list at $.resultType", () => {
    same(decodeListToolsResult({ resultType: "input_required", tools: [] }), {
      ok: false,
      path: "$.resultType",
      expected: '"complete"',
      received: '"input_required"',
      message: '$.resultType: expected "complete", received "input_required"',
    });
  });

  test("leaves out a listed tool that is not a valid tool, and keeps the others: one the client cannot read must not hide them", () => {
    const good = { name: "good", inputSchema: { type: "object" } };
    const bad = [
      { name: "t", inputSchema: { type: "string" } },
      { name: "t" },
      { inputSchema: { type: "object" } },
      { name: "t", inputSchema: { type: "object" }, icons: "x" },
      { name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } },
      { name: "t", inputSchema: { type: "object" }, execution: { taskSupport: "sometimes" } },
      "t",
    ];
    same(decodeListToolsResult({ tools: [...bad, good], nextCursor: "2" }), {
      ok: true,
      value: { tools: [good], nextCursor: "2" },
    });
  });

  test("refuses tools given as an object at $.tools", () => {
    const result = decodeListToolsResult({ tools: { a: 1 } });
    same(result, failureAt("$.tools", "Array", "Object"));
  });
});

describe("SamplingToolSchema", () => {
  test("drops unknown tool keys but keeps the input schema whole", () => {
    const tool = { name: "t", inputSchema: { type: "object", anyOf: [{ required: ["a"] }] }, extra: true };
    same(decode(SamplingToolSchema, tool), {
      ok: true,
      value: { name: "t", inputSchema: { type: "object", anyOf: [{ required: ["a"] }] } },
    });
    same(decode(ToolSchema, tool), { ok: true, value: tool });
  });
});
