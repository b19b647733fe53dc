/**
 * `npm test`: every check and the whole suite on the four runtimes, in one command.
 *
 * Steps run in order: typecheck (the code with Node's types, the library without, the
 * playground's browser modules with the DOM's), lint, format check, the tests on Deno, the examples in the doc
 * comments (Deno), the tests on Bun and workerd, the official conformance suite, and last Node (so
 * Node's own summary closes the run). Each runtime writes a JUnit report; leaf test cases are
 * counted from it, so every runtime is counted the same way. A runtime that ran zero tests fails
 * the run. The closing summary (`_junit.ts`) names every failed test with its step and file, and
 * every step that failed without a failing test (typecheck, lint, a runtime that crashed); its last
 * line is `N passed, N failed`.
 *
 * `npm test -- node deno` runs only the named steps (for quick local runs); a name that is no
 * step is refused (exit 2).
 *
 * Test files choose their runtimes by suffix: `x.test.ts` runs everywhere; `x.host.test.ts` on
 * Node, Deno and Bun (it needs processes or files); `x.node.test.ts`, `x.deno.test.ts`,
 * `x.bun.test.ts` only there.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  filesWithoutCases,
  readJunit,
  type StepOutcome,
  stepPassed,
  summaryLines,
  type TestCase,
} from "./_junit.ts";

type Runtime = "node" | "deno" | "bun" | "workerd";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const wanted = new Set(process.argv.slice(2));
const outcomes: StepOutcome[] = [];
/** Every step, in the order they run. */
const STEPS = [
  "typecheck",
  "typecheck-lib",
  "typecheck-browser",
  "lint",
  "format",
  "deno",
  "doc",
  "bun",
  "workerd",
  "conformance",
  "node",
];
// A mistyped step would otherwise run nothing and pass.
const unknown = [...wanted].filter((name) => !STEPS.includes(name));
if (unknown.length > 0) {
  console.error(
    `npm test: ${unknown.map((name) => JSON.stringify(name)).join(", ")} ${
      unknown.length === 1 ? "is not a step" : "are not steps"
    }: expected some of ${STEPS.join(", ")}`,
  );
  process.exit(2);
}
const reports = mkdtempSync(join(tmpdir(), "sluice-test-"));

function testFiles(runtime: Runtime): string[] {
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (entry.name.endsWith(".test.ts")) all.push(relative(root, path));
    }
  };
  walk(join(root, "tests"));
  return all.sort().filter((file) => {
    const tag = /\.([a-z]+)\.test\.ts$/.exec(file)?.[1];
    if (tag === undefined) return true;
    if (tag === "host") return runtime !== "workerd";
    return tag === runtime;
  });
}

/** Where a test step writes its JUnit report, and the test files it was given. */
interface Report {
  readonly junit: string;
  readonly files?: readonly string[];
}

/** Runs one step (unless the command line names others) and records its outcome. */
function run(step: string, command: string, args: readonly string[], report?: Report): void {
  if (!STEPS.includes(step)) throw new Error(`scripts/test.ts: step "${step}" is missing from STEPS`);
  if (wanted.size > 0 && !wanted.has(step)) return;
  console.log(`\n── ${step}: ${[relative(root, command) || command, ...args].join(" ").slice(0, 160)}`);
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: process.env });
  const seconds = (performance.now() - started) / 1000;
  const exit = result.status ?? result.signal ?? String(result.error);
  if (report === undefined) {
    outcomes.push({ step, exit, seconds });
    return;
  }
  let cases: TestCase[];
  try {
    cases = readJunit(readFileSync(report.junit, "utf8"), root);
  } catch (error) {
    outcomes.push({ step, exit, seconds, unreadable: String(error) });
    return;
  }
  outcomes.push({ step, exit, seconds, cases, silentFiles: filesWithoutCases(report.files ?? [], cases) });
}

function files(runtime: Runtime): string[] {
  return testFiles(runtime).map((f) => `./${f}`);
}

const started = performance.now();
run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
run("typecheck-lib", bin("tsc"), ["--noEmit", "-p", "tsconfig.lib.json"]);
// The playground's browser modules, against the DOM and no runtime's globals.
run("typecheck-browser", bin("tsc"), ["--noEmit", "-p", "tsconfig.browser.json"]);
run("lint", bin("deno"), ["lint", "--quiet"]);
run("format", bin("deno"), ["fmt", "--check", "--quiet"]);

/** What the Deno tests may do: loopback network, files, processes (servers under test). */
const DENO_PERMISSIONS = [
  "--allow-net=127.0.0.1,localhost,[::1]",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];
const denoJunit = join(reports, "deno.xml");
run("deno", bin("deno"), [
  "test",
  ...DENO_PERMISSIONS,
  `--junit-path=${denoJunit}`,
  ...files("deno"),
], { junit: denoJunit, files: testFiles("deno") });
// The examples in the doc comments of every module: type-checked and run, so none goes stale.
const docJunit = join(reports, "doc.xml");
run("doc", bin("deno"), [
  "test",
  "--doc",
  ...DENO_PERMISSIONS,
  `--junit-path=${docJunit}`,
  "mod.ts",
  "src/",
], { junit: docJunit });
const bunJunit = join(reports, "bun.xml");
run(
  "bun",
  bin("bun"),
  ["test", "--timeout=60000", "--reporter=junit", `--reporter-outfile=${bunJunit}`, ...files("bun")],
  { junit: bunJunit, files: testFiles("bun") },
);
const workerdJunit = join(reports, "workerd.xml");
run("workerd", bin("vitest"), [
  "run",
  "--config",
  "tests/_workerd/vitest.config.ts",
  "--reporter=default",
  "--reporter=junit",
  `--outputFile.junit=${workerdJunit}`,
], { junit: workerdJunit, files: testFiles("workerd") });
// The official conformance suite (Node 22, its own folder), both requirement sets (2026-07-28 and
// 2025-11-25): every scored scenario that is not auth/* must pass; auth/* is baselined (sluice
// does no OAuth).
run("conformance", process.execPath, ["--import", "tsx", "scripts/conformance.ts"]);
// Node's JUnit reporter, plus each case's file and the failures of hooks (`_junit-node-reporter.mjs`).
// A test file still running 30 s after its tests have finished fails, naming what holds it
// (`_exit-when-done.mjs`), and one whose process has not ended in 15 minutes is stopped and fails
// (Node's --test-timeout bounds each file's process as a whole): a failing test that leaves a server
// or child process open would otherwise hold the whole step until CI's limit, unreported.
const nodeJunit = join(reports, "node.xml");
run("node", process.execPath, [
  "--import",
  "tsx",
  "--import",
  "./scripts/_exit-when-done.mjs",
  "--test",
  "--test-timeout=900000",
  "--test-reporter=spec",
  "--test-reporter-destination=stdout",
  "--test-reporter=./scripts/_junit-node-reporter.mjs",
  `--test-reporter-destination=${nodeJunit}`,
  ...files("node"),
], { junit: nodeJunit, files: testFiles("node") });
rmSync(reports, { recursive: true, force: true });

console.log("");
for (const line of summaryLines(outcomes, (performance.now() - started) / 1000)) console.log(line);
process.exitCode = outcomes.every(stepPassed) ? 0 : 1;
