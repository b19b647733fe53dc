import { describe, test } from "node:test";
import { decodeDiscoverResult } from "../../src/protocol/discover.ts";
import { np, same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("decodeDiscoverResult()", () => {
  test("decodes versions, capabilities and serverInfo, and accepts missing ttlMs/cacheScope", () => {
    const result = decodeDiscoverResult({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "S", version: "2" } },
    });
    same(result, {
      ok: true,
      value: {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        _meta: np({ "io.modelcontextprotocol/serverInfo": { name: "S", version: "2" } }),
      },
    });
  });

  test("requires supportedVersions and refuses a ttlMs that is not a number", () => {
    const missing = decodeDiscoverResult({ capabilities: {} });
    same(missing, failureAt("$.supportedVersions", "a value (required)", "undefined"));
    same(decodeDiscoverResult({ supportedVersions: [], capabilities: {}, ttlMs: "1h" }), {
      ok: false,
      path: "$.ttlMs",
      expected: "number",
      received: '"1h"',
      message: '$.ttlMs: expected number, received "1h"',
    });
  });
});
