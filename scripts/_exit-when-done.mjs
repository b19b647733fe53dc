/**
 * Loaded (`--import`) by every process of `npm test`'s Node step: in a test file's own process, once
 * all of its tests have finished, it exits 5 s later if something (a server or child process a
 * failing test never closed) still holds it open. Else that file's process never exits, the whole
 * step waits until CI's limit, and no report says which test failed. Node's `--test-force-exit`
 * does the same but also ends the runner's own process before its JUnit reporter has written the
 * report, so the summary would read "ran zero tests".
 *
 * JavaScript, not TypeScript: it is loaded beside tsx, before any TypeScript.
 *
 * @module
 */
import { after } from "node:test";
import process from "node:process";

/** How long a file's process may go on once its tests have finished. */
const GRACE_MS = 5_000;

// Set in the process of each test file, not in the runner's own.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  // The exit code is the one the test runner set (1 when a test failed).
  after(() => void setTimeout(() => process.exit(), GRACE_MS).unref());
}
