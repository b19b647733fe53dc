import { describe, test } from "node:test";
import {
  decodeListResourcesResult,
  decodeListResourceTemplatesResult,
  decodeReadResourceResult,
} from "../../src/protocol/resources.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("resources", () => {
  test("decodeReadResourceResult() decodes text and blob contents and keeps unknown keys", () => {
    const result = {
      contents: [{ uri: "file:///a.txt", text: "A" }, {
        uri: "file:///b.png",
        blob: "AA==",
        mimeType: "image/png",
      }],
      ttlMs: 0,
      cacheScope: "private",
      extra: true,
    };
    same(decodeReadResourceResult(result), { ok: true, value: result });
  });

  test("decodeReadResourceResult() refuses an unknown cacheScope at $.cacheScope", () => {
    const result = decodeReadResourceResult({ contents: [], cacheScope: "shared" });
    same(result, failureAt("$.cacheScope", '("public" | "private")', '"shared"'));
  });

  test("decodeListResourcesResult() locates a resource without name at $.resources[0].name", () => {
    const result = decodeListResourcesResult({ resources: [{ uri: "file:///a" }] });
    same(result, failureAt("$.resources[0].name", "a value (required)", "undefined"));
  });

  test("decodeListResourceTemplatesResult() decodes templates with annotations and icons", () => {
    const result = {
      resourceTemplates: [{
        uriTemplate: "file:///{path}",
        name: "files",
        annotations: { audience: ["user"], priority: 0.5 },
        icons: [{ src: "https://example.com/i.png", sizes: ["48x48"], theme: "dark" }],
      }],
    };
    same(decodeListResourceTemplatesResult(result), { ok: true, value: result });
  });

  test("decodeListResourceTemplatesResult() refuses an unknown audience role", () => {
    const result = decodeListResourceTemplatesResult({
      resourceTemplates: [{ uriTemplate: "x", name: "n", annotations: { audience: ["system"] } }],
    });
    same(
      result,
      failureAt("$.resourceTemplates[0].annotations.audience[0]", '("user" | "assistant")', '"system"'),
    );
  });
});
