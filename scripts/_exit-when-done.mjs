/**
 * Loaded (`--import`) by every process of `npm test`'s Node step: in a test file's own process, a
 * file still running 30 s after its tests have finished fails, naming what holds it open (a server
 * or child process a test never closed). Else that file's process never exits, the whole step
 * waits until CI's limit, and no report says which file it was. Node's `--test-force-exit` also
 * ends the runner's own process before its JUnit reporter has written the report, and exits 0 when
 * the file's own `after` hooks are cut short.
 *
 * JavaScript, not TypeScript: it is loaded beside tsx, before any TypeScript.
 *
 * @module
 */
import { after } from "node:test";
import process from "node:process";

/**
 * How long a file's process may go on once its tests have finished. Its own `after` hooks run in
 * that time (this hook is registered before them): a gateway's stop waits up to 10 s.
 */
const GRACE_MS = 30_000;

// Set in the process of each test file, not in the runner's own.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  after(() =>
    void setTimeout(() => {
      const holding = process.getActiveResourcesInfo().join(", ");
      process.stderr.write(
        `The test file was still running ${GRACE_MS} ms after its tests, held by: ${holding}\n`,
      );
      // A failure, never a pass: the file's own after hooks may not have finished.
      process.exit(1);
    }, GRACE_MS).unref()
  );
}
