/**
 * `npm test`: every check and the whole suite on the four runtimes, in one command.
 *
 * Steps run in order: typecheck (the code with Node's types, the library without, the
 * playground's browser modules with the DOM's), lint, format check, the tests on Deno, the
 * examples in the doc comments (Deno), the tests on Bun and workerd, the official conformance
 * suite, and last Node (so Node's own summary closes the run). Each runtime writes a JUnit
 * report; leaf test cases are counted from it, so every runtime is counted the same way. A runtime
 * that ran zero tests fails the run. The last line is `N passed, N failed`.
 *
 * `npm test -- node deno` runs only the named steps (for quick local runs).
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

type Runtime = "node" | "deno" | "bun" | "workerd";

interface Outcome {
  readonly step: string;
  readonly ok: boolean;
  readonly seconds: number;
  readonly counts?: Counts;
}

interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

const root = new URL("..", import.meta.url).pathname;
const reports = mkdtempSync(join(tmpdir(), "sluice-test-"));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const wanted = new Set(process.argv.slice(2));

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

/** Counts leaf test cases in a JUnit file: Deno also lists each `describe` as a case. */
function countJunit(path: string): Counts {
  const xml = readFileSync(path, "utf8");
  const cases = [...xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({
    name: /name="([^"]*)"/.exec(m[1] ?? "")?.[1] ?? "",
    body: m[3] ?? "",
  }));
  const names = cases.map((c) => c.name);
  const leaves = cases.filter((c) => !names.some((n) => n.startsWith(`${c.name} &gt; `)));
  const failed = leaves.filter((c) => /<(failure|error)\b/.test(c.body)).length;
  const skipped = leaves.filter((c) => /<skipped\b/.test(c.body)).length;
  return { passed: leaves.length - failed - skipped, failed, skipped };
}

function run(step: string, command: string, args: string[], junit?: string): Outcome {
  if (wanted.size > 0 && !wanted.has(step)) return { step, ok: true, seconds: 0 };
  console.log(`\n── ${step}: ${[relative(root, command) || command, ...args].join(" ").slice(0, 160)}`);
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: process.env });
  const seconds = (performance.now() - started) / 1000;
  let ok = result.status === 0;
  if (junit === undefined) return { step, ok, seconds };
  let counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    counts = countJunit(junit);
  } catch {
    ok = false;
  }
  if (counts.passed + counts.failed === 0) {
    console.log(`${step}: ran zero tests`);
    ok = false;
  }
  return { step, ok: ok && counts.failed === 0, seconds, counts };
}

function files(runtime: Runtime): string[] {
  return testFiles(runtime).map((f) => `./${f}`);
}

const outcomes: Outcome[] = [];
const started = performance.now();
outcomes.push(run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]));
outcomes.push(run("typecheck-lib", bin("tsc"), ["--noEmit", "-p", "tsconfig.lib.json"]));
// The playground's browser modules, against the DOM and no runtime's globals.
outcomes.push(run("typecheck-browser", bin("tsc"), ["--noEmit", "-p", "tsconfig.browser.json"]));
outcomes.push(run("lint", bin("deno"), ["lint", "--quiet"]));
outcomes.push(run("format", bin("deno"), ["fmt", "--check", "--quiet"]));

/** What the Deno tests may do: loopback network, files, processes (servers under test). */
const DENO_PERMISSIONS = [
  "--allow-net=127.0.0.1,localhost",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];
const denoJunit = join(reports, "deno.xml");
outcomes.push(
  run("deno", bin("deno"), [
    "test",
    ...DENO_PERMISSIONS,
    `--junit-path=${denoJunit}`,
    ...files("deno"),
  ], denoJunit),
);
// The examples in the doc comments of every module: type-checked and run, so none goes stale.
const docJunit = join(reports, "doc.xml");
outcomes.push(
  run("doc", bin("deno"), [
    "test",
    "--doc",
    ...DENO_PERMISSIONS,
    `--junit-path=${docJunit}`,
    "mod.ts",
    "src/",
  ], docJunit),
);
const bunJunit = join(reports, "bun.xml");
outcomes.push(
  run(
    "bun",
    bin("bun"),
    ["test", "--timeout=60000", "--reporter=junit", `--reporter-outfile=${bunJunit}`, ...files("bun")],
    bunJunit,
  ),
);
const workerdJunit = join(reports, "workerd.xml");
outcomes.push(
  run("workerd", bin("vitest"), [
    "run",
    "--config",
    "tests/_workerd/vitest.config.ts",
    "--reporter=default",
    "--reporter=junit",
    `--outputFile.junit=${workerdJunit}`,
  ], workerdJunit),
);
// The official conformance suite (Node 22, its own folder), both requirement sets (2026-07-28 and
// 2025-11-25): every scored scenario that is not auth/* must pass; auth/* is baselined (sluice
// does no OAuth).
outcomes.push(
  run("conformance", process.execPath, ["--import", "tsx", "scripts/conformance.ts"]),
);
const nodeJunit = join(reports, "node.xml");
outcomes.push(
  run("node", process.execPath, [
    "--import",
    "tsx",
    "--test",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=junit",
    `--test-reporter-destination=${nodeJunit}`,
    ...files("node"),
  ], nodeJunit),
);
rmSync(reports, { recursive: true, force: true });

const ran = outcomes.filter((o) => wanted.size === 0 || wanted.has(o.step));
console.log("\n── summary");
for (const o of ran) {
  const counts = o.counts === undefined
    ? ""
    : `  ${o.counts.passed} passed, ${o.counts.failed} failed, ${o.counts.skipped} skipped`;
  console.log(
    `${o.ok ? "ok  " : "FAIL"} ${o.step.padEnd(10)} ${o.seconds.toFixed(1).padStart(6)} s${counts}`,
  );
}
const total = (key: keyof Counts) => ran.reduce((sum, o) => sum + (o.counts?.[key] ?? 0), 0);
const failedSteps = ran.filter((o) => !o.ok && o.counts === undefined).length;
console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`${total("passed")} passed, ${total("failed") + failedSteps} failed`);
process.exitCode = ran.every((o) => o.ok) ? 0 : 1;
