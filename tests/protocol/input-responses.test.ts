import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildRetryParams } from "../../src/protocol/input-responses.ts";
import { encodeRequest, type JsonObject } from "../../src/protocol/jsonrpc.ts";
import { withRequestMeta } from "../../src/protocol/meta.ts";
import { np, same } from "../_support/exact.ts";
import { schemaErrors } from "./_official-schema.ts";

describe("buildRetryParams()", () => {
  // The first leg of a call as the modern session sends it: params with the request `_meta`.
  const meta = {
    protocolVersion: "2026-07-28",
    clientCapabilities: { elicitation: { form: {}, url: {} } },
    clientInfo: { name: "agent", version: "1.0.0" },
  } as const;
  const params = withRequestMeta(
    { name: "deploy", arguments: { env: "prod" }, _meta: { progressToken: 4 } },
    meta,
  );
  const valid = (definition: string, method: string, retry: JsonObject) =>
    schemaErrors("2026-07-28", definition, encodeRequest(1, method, retry));

  test("adds this round's answers and the exact requestState, leaving the original untouched", () => {
    const before: Record<string, unknown> = structuredClone(params);
    const inputResponses = np({
      confirm: { action: "accept" as const, content: { ok: true } },
      draft: { role: "assistant" as const, content: { type: "text" as const, text: "LGTM" }, model: "m" },
      roots: { roots: [{ uri: "file:///srv/app" }] },
    });
    const requestState = "eyJzdGVwIjoyfQ==\u2028 ";
    const retry = buildRetryParams(params, inputResponses, requestState);
    assert.notEqual(retry._meta, params._meta);
    same(retry, {
      ...before,
      inputResponses: {
        confirm: { action: "accept", content: { ok: true } },
        draft: { role: "assistant", content: { type: "text", text: "LGTM" }, model: "m" },
        roots: { roots: [{ uri: "file:///srv/app" }] },
      },
      requestState,
    });
    same(params, before);
    same(valid("CallToolRequest", "tools/call", retry), []);
  });

  test("omits empty inputResponses and an absent requestState, replacing the previous round's", () => {
    const previous = buildRetryParams(params, np({ a: { action: "cancel" as const } }), "old");
    same(buildRetryParams(previous, np({}), undefined), params);
    same(buildRetryParams(previous, undefined, "new"), { ...params, requestState: "new" });
  });

  test("builds retries of resources/read and prompts/get that validate", () => {
    const read = withRequestMeta({ uri: "file:///a.txt" }, meta);
    const prompt = withRequestMeta({ name: "review", arguments: { code: "x" } }, meta);
    const answers = np({ k: { action: "decline" as const } });
    same([
      ...valid("ReadResourceRequest", "resources/read", buildRetryParams(read, answers, "s")),
      ...valid("GetPromptRequest", "prompts/get", buildRetryParams(prompt, answers, undefined)),
    ], []);
  });
});
