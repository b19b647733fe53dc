import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeCallToolRequestParams } from "../../src/protocol/client-requests.ts";
import { encodeElicitResult } from "../../src/protocol/elicitation.ts";
import type { JsonObject } from "../../src/protocol/jsonrpc.ts";
import {
  buildRetryParams,
  encodeCallTool,
  encodeDiscover,
  encodeGetPrompt,
  encodeList,
  encodeReadResource,
  type ListMethod,
} from "../../src/protocol/requests.ts";
import { encodeListRootsResult } from "../../src/protocol/roots.ts";
import { encodeCreateMessageResult } from "../../src/protocol/sampling.ts";
import { np, same } from "../_support/exact.ts";
import { check, LEGACY, META, WIRE_META } from "./_request-fixtures.ts";

describe("encodeCallTool()", () => {
  test("builds legacy calls (task only in 2025-11-25) that validate in both versions", () => {
    for (const version of LEGACY) {
      const request = encodeCallTool({ protocolVersion: version }, {
        name: "get_weather",
        arguments: { city: "Paris" },
        task: { ttl: 60000 },
        _meta: { progressToken: "p" },
      });
      same(request, {
        method: "tools/call",
        params: {
          name: "get_weather",
          arguments: { city: "Paris" },
          ...(version === "2025-11-25" ? { task: { ttl: 60000 } } : {}),
          _meta: { progressToken: "p" },
        },
      });
      same(check(version, "CallToolRequest", request), []);
    }
  });

  test("builds a modern call with the full _meta, valid and decodable as the front would", () => {
    const args = { city: "Paris" };
    const request = encodeCallTool(META, { name: "get_weather", arguments: args, task: { ttl: 1 } });
    same(request, {
      method: "tools/call",
      params: { name: "get_weather", arguments: { city: "Paris" }, _meta: WIRE_META },
    });
    assert.notEqual(request.params?.arguments, args);
    same(check("2026-07-28", "CallToolRequest", request), []);
    assert.equal(decodeCallToolRequestParams(request.params).ok, true);
  });
});

describe("buildRetryParams()", () => {
  const original = encodeCallTool(META, {
    name: "deploy",
    arguments: { env: "prod" },
    _meta: { progressToken: 4 },
  });
  const params: JsonObject = original.params ?? {};

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
    assert.equal(retry.requestState, requestState);
    same(params, before);
    same(check("2026-07-28", "CallToolRequest", { method: "tools/call", params: retry }), []);
  });

  test("omits empty inputResponses and an absent requestState, replacing the previous round's", () => {
    const previous = buildRetryParams(params, np({ a: { action: "cancel" as const } }), "old");
    same(buildRetryParams(previous, np({}), undefined), params);
    same(buildRetryParams(previous, undefined, "new"), { ...params, requestState: "new" });
  });

  test("builds retries of resources/read and prompts/get that validate", () => {
    const read = encodeReadResource(META, { uri: "file:///a.txt" });
    const prompt = encodeGetPrompt(META, { name: "review", arguments: { code: "x" } });
    const answers = np({ k: { action: "decline" as const } });
    same([
      ...check("2026-07-28", "ReadResourceRequest", {
        method: read.method,
        params: buildRetryParams(read.params ?? {}, answers, "s"),
      }),
      ...check("2026-07-28", "GetPromptRequest", {
        method: prompt.method,
        params: buildRetryParams(prompt.params ?? {}, answers, undefined),
      }),
    ], []);
  });
});

describe("encodeReadResource(), encodeGetPrompt() and encodeList()", () => {
  test("validate in every version", () => {
    for (const version of [...LEGACY, "2026-07-28"] as const) {
      const target = version === "2026-07-28" ? META : { protocolVersion: version };
      same([
        ...check(version, "ReadResourceRequest", encodeReadResource(target, { uri: "file:///project/a.rs" })),
        ...check(version, "GetPromptRequest", encodeGetPrompt(target, { name: "p", arguments: { a: "1" } })),
      ], []);
      const lists: Array<[ListMethod, string]> = [
        ["tools/list", "ListToolsRequest"],
        ["resources/list", "ListResourcesRequest"],
        ["resources/templates/list", "ListResourceTemplatesRequest"],
        ["prompts/list", "ListPromptsRequest"],
      ];
      for (const [method, definition] of lists) {
        same(check(version, definition, encodeList(target, method, { cursor: "c2" })), []);
        same(check(version, definition, encodeList(target, method)), []);
      }
    }
  });

  test("build exact legacy and modern params", () => {
    same(encodeList({ protocolVersion: "2025-06-18" }, "tools/list"), {
      method: "tools/list",
      params: {},
    });
    same(encodeList(META, "prompts/list", { cursor: "n" }), {
      method: "prompts/list",
      params: { cursor: "n", _meta: WIRE_META },
    });
    same(encodeReadResource({ protocolVersion: "2025-11-25" }, { uri: "file:///a" }), {
      method: "resources/read",
      params: { uri: "file:///a" },
    });
  });
});

describe("encodeDiscover()", () => {
  test("builds server/discover with only _meta, valid against DiscoverRequest", () => {
    const request = encodeDiscover(META);
    same(request, { method: "server/discover", params: { _meta: WIRE_META } });
    same(check("2026-07-28", "DiscoverRequest", request), []);
  });
});
