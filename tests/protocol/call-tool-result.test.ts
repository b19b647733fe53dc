import { describe, test } from "node:test";
import { decodeCallToolResult } from "../../src/protocol/call-tool-result.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("decodeCallToolResult()", () => {
  test("keeps unknown keys and any structuredContent (2026 allows arrays)", () => {
    const result = { content: [], structuredContent: [1, "a"], isError: false, "com.example/trace": "t" };
    same(decodeCallToolResult(result), { ok: true, value: result });
  });

  test("locates a bad block at $.content[0].type", () => {
    same(decodeCallToolResult({ content: [{ type: "video", url: "x" }] }), {
      ok: false,
      path: "$.content[0].type",
      expected: '("text" | "image" | "audio" | "resource_link" | "resource")',
      received: '"video"',
      message:
        '$.content[0].type: expected ("text" | "image" | "audio" | "resource_link" | "resource"), received "video"',
    });
  });

  test("requires content, naming the key", () => {
    const result = decodeCallToolResult({ structuredContent: {} });
    same(result, failureAt("$.content", "a value (required)", "undefined"));
  });
});
