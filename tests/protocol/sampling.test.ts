import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeCreateMessageParams, decodeCreateMessageResult } from "../../src/protocol/sampling.ts";
import { schemaErrors } from "./_official-schema.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const TOOL_USE = { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } };

describe("decodeCreateMessageParams()", () => {
  test("refuses a tool_use block in a 2025-06-18 request at $.messages[0].content.type", () => {
    const params = { messages: [{ role: "assistant", content: TOOL_USE }], maxTokens: 100 };
    same(decodeCreateMessageParams("2025-06-18", params), {
      ok: false,
      path: "$.messages[0].content.type",
      expected: '("text" | "image" | "audio")',
      received: '"tool_use"',
      message: '$.messages[0].content.type: expected ("text" | "image" | "audio"), received "tool_use"',
    });
  });

  test("refuses an array of blocks in a 2025-06-18 request at $.messages[0].content", () => {
    const params = { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], maxTokens: 100 };
    same(decodeCreateMessageParams("2025-06-18", params), {
      ok: false,
      path: "$.messages[0].content",
      expected: "Object",
      received: "Array",
      message: "$.messages[0].content: expected Object, received Array",
    });
  });

  test("decodes a 2025-11-25 tool loop with tools, toolChoice, task and _meta, dropping unknown keys", () => {
    const params = {
      messages: [
        { role: "user", content: { type: "text", text: "Weather in Paris?" } },
        { role: "assistant", content: [TOOL_USE], _meta: { cache: "k" } },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "18°C" }] }],
        },
      ],
      maxTokens: 1000,
      tools: [{
        name: "get_weather",
        inputSchema: { type: "object", $defs: { x: {} }, properties: {} },
        extra: 1,
      }],
      toolChoice: { mode: "auto" },
      task: { ttl: 60000 },
      _meta: { progressToken: "p" },
      unknownField: true,
    };
    same(decodeCreateMessageParams("2025-11-25", params), {
      ok: true,
      value: {
        messages: [
          { role: "user", content: { type: "text", text: "Weather in Paris?" } },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: np({ city: "Paris" }) }],
            _meta: np({ cache: "k" }),
          },
          {
            role: "user",
            content: [{
              type: "tool_result",
              toolUseId: "call_1",
              content: [{ type: "text", text: "18°C" }],
            }],
          },
        ],
        maxTokens: 1000,
        tools: [{ name: "get_weather", inputSchema: { type: "object", $defs: { x: {} }, properties: {} } }],
        toolChoice: { mode: "auto" },
        task: { ttl: 60000 },
        _meta: np({ progressToken: "p" }),
      },
    });
  });

  test("drops task and _meta in 2026-07-28 and tools in 2025-06-18", () => {
    const params = {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 10,
      tools: [],
      task: { ttl: 1 },
      _meta: { progressToken: 1 },
    };
    same(decodeCreateMessageParams("2026-07-28", params), {
      ok: true,
      value: {
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        maxTokens: 10,
        tools: [],
      },
    });
    same(decodeCreateMessageParams("2025-06-18", params), {
      ok: true,
      value: {
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        maxTokens: 10,
        _meta: np({ progressToken: 1 }),
      },
    });
  });

  test("accepts any JSON number as maxTokens (the checks judge it) but refuses a string", () => {
    const base = { messages: [] };
    for (const maxTokens of [-5, 0, 1.5, 1e12]) {
      const result = decodeCreateMessageParams("2026-07-28", { ...base, maxTokens });
      same(result, { ok: true, value: { messages: [], maxTokens } });
    }
    same(decodeCreateMessageParams("2026-07-28", { ...base, maxTokens: "100" }), {
      ok: false,
      path: "$.maxTokens",
      expected: "number",
      received: '"100"',
      message: '$.maxTokens: expected number, received "100"',
    });
  });

  test("refuses a missing maxTokens, naming the key", () => {
    same(decodeCreateMessageParams("2025-11-25", { messages: [] }), {
      ok: false,
      path: "$.maxTokens",
      expected: "a value (required)",
      received: "undefined",
      message: "$.maxTokens: expected a value (required), received undefined",
    });
  });

  test("refuses a model priority outside 0..1 and keeps unknown hint keys", () => {
    const result = decodeCreateMessageParams("2026-07-28", {
      messages: [],
      maxTokens: 1,
      modelPreferences: { hints: [{ name: "claude", vendor: "x" }], costPriority: 1.5 },
    });
    same(result, {
      ok: false,
      path: "$.modelPreferences.costPriority",
      expected: "<=1",
      received: "1.5",
      message: "$.modelPreferences.costPriority: expected <=1, received 1.5",
    });
    const hints = decodeCreateMessageParams("2026-07-28", {
      messages: [],
      maxTokens: 1,
      modelPreferences: { hints: [{ name: "claude", vendor: "x" }], intelligencePriority: 0.8 },
    });
    same(hints.ok && hints.value.modelPreferences, {
      hints: [{ name: "claude", vendor: "x" }],
      intelligencePriority: 0.8,
    });
  });

  test("keeps a __proto__ metadata key as an ordinary own key", () => {
    const result = decodeCreateMessageParams(
      "2026-07-28",
      JSON.parse('{"messages":[],"maxTokens":1,"metadata":{"__proto__":{"admin":true}}}'),
    );
    assert.equal(result.ok && Object.hasOwn(result.value.metadata ?? {}, "__proto__"), true);
    assert.equal(result.ok && Object.getPrototypeOf(result.value.metadata), null);
  });

  test("refuses params that are an array at $", () => {
    const result = decodeCreateMessageParams("2026-07-28", []);
    same(result, failureAt("$", "Object", "Array"));
  });
});

describe("decodeCreateMessageResult()", () => {
  test("drops a resultType in 2026-07-28 and refuses a tool_use answer in 2025-06-18", () => {
    const answer = {
      role: "assistant",
      content: [TOOL_USE],
      model: "m",
      stopReason: "toolUse",
      resultType: "x",
    };
    same(decodeCreateMessageResult("2026-07-28", answer), {
      ok: true,
      value: {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: np({ city: "Paris" }) }],
        model: "m",
        stopReason: "toolUse",
      },
    });
    same(decodeCreateMessageResult("2025-06-18", { ...answer, content: TOOL_USE }), {
      ok: false,
      path: "$.content.type",
      expected: '("text" | "image" | "audio")',
      received: '"tool_use"',
      message: '$.content.type: expected ("text" | "image" | "audio"), received "tool_use"',
    });
  });

  test("reads a 2025-06-18 answer whose content is one block in an array as that block, which fits that version's schema; two blocks are refused", () => {
    const text = { type: "text", text: "hi" };
    const answer = { role: "assistant", model: "m", content: [text] };
    const read = decodeCreateMessageResult("2025-06-18", answer);
    same(read, { ok: true, value: { role: "assistant", model: "m", content: text } });
    assert.deepEqual(schemaErrors("2025-06-18", "CreateMessageResult", read.ok ? read.value : undefined), []);
    same(decodeCreateMessageResult("2025-06-18", { ...answer, content: [text, text] }), {
      ok: false,
      path: "$.content",
      expected: 'one content block (a list of blocks came with "2025-11-25")',
      received: "2 in a list",
      message:
        '$.content: expected one content block (a list of blocks came with "2025-11-25"), received 2 in a list',
    });
    same(decodeCreateMessageResult("2025-06-18", { ...answer, content: [] }), {
      ok: false,
      path: "$.content",
      expected: 'one content block (a list of blocks came with "2025-11-25")',
      received: "none",
      message:
        '$.content: expected one content block (a list of blocks came with "2025-11-25"), received none',
    });
    // An answer that throws when read is a failure, never a throw, with its content in a list too.
    const throwing = {
      role: "assistant",
      content: [text],
      get model(): string {
        throw new Error("boom");
      },
    };
    same(decodeCreateMessageResult("2025-06-18", throwing), {
      ok: false,
      path: "$",
      expected: "a JSON value",
      received: "a value that threw Error when read",
      message: "$: expected a JSON value, received a value that threw Error when read",
    });
    // Later versions keep the array as it is.
    same(decodeCreateMessageResult("2025-11-25", answer), { ok: true, value: answer });
  });

  test("holds an answer to the schema's formats and ranges, which the official schema refuses too, and a server's request not", () => {
    const answer = (content: unknown) => ({ role: "assistant", model: "m", content });
    const inResult = (block: unknown) => [{ type: "tool_result", toolUseId: "t", content: [block] }];
    const cases: [string, unknown][] = [
      ["a priority of 5", answer({ type: "text", text: "x", annotations: { priority: 5 } })],
      ["image data not base64", answer({ type: "image", data: "!!notb64", mimeType: "image/png" })],
      ["a link's uri not a URI", answer(inResult({ type: "resource_link", uri: "not a uri", name: "n" }))],
      [
        "an embedded resource's uri not a URI",
        answer(inResult({ type: "resource", resource: { uri: "::", text: "t" } })),
      ],
      [
        "a link's size of 1.5",
        answer(inResult({ type: "resource_link", uri: "https://a.example/x", name: "n", size: 1.5 })),
      ],
      ["a priority of 1", answer({ type: "text", text: "x", annotations: { priority: 1 } })],
      ["image data in base64", answer({ type: "audio", data: "aGVsbG8=", mimeType: "audio/wav" })],
      [
        "a link to a URN",
        answer(inResult({ type: "resource_link", uri: "urn:isbn:0451450523", name: "n", size: 3 })),
      ],
    ];
    same(
      cases.map(([name, value]) => {
        const decoded = decodeCreateMessageResult("2025-11-25", value);
        return [
          name,
          decoded.ok ? "ok" : decoded.message,
          schemaErrors("2025-11-25", "CreateMessageResult", value).length > 0,
        ];
      }),
      [
        ["a priority of 5", "$.content.annotations.priority: expected <=1, received 5", true],
        // The schema's `format: "byte"` (base64), which the validator of these tests does not check.
        ["image data not base64", '$.content.data: expected base64 text, received "!!notb64"', false],
        [
          "a link's uri not a URI",
          '$.content[0].content[0].uri: expected an absolute URI, received "not a uri"',
          true,
        ],
        [
          "an embedded resource's uri not a URI",
          '$.content[0].content[0].resource.uri: expected an absolute URI, received "::"',
          true,
        ],
        ["a link's size of 1.5", "$.content[0].content[0].size: expected a safe integer, received 1.5", true],
        ["a priority of 1", "ok", false],
        ["image data in base64", "ok", false],
        ["a link to a URN", "ok", false],
      ],
    );
    // What a server sends is read as before: a handler sees its request.
    const request = decodeCreateMessageParams("2025-11-25", {
      maxTokens: 10,
      messages: [{
        role: "user",
        content: { type: "image", data: "!!notb64", mimeType: "image/png", annotations: { priority: 5 } },
      }],
    });
    assert.equal(request.ok, true);
  });

  test("shows a long string it refuses cut short", () => {
    const result = decodeCreateMessageResult("2025-11-25", {
      role: "assistant",
      model: "m",
      content: { type: "image", data: "%".repeat(1_000_000), mimeType: "image/png" },
    });
    same(
      result.ok ? undefined : result.message,
      `$.content.data: expected base64 text, received "${"%".repeat(96)}…"`,
    );
  });

  test("locates a bad block inside an array answer at $.content[1].id", () => {
    const result = decodeCreateMessageResult("2025-11-25", {
      role: "assistant",
      content: [TOOL_USE, { ...TOOL_USE, id: 7 }],
      model: "m",
    });
    same(result, failureAt("$.content[1].id", "string", "7"));
  });
});
