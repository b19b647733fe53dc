import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decode } from "../../src/protocol/decode.ts";
import {
  BasicContentBlockSchema,
  ContentBlockSchema,
  ResourceContentsSchema,
  SamplingContentBlockSchema,
} from "../../src/protocol/content.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("ContentBlockSchema", () => {
  test("keeps unknown keys of a result block (results are forwarded untouched)", () => {
    same(decode(ContentBlockSchema, { type: "text", text: "hi", future: { x: 1 } }), {
      ok: true,
      value: { type: "text", text: "hi", future: { x: 1 } },
    });
  });

  test("refuses an unknown block type at $.type, listing the known ones", () => {
    same(decode(ContentBlockSchema, { type: "tool_use", id: "a", name: "b", input: {} }), {
      ok: false,
      path: "$.type",
      expected: '("text" | "image" | "audio" | "resource_link" | "resource")',
      received: '"tool_use"',
      message:
        '$.type: expected ("text" | "image" | "audio" | "resource_link" | "resource"), received "tool_use"',
    });
  });

  test("refuses an array where a block is expected at $", () => {
    same(decode(ContentBlockSchema, [{ type: "text", text: "x" }]), {
      ok: false,
      path: "$",
      expected: "Object",
      received: "Array",
      message: "$: expected Object, received Array",
    });
  });

  test("locates a wrong type deep inside an embedded resource at $.resource.text", () => {
    same(
      decode(ContentBlockSchema, { type: "resource", resource: { uri: "file:///a", text: 5 } }),
      {
        ok: false,
        path: "$.resource.text",
        expected: "string",
        received: "5",
        message: "$.resource.text: expected string, received 5",
      },
    );
  });

  test("decodes a blob resource and refuses contents that are neither text nor blob", () => {
    same(decode(ResourceContentsSchema, { uri: "file:///a.png", blob: "AA==" }), {
      ok: true,
      value: { uri: "file:///a.png", blob: "AA==" },
    });
    const neither = decode(ResourceContentsSchema, { uri: "file:///a" });
    same(neither, failureAt("$.blob", "a value (required)", "undefined"));
  });
});

describe("SamplingContentBlockSchema", () => {
  test("drops unknown keys, keeps tool_use input keys (even __proto__) in a prototype-free map", () => {
    const input = JSON.parse('{"type":"tool_use","id":"c1","name":"w","input":{"__proto__":{"a":1}},"x":1}');
    const result = decode(SamplingContentBlockSchema, input);
    same(result, {
      ok: true,
      value: { type: "tool_use", id: "c1", name: "w", input: np({ ["__proto__"]: { a: 1 } }) },
    });
    assert.equal(
      result.ok && Object.hasOwn(result.value.type === "tool_use" ? result.value.input : {}, "__proto__"),
      true,
    );
  });

  test("decodes a tool_result whose content blocks are strict too", () => {
    same(
      decode(SamplingContentBlockSchema, {
        type: "tool_result",
        toolUseId: "c1",
        content: [{ type: "text", text: "18°C", extra: true }],
        structuredContent: [1, 2],
        isError: false,
      }),
      {
        ok: true,
        value: {
          type: "tool_result",
          toolUseId: "c1",
          content: [{ type: "text", text: "18°C" }],
          structuredContent: [1, 2],
          isError: false,
        },
      },
    );
  });

  test("locates a bad block inside a tool_result at $.content[0].type", () => {
    const result = decode(SamplingContentBlockSchema, {
      type: "tool_result",
      toolUseId: "c",
      content: [{ type: "x" }],
    });
    same(
      result,
      failureAt("$.content[0].type", '("text" | "image" | "audio" | "resource_link" | "resource")', '"x"'),
    );
  });
});

describe("BasicContentBlockSchema", () => {
  test("refuses a tool_result (2025-06-18 has only text, image and audio)", () => {
    same(decode(BasicContentBlockSchema, { type: "tool_result", toolUseId: "c", content: [] }), {
      ok: false,
      path: "$.type",
      expected: '("text" | "image" | "audio")',
      received: '"tool_result"',
      message: '$.type: expected ("text" | "image" | "audio"), received "tool_result"',
    });
  });
});
