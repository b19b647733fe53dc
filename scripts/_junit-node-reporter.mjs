/**
 * Node's own JUnit reporter, with what its report lacks for `npm test`'s summary: each case's file
 * (as `classname`, relative to the working folder, as Deno and vitest write it), and a case for a
 * test or suite that failed while none of its subtests did (a `before`/`after` hook that threw),
 * which Node's report drops. The added case is named by Node's failure type, `outer > hookFailed`.
 *
 * JavaScript, not TypeScript: `node --test` loads its reporters before tsx can compile them.
 *
 * @module
 */
import { relative } from "node:path";
import process from "node:process";
import { junit } from "node:test/reporters";

/**
 * The reporter `node --test --test-reporter=./scripts/_junit-node-reporter.mjs` runs.
 *
 * @param {AsyncIterable<{ type: string, data: any }>} source The test runner's events.
 * @returns {AsyncGenerator<string>} The JUnit report, in pieces.
 */
// deno-lint-ignore explicit-module-boundary-types -- JavaScript: the types are in the JSDoc above
export default async function* junitWithFiles(source) {
  yield* junit(withFiles(source));
}

/**
 * @param {AsyncIterable<{ type: string, data: any }>} source
 * @returns {AsyncGenerator<{ type: string, data: any }>}
 */
async function* withFiles(source) {
  // By nesting level: whether the test that started last at that level has started subtests.
  const hasSubtests = [];
  for await (const event of source) {
    const data = event.data;
    if (typeof data?.file === "string") data.classname = relative(process.cwd(), data.file);
    if (event.type === "test:start") {
      if (data.nesting > 0) hasSubtests[data.nesting - 1] = true;
      hasSubtests[data.nesting] = false;
    }
    const error = data?.details?.error;
    if (event.type === "test:fail" && hasSubtests[data.nesting] && error?.failureType !== "subtestsFailed") {
      // A hook's error says "failed running after hook"; what the hook threw is its cause.
      const thrown = typeof error?.cause?.message === "string" ? error.cause : error;
      const details = { ...data.details, error: thrown };
      const own = { ...data, name: String(error?.failureType), nesting: data.nesting + 1, details };
      yield { type: "test:start", data: own };
      yield { type: "test:fail", data: own };
    }
    yield event;
  }
}
