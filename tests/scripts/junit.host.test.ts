// npm test's closing summary, on JUnit reports that each runtime really wrote. The fixtures in
// tests/fixtures/junit/ come from three sample files run on Node, Deno, Bun and vitest-workerd as
// scripts/test.ts runs them: tests/sample/failing.test.ts (in `describe("outer")`: a passing, a
// failing, a nested failing and a skipped case; a passing top-level case), hook.test.ts (an
// `after` hook that throws) and crash.test.ts (throws on load); and doc.xml from a failing doc
// example on Deno. Stack traces are trimmed and the project's root renamed /repo.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  filesWithoutCases,
  readJunit,
  type StepOutcome,
  stepPassed,
  summaryLines,
  type TestCase,
} from "../../scripts/_junit.ts";

const CRASH = "tests/sample/crash.test.ts";
const FAILING = "tests/sample/failing.test.ts";
const HOOK = "tests/sample/hook.test.ts";

function fixture(runtime: string): TestCase[] {
  return readJunit(
    readFileSync(new URL(`../fixtures/junit/${runtime}.xml`, import.meta.url), "utf8"),
    "/repo",
  );
}

function passed(file: string, name: string): TestCase {
  return { name, file, outcome: "passed", message: "" };
}

function skipped(file: string, name: string): TestCase {
  return { name, file, outcome: "skipped", message: "" };
}

function failed(file: string, name: string, message: string): TestCase {
  return { name, file, outcome: "failed", message };
}

describe("readJunit()", () => {
  test("readJunit() reads Node's report: a suite per describe, the file that the reporter adds", () => {
    assert.deepEqual(fixture("node"), [
      // A file that throws on load is one failed case named by its path.
      failed(CRASH, CRASH, "test failed"),
      passed(FAILING, "outer > passes"),
      // Node's reporter escapes the quotes of a name twice and drops the message's line ends.
      failed(
        FAILING,
        "outer > fails with <xml> & &quot;quotes&quot;",
        "Expected values to be strictly equal:1 !== 2",
      ),
      failed(FAILING, "outer > inner > fails too", "boomsecond line"),
      skipped(FAILING, "outer > skipped"),
      passed(FAILING, "top level passes"),
      passed(HOOK, "with hook > fine"),
      // Node's own report has no case for a hook's failure; _junit-node-reporter.mjs adds one.
      failed(HOOK, "with hook > hookFailed", "after hook broke"),
    ]);
  });

  test("readJunit() reads Deno's report: steps filed under ext:deno_node get their describe's file", () => {
    assert.deepEqual(fixture("deno"), [
      passed(FAILING, "top level passes"),
      passed(FAILING, "outer > passes"),
      failed(
        FAILING,
        'outer > fails with <xml> & "quotes"',
        "Uncaught AssertionError: Expected values to be strictly equal:",
      ),
      failed(FAILING, "outer > inner > fails too", "Uncaught Error: boom"),
      skipped(FAILING, "outer > skipped"),
      passed(HOOK, "with hook > fine"),
      // A describe whose steps passed but which failed itself (its hook) counts as a case.
      failed(HOOK, "with hook", "Uncaught Error: after hook broke"),
    ]);
  });

  test("readJunit() reads Bun's report: nested suites, the file suite left out of the name", () => {
    // Bun drops the crashed file and the hook's failure from its report.
    assert.deepEqual(fixture("bun"), [
      passed(FAILING, "outer > passes"),
      failed(FAILING, 'outer > fails with <xml> & "quotes"', "Expected values to be strictly equal:"),
      failed(FAILING, "outer > inner > fails too", "boom"),
      skipped(FAILING, "outer > skipped"),
      passed(FAILING, "top level passes"),
      passed(HOOK, "with hook > fine"),
    ]);
  });

  test("readJunit() reads vitest's report from workerd: whole paths in names, a crash as a case", () => {
    assert.deepEqual(fixture("workerd"), [
      failed(CRASH, CRASH, "crash on load"),
      passed(FAILING, "outer > passes"),
      failed(FAILING, 'outer > fails with <xml> & "quotes"', "Values are not strictly equal:"),
      failed(FAILING, "outer > inner > fails too", "boom"),
      skipped(FAILING, "outer > skipped"),
      passed(FAILING, "top level passes"),
      passed(HOOK, "with hook > fine"),
      failed(HOOK, "with hook", "after hook broke"),
    ]);
  });

  test("readJunit() reads a doc example's case from Deno relative to the root", () => {
    const example = "tests/sample/example.ts#5-9.ts";
    assert.deepEqual(fixture("doc"), [failed(example, example, "Uncaught Error: addOne(1) is not 3")]);
  });
});

test("filesWithoutCases() finds the crashed file that Deno and Bun leave out of their reports", () => {
  const given = [CRASH, FAILING, HOOK];
  assert.deepEqual(
    ["node", "deno", "bun", "workerd"].map((runtime) => filesWithoutCases(given, fixture(runtime))),
    [[], [CRASH], [CRASH], []],
  );
});

describe("summaryLines()", () => {
  const given = [CRASH, FAILING, HOOK];
  const tested = (step: string, seconds: number): StepOutcome => {
    const cases = fixture(step);
    return {
      step,
      exit: 1,
      seconds,
      cases,
      silentFiles: filesWithoutCases(step === "doc" ? [] : given, cases),
    };
  };

  test("summaryLines() names every failure with its step, then ends with the totals", () => {
    const outcomes: StepOutcome[] = [
      { step: "typecheck", exit: 0, seconds: 12.34 },
      { step: "lint", exit: 1, seconds: 1.5 },
      tested("deno", 80),
      tested("doc", 3),
      tested("bun", 40),
      tested("workerd", 30),
      { step: "conformance", exit: "SIGKILL", seconds: 100 },
      tested("node", 200),
    ];
    assert.deepEqual(summaryLines(outcomes, 466.84), [
      "── summary",
      "ok   typecheck     12.3 s",
      "FAIL lint           1.5 s",
      "FAIL deno          80.0 s  3 passed, 3 failed, 1 skipped",
      "FAIL doc            3.0 s  0 passed, 1 failed, 0 skipped",
      "FAIL bun           40.0 s  3 passed, 2 failed, 1 skipped",
      "FAIL workerd       30.0 s  3 passed, 4 failed, 1 skipped",
      "FAIL conformance  100.0 s",
      "FAIL node         200.0 s  3 passed, 4 failed, 1 skipped",
      "total 466.8 s",
      "",
      "── failed",
      "lint: exited with code 1",
      'deno: tests/sample/failing.test.ts: outer > fails with <xml> & "quotes"',
      "  Uncaught AssertionError: Expected values to be strictly equal:",
      "deno: tests/sample/failing.test.ts: outer > inner > fails too",
      "  Uncaught Error: boom",
      "deno: tests/sample/hook.test.ts: with hook",
      "  Uncaught Error: after hook broke",
      "deno: tests/sample/crash.test.ts",
      "  reported no test case (did it fail to load?)",
      "doc: tests/sample/example.ts#5-9.ts",
      "  Uncaught Error: addOne(1) is not 3",
      'bun: tests/sample/failing.test.ts: outer > fails with <xml> & "quotes"',
      "  Expected values to be strictly equal:",
      "bun: tests/sample/failing.test.ts: outer > inner > fails too",
      "  boom",
      "bun: tests/sample/crash.test.ts",
      "  reported no test case (did it fail to load?)",
      "workerd: tests/sample/crash.test.ts",
      "  crash on load",
      'workerd: tests/sample/failing.test.ts: outer > fails with <xml> & "quotes"',
      "  Values are not strictly equal:",
      "workerd: tests/sample/failing.test.ts: outer > inner > fails too",
      "  boom",
      "workerd: tests/sample/hook.test.ts: with hook",
      "  after hook broke",
      "conformance: ended by SIGKILL",
      "node: tests/sample/crash.test.ts",
      "  test failed",
      "node: tests/sample/failing.test.ts: outer > fails with <xml> & &quot;quotes&quot;",
      "  Expected values to be strictly equal:1 !== 2",
      "node: tests/sample/failing.test.ts: outer > inner > fails too",
      "  boomsecond line",
      "node: tests/sample/hook.test.ts: with hook > hookFailed",
      "  after hook broke",
      "12 passed, 18 failed",
    ]);
  });

  test("summaryLines() of passing steps lists no failure; a file missing from a passing step's report is no failure", () => {
    const cases = [passed(FAILING, "outer > passes"), skipped(FAILING, "outer > skipped")];
    assert.deepEqual(
      summaryLines([
        { step: "format", exit: 0, seconds: 0.04 },
        { step: "bun", exit: 0, seconds: 5, cases, silentFiles: [HOOK] },
      ], 5.04),
      [
        "── summary",
        "ok   format    0.0 s",
        "ok   bun       5.0 s  1 passed, 0 failed, 1 skipped",
        "total 5.0 s",
        "1 passed, 0 failed",
      ],
    );
  });

  test("summaryLines() names a runtime that ran zero tests, or whose report could not be read", () => {
    const lines = summaryLines([
      { step: "deno", exit: 0, seconds: 1, cases: [skipped(FAILING, "outer > skipped")] },
      { step: "bun", exit: "SIGSEGV", seconds: 2, unreadable: "ENOENT: no such file or directory" },
      { step: "node", exit: 1, seconds: 3, cases: [passed(HOOK, "with hook > fine")] },
    ], 6);
    assert.deepEqual(lines.slice(6), [
      "── failed",
      "deno: ran zero tests",
      "bun: wrote no readable JUnit report: ENOENT: no such file or directory",
      "node: exited with code 1, and no test case failed",
      "1 passed, 3 failed",
    ]);
  });
});

test("stepPassed() passes a step that exited 0 with a passing test, and no other", () => {
  const fine = [passed(FAILING, "outer > passes")];
  assert.deepEqual(
    [
      stepPassed({ step: "deno", exit: 0, seconds: 1, cases: fine }),
      stepPassed({ step: "lint", exit: 0, seconds: 1 }),
      stepPassed({ step: "deno", exit: 0, seconds: 1, cases: [] }),
      stepPassed({ step: "deno", exit: 1, seconds: 1, cases: fine }),
      stepPassed({ step: "deno", exit: 0, seconds: 1, cases: [...fine, failed(FAILING, "x", "")] }),
    ],
    [true, true, false, false, false],
  );
});
