import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { eraOf, LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "../../src/protocol/versions.ts";
import { same } from "../_support/exact.ts";

describe("versions", () => {
  test("MODERN_PROTOCOL_VERSION is 2026-07-28 and LEGACY_PROTOCOL_VERSIONS lists 2025-11-25 first", () => {
    assert.equal(MODERN_PROTOCOL_VERSION, "2026-07-28");
    same(LEGACY_PROTOCOL_VERSIONS, ["2025-11-25", "2025-06-18"]);
    assert.equal(Object.isFrozen(LEGACY_PROTOCOL_VERSIONS), true);
  });

  test("eraOf() maps 2026-07-28 to modern and both legacy versions to legacy", () => {
    same(
      ["2026-07-28", "2025-11-25", "2025-06-18"].map((v) => eraOf(v as "2026-07-28")),
      ["modern", "legacy", "legacy"],
    );
  });
});
