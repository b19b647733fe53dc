import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { encodeResult } from "../../src/protocol/jsonrpc.ts";
import {
  decodeListRootsParams,
  decodeListRootsResult,
  encodeListRootsResult,
  type ListRootsResult,
} from "../../src/protocol/roots.ts";
import { np, same } from "../_support/exact.ts";
import { schemaErrors } from "./_official-schema.ts";

describe("decodeListRootsParams()", () => {
  test("decodes absent params as {} and keeps _meta", () => {
    same(decodeListRootsParams(undefined), { ok: true, value: {} });
    same(decodeListRootsParams({ _meta: { progressToken: 1 }, x: 1 }), {
      ok: true,
      value: { _meta: np({ progressToken: 1 }) },
    });
  });

  test("refuses an array as params at $", () => {
    same(decodeListRootsParams([]), {
      ok: false,
      path: "$",
      expected: "Object",
      received: "Array",
      message: "$: expected Object, received Array",
    });
  });
});

describe("decodeListRootsResult()", () => {
  test("keeps the list _meta in legacy versions and drops it in 2026-07-28", () => {
    const answer = { roots: [{ uri: "file:///srv/project", name: "project" }], _meta: { a: 1 } };
    same(decodeListRootsResult("2025-11-25", answer), {
      ok: true,
      value: { roots: [{ uri: "file:///srv/project", name: "project" }], _meta: np({ a: 1 }) },
    });
    same(decodeListRootsResult("2026-07-28", answer), {
      ok: true,
      value: { roots: [{ uri: "file:///srv/project", name: "project" }] },
    });
  });

  test("locates a root without uri at $.roots[1].uri", () => {
    same(decodeListRootsResult("2025-06-18", { roots: [{ uri: "file:///a" }, { name: "b" }] }), {
      ok: false,
      path: "$.roots[1].uri",
      expected: '"uri"',
      received: "undefined",
      message: '$.roots[1].uri: expected "uri", received undefined',
    });
  });
});

describe("encodeListRootsResult()", () => {
  const answer: ListRootsResult = {
    roots: [{ uri: "file:///home/ada/repo", name: "repo", _meta: np({ k: 1 }) }, { uri: "file:///tmp" }],
    _meta: np({ "io.modelcontextprotocol/related-task": { taskId: "t-1" } }),
  };

  test("builds fresh legacy answers that keep _meta and validate in both versions", () => {
    for (const version of ["2025-06-18", "2025-11-25"] as const) {
      const result = encodeListRootsResult(version, answer);
      same(result, {
        roots: [{ uri: "file:///home/ada/repo", name: "repo", _meta: { k: 1 } }, { uri: "file:///tmp" }],
        _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-1" } },
      });
      assert.notEqual(result.roots[0], answer.roots[0]);
      const message = encodeResult(9, result as never);
      same([
        ...schemaErrors(
          version,
          version === "2025-06-18" ? "JSONRPCResponse" : "JSONRPCResultResponse",
          message,
        ),
        ...schemaErrors(version, "ListRootsResult", message.result),
      ], []);
    }
  });

  test("drops the list _meta in 2026-07-28 and validates as an inputResponses value", () => {
    const result = encodeListRootsResult("2026-07-28", answer);
    same(result, {
      roots: [{ uri: "file:///home/ada/repo", name: "repo", _meta: { k: 1 } }, { uri: "file:///tmp" }],
    });
    same(schemaErrors("2026-07-28", "InputResponses", { roots: result }), []);
  });
});
