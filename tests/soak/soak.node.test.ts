// The short soak (20 s) of `npm run soak`: thousands of mixed calls through the front (its own
// process) while the flooder floods, with the same assertions as the long form: every call
// completes, every server request and notification is accounted for, memory stays flat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { assertSoak } from "./_soak-check.ts";
import { formatSoakReport, runSoak } from "./_soak-run.ts";

test("the front under a 20 s soak: every call completes, every flood is accounted for, memory stays flat", {
  timeout: 120_000,
}, async () => {
  const options = { durationMs: 20_000, workers: 8, floodCount: 500, noiseCount: 1000 };
  const report = await runSoak(options);
  console.log(formatSoakReport(report));
  assertSoak(report, options);
  const total = Object.values(report.completed).reduce((a, b) => a + b, 0);
  // A floor that shows the soak did real work, low enough for a machine busy with other work.
  assert.ok(total >= 100, `only ${total} calls completed in 20 s`);
});
