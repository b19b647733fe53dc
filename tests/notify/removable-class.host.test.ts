// src/_internal/removable.ts is generated: it must be what scripts/removable-class.ts writes now
// (which needs a runtime with the Unicode version the class is pinned to).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { removableModule, UNICODE_VERSION } from "../../scripts/removable-class.ts";

test(`src/_internal/removable.ts is what scripts/removable-class.ts writes from Unicode ${UNICODE_VERSION}`, () => {
  const onDisk = readFileSync(new URL("../../src/_internal/removable.ts", import.meta.url), "utf8");
  assert.equal(
    onDisk,
    removableModule(),
    "src/_internal/removable.ts is stale: run `npx tsx scripts/removable-class.ts`",
  );
});
