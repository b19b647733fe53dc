import { describe, test } from "node:test";
import { decodeGetPromptResult, decodeListPromptsResult } from "../../src/protocol/prompts.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("prompts", () => {
  test("decodeGetPromptResult() decodes messages with embedded resources", () => {
    const result = {
      description: "d",
      messages: [{ role: "user", content: { type: "resource", resource: { uri: "file:///a", text: "x" } } }],
    };
    same(decodeGetPromptResult(result), { ok: true, value: result });
  });

  test("decodeGetPromptResult() refuses a message content array at $.messages[0].content", () => {
    const result = decodeGetPromptResult({ messages: [{ role: "user", content: [] }] });
    same(result, failureAt("$.messages[0].content", "Object", "Array"));
  });

  test("decodeListPromptsResult() locates a bad argument flag at $.prompts[0].arguments[0].required", () => {
    const result = decodeListPromptsResult({
      prompts: [{ name: "p", arguments: [{ name: "a", required: "yes" }] }],
    });
    same(result, failureAt("$.prompts[0].arguments[0].required", "boolean", '"yes"'));
  });
});
