import { describe, test } from "node:test";
import {
  decodeUnsupportedVersionData,
  decodeUrlElicitationRequiredData,
} from "../../src/protocol/error-data.ts";
import { same } from "../_support/exact.ts";
import { failureAt } from "./_exact.ts";

describe("error data", () => {
  test("decodeUnsupportedVersionData() requires supported and requested", () => {
    same(decodeUnsupportedVersionData({ supported: ["2026-07-28"], requested: "1900-01-01" }), {
      ok: true,
      value: { supported: ["2026-07-28"], requested: "1900-01-01" },
    });
    same(decodeUnsupportedVersionData({ supported: "2026-07-28", requested: "x" }), {
      ok: false,
      path: "$.supported",
      expected: "Array",
      received: '"2026-07-28"',
      message: '$.supported: expected Array, received "2026-07-28"',
    });
  });

  test("decodeUrlElicitationRequiredData() requires URL mode and an elicitationId in each entry", () => {
    const entry = { mode: "url", message: "Authorize", url: "https://a.example/oauth", elicitationId: "e-7" };
    same(decodeUrlElicitationRequiredData({ elicitations: [entry] }), {
      ok: true,
      value: { elicitations: [entry] },
    });
    const { elicitationId: _, ...noId } = entry;
    const result = decodeUrlElicitationRequiredData({ elicitations: [noId] });
    same(result, failureAt("$.elicitations[0].elicitationId", "a value (required)", "undefined"));
    const form = decodeUrlElicitationRequiredData({ elicitations: [{ ...entry, mode: "form" }] });
    same(form, failureAt("$.elicitations[0].mode", '"url"', '"form"'));
  });
});
