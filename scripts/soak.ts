/**
 * `npm run soak`: the long form of the soak (3 minutes by default, loopback only). The front runs
 * in its own process before a hostile modern server and a hostile stdio server; this process
 * calls through it with 8 workers while a ninth floods. Prints the report, then checks it like
 * the short form in `npm test` (`tests/soak/soak.node.test.ts`); exits 1 when a check fails.
 *
 * `npm run soak -- 60` soaks for 60 seconds instead.
 *
 * @module
 */
import process from "node:process";
import { assertSoak } from "../tests/soak/_soak-check.ts";
import { formatSoakReport, runSoak } from "../tests/soak/_soak-run.ts";

const seconds = Number(process.argv[2] ?? 180);
if (!Number.isFinite(seconds) || seconds < 10) {
  throw new TypeError(`soak: the duration must be at least 10 seconds, received "${process.argv[2]}"`);
}
const options = { durationMs: seconds * 1000, workers: 8, floodCount: 500, noiseCount: 1000 };
console.log(`soak: ${seconds} s, ${options.workers} workers, floods of ${options.floodCount} requests`);
const report = await runSoak({ ...options, onProgress: (line) => console.log(`  ${line}`) });
console.log(formatSoakReport(report));
try {
  assertSoak(report, options);
  console.log("soak: every check passed");
} catch (error) {
  console.log(`soak: FAILED: ${(error as Error).message}`);
  process.exitCode = 1;
}
