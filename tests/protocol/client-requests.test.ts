import { describe, test } from "node:test";
import {
  decodeCallToolRequestParams,
  decodeDiscoverRequestParams,
  decodeGetPromptRequestParams,
  decodePaginatedRequestParams,
  decodeReadResourceRequestParams,
} from "../../src/protocol/client-requests.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("client-requests", () => {
  test("decodeCallToolRequestParams() decodes a retry, keeping argument keys and answers undecoded", () => {
    const params = JSON.parse(JSON.stringify({
      _meta: META,
      name: "deploy",
      arguments: { env: "prod" },
      inputResponses: { confirm: { action: "accept" } },
      requestState: "s",
      "com.example/hint": 1,
    }));
    same(decodeCallToolRequestParams(params), {
      ok: true,
      value: {
        _meta: np(META),
        name: "deploy",
        arguments: np({ env: "prod" }),
        inputResponses: np({ confirm: { action: "accept" } }),
        requestState: "s",
        "com.example/hint": 1,
      },
    });
  });

  test("decodeCallToolRequestParams() refuses a request without _meta, naming it", () => {
    same(decodeCallToolRequestParams({ name: "x" }), {
      ok: false,
      path: "$._meta",
      expected: '"_meta"',
      received: "undefined",
      message: '$._meta: expected "_meta", received undefined',
    });
  });

  test("decodeCallToolRequestParams() locates a missing protocol version inside _meta", () => {
    const result = decodeCallToolRequestParams({
      name: "x",
      _meta: { "io.modelcontextprotocol/clientCapabilities": {} },
    });
    same(
      result,
      failureAt(
        '$._meta["io.modelcontextprotocol/protocolVersion"]',
        '"io.modelcontextprotocol/protocolVersion"',
        "undefined",
      ),
    );
  });

  test("decodeGetPromptRequestParams() refuses a non-string argument value", () => {
    const result = decodeGetPromptRequestParams({ _meta: META, name: "p", arguments: { n: 1 } });
    same(result, failureAt("$.arguments.n", "string", "1"));
  });

  test("decodeReadResourceRequestParams(), decodePaginatedRequestParams() and decodeDiscoverRequestParams()", () => {
    same(decodeReadResourceRequestParams({ _meta: META, uri: "file:///a" }), {
      ok: true,
      value: { _meta: np(META), uri: "file:///a" },
    });
    same(decodePaginatedRequestParams({ _meta: META, cursor: "c" }), {
      ok: true,
      value: { _meta: np(META), cursor: "c" },
    });
    const discover = decodeDiscoverRequestParams({});
    same(discover, failureAt("$._meta", '"_meta"', "undefined"));
  });
});
