import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { encodeElicitResult } from "../../src/protocol/elicitation.ts";
import { decodeInputRequests } from "../../src/protocol/input-request.ts";
import {
  buildRetryParams,
  decodeInputResponse,
  decodeInputResponses,
} from "../../src/protocol/input-responses.ts";
import { encodeRequest, type JsonObject } from "../../src/protocol/jsonrpc.ts";
import { withRequestMeta } from "../../src/protocol/meta.ts";
import { encodeListRootsResult } from "../../src/protocol/roots.ts";
import { encodeCreateMessageResult } from "../../src/protocol/sampling.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";
import { schemaErrors } from "./_official-schema.ts";

const requests = decodeInputRequests({
  login: {
    method: "elicitation/create",
    params: { message: "m", requestedSchema: { type: "object", properties: {} } },
  },
  "the roots": { method: "roots/list" },
});
if (!requests.ok) throw new Error(requests.message);

describe("decodeInputResponse()", () => {
  test("decodes by the method answered, dropping unknown keys", () => {
    same(decodeInputResponse("roots/list", { roots: [], _meta: {}, resultType: "complete" }), {
      ok: true,
      value: { roots: [] },
    });
    const bad = decodeInputResponse("sampling/createMessage", {
      role: "assistant",
      content: { type: "text", text: "x" },
    });
    same(bad, failureAt("$.model", '"model"', "undefined"));
  });
});

describe("decodeInputResponses()", () => {
  test("decodes answers against their requests and leaves out keys that answer nothing", () => {
    same(
      decodeInputResponses(requests.value, {
        login: { action: "accept", content: { name: "ada" } },
        "the roots": { roots: [{ uri: "file:///w" }] },
        stray: { anything: true },
      }),
      {
        ok: true,
        value: np({
          login: { action: "accept", content: np({ name: "ada" }) },
          "the roots": { roots: [{ uri: "file:///w" }] },
        }),
      },
    );
  });

  test('locates a bad answer at $.login.action and at $["the roots"].roots', () => {
    const login = decodeInputResponses(requests.value, { login: { action: "ok" } });
    same(login, failureAt("$.login.action", '("accept" | "decline" | "cancel")', '"ok"'));
    same(decodeInputResponses(requests.value, { "the roots": { roots: {} } }), {
      ok: false,
      path: '$["the roots"].roots',
      expected: "Array",
      received: "Object",
      message: '$["the roots"].roots: expected Array, received Object',
    });
  });

  test("refuses an array as the map", () => {
    const result = decodeInputResponses(requests.value, []);
    same(result, failureAt("$", "Object", "Array"));
  });
});

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
      confirm: encodeElicitResult("2026-07-28", { action: "accept", content: np({ ok: true }) }),
      draft: encodeCreateMessageResult("2026-07-28", {
        role: "assistant",
        content: { type: "text", text: "LGTM" },
        model: "m",
      }),
      roots: encodeListRootsResult("2026-07-28", { roots: [{ uri: "file:///srv/app" }] }),
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
