// src/playground/_bundle.generated.ts is generated from the browser modules in
// src/playground/browser/: it must be exactly what `npm run build:playground` writes from them now.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BUNDLE_PATH, playgroundBundleModule } from "../../scripts/build-playground.ts";

test("src/playground/_bundle.generated.ts is what `npm run build:playground` writes from src/playground/browser/", async () => {
  const onDisk = readFileSync(new URL(`../../${BUNDLE_PATH}`, import.meta.url), "utf8");
  const built = await playgroundBundleModule();
  assert.equal(onDisk, built, "src/playground/_bundle.generated.ts is stale: run `npm run build:playground`");
});
