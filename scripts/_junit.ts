/**
 * Reads the JUnit reports of Node, Deno, Bun and vitest (workerd) into one list of test cases, and
 * writes `npm test`'s closing summary from them: one line per step, then every failed test with its
 * step and file, then `N passed, N failed` as the last line (CI reads it).
 *
 * The four reports differ in shape. Node (through `_junit-node-reporter.mjs`) and Bun nest a
 * `<testsuite>` per `describe` and name each case by its own title; Deno and vitest write the whole
 * path (`outer > inner > case`) in each name. Deno also lists every `describe` as a case of its
 * own, and files its steps under `ext:deno_node/testing.ts` instead of their file. Bun and Deno
 * leave a file that crashed on load out of their report.
 *
 * @module
 */

/** One test case as the summary sees it, whichever runtime ran it. */
export interface TestCase {
  /** The titles from the outermost `describe` to the case, joined with ` > `. */
  readonly name: string;
  /** The test file, relative to the project's root. */
  readonly file: string;
  readonly outcome: "passed" | "failed" | "skipped";
  /** The first line of the failure message ("" unless failed). */
  readonly message: string;
}

/** What one step of `npm test` did. */
export interface StepOutcome {
  readonly step: string;
  /** The exit code, or the signal that ended the step's process. */
  readonly exit: number | string;
  readonly seconds: number;
  /** The cases of its JUnit report; `undefined` for a step without one (typecheck, lint, …). */
  readonly cases?: readonly TestCase[];
  /** Why the step's JUnit report could not be read, if it could not. */
  readonly unreadable?: string;
  /** The test files the step was given that appear nowhere in its report. */
  readonly silentFiles?: readonly string[];
}

interface RawCase {
  readonly suites: readonly string[];
  readonly attributes: Readonly<Record<string, string>>;
  failure?: string;
  skipped?: boolean;
}

const SEPARATOR = " > ";
const MESSAGE_LENGTH = 200;

/**
 * Reads one JUnit report into its test cases: leaves only, plus a parent case that failed while
 * none of its children did (a hook that threw).
 *
 * @param xml The report, as Node, Deno, Bun or vitest wrote it.
 * @param root The project's root folder (absolute, no final slash): file paths are made relative to it.
 * @returns The cases, in the report's order.
 */
export function readJunit(xml: string, root: string): TestCase[] {
  const cases = scanCases(xml).map((raw) => toCase(raw, root));
  const resolved = cases.map((c) => c.file.startsWith("ext:") ? { ...c, file: topLevelFile(c, cases) } : c);
  return resolved.filter((c) => {
    const children = resolved.filter((other) => other.name.startsWith(c.name + SEPARATOR));
    if (children.length === 0) return true;
    return c.outcome === "failed" && children.every((child) => child.outcome !== "failed");
  });
}

/** Finds every `<testcase>` with its enclosing suites' names, its failure and whether it was skipped. */
function scanCases(xml: string): RawCase[] {
  const cases: RawCase[] = [];
  const suites: string[] = [];
  let current: RawCase | undefined;
  let failureStart = -1;
  const tags =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*(\/?)>/g;
  for (const tag of xml.matchAll(tags)) {
    const [, closing, name, attributeText = "", selfClosing] = tag;
    if (name === undefined) continue;
    const attributes = parseAttributes(attributeText);
    if (closing === "/") {
      if (name === "testsuite") suites.pop();
      if (name === "testcase") current = undefined;
      if ((name === "failure" || name === "error") && current !== undefined && current.failure === "") {
        current.failure = decode(xml.slice(failureStart, tag.index));
      }
    } else if (name === "testsuite") {
      if (selfClosing !== "/") suites.push(attributes["name"] ?? "");
    } else if (name === "testcase") {
      const raw: RawCase = { suites: [...suites], attributes };
      cases.push(raw);
      if (selfClosing !== "/") current = raw;
    } else if ((name === "failure" || name === "error") && current !== undefined) {
      // The message attribute, or else the text inside the element (read at its closing tag).
      current.failure = attributes["message"] ?? "";
      failureStart = tag.index + tag[0].length;
    } else if (name === "skipped" && current !== undefined) {
      current.skipped = true;
    }
  }
  return cases;
}

function parseAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = Object.create(null);
  for (const [, key, value] of text.matchAll(/([\w:-]+)\s*=\s*"([^"]*)"/g)) {
    if (key !== undefined && value !== undefined) attributes[key] = decode(value);
  }
  return attributes;
}

const ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith("#x") || entity.startsWith("#X")) {
      return String.fromCodePoint(parseInt(entity.slice(2), 16));
    }
    if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? whole;
  });
}

function toCase(raw: RawCase, root: string): TestCase {
  const { name = "", classname = "", file = classname } = raw.attributes;
  // A suite named like the case's file is the file itself (Bun, Deno, vitest), not a `describe`.
  const titles = raw.suites.filter((suite) => suite !== file);
  const outcome = raw.failure !== undefined ? "failed" : raw.skipped === true ? "skipped" : "passed";
  return {
    name: [...titles, relativePath(name, root)].join(SEPARATOR),
    file: relativePath(file, root),
    outcome,
    message: firstLine(raw.failure ?? ""),
  };
}

function relativePath(path: string, root: string): string {
  for (const prefix of [`file://${root}/`, `${root}/`, "./"]) {
    if (path.startsWith(prefix)) return path.slice(prefix.length);
  }
  return path;
}

function firstLine(message: string): string {
  const line = message.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  return line.length > MESSAGE_LENGTH ? `${line.slice(0, MESSAGE_LENGTH - 1)}…` : line;
}

/**
 * Deno files a step (`outer > case`) under `ext:deno_node/testing.ts`; its file is that of the
 * top-level case `outer`. Two files with the same top-level name give both, as "a, b".
 */
function topLevelFile(step: TestCase, cases: readonly TestCase[]): string {
  const top = step.name.split(SEPARATOR)[0];
  const tops = cases.filter((c) => c.name === top && !c.file.startsWith("ext:"));
  const failing = tops.filter((c) => c.outcome === "failed");
  const files = [
    ...new Set((step.outcome === "failed" && failing.length > 0 ? failing : tops).map((c) => c.file)),
  ];
  return files.length > 0 ? files.join(", ") : step.file;
}

/**
 * The test files of `given` that no case of `cases` names: Bun and Deno leave a file that crashed
 * on load out of their report.
 *
 * @returns Those files, in the order given.
 */
export function filesWithoutCases(given: readonly string[], cases: readonly TestCase[]): string[] {
  const named = new Set(cases.flatMap((c) => c.file.split(", ")));
  return given.filter((file) => !named.has(file));
}

/** How many cases passed, failed and were skipped. */
export function countCases(cases: readonly TestCase[]): { passed: number; failed: number; skipped: number } {
  const count = (outcome: TestCase["outcome"]) => cases.filter((c) => c.outcome === outcome).length;
  return { passed: count("passed"), failed: count("failed"), skipped: count("skipped") };
}

/**
 * What failed in one step, as lines per failure: each failed case (its file, its name and the
 * first line of its message), each file that a failed step's report leaves out, and the step
 * itself when nothing else says why it failed.
 */
function failuresOf(outcome: StepOutcome): string[][] {
  const { step, cases, exit } = outcome;
  if (outcome.unreadable !== undefined) {
    return [[`${step}: wrote no readable JUnit report: ${outcome.unreadable}`]];
  }
  const failures = (cases ?? []).filter((c) => c.outcome === "failed").map((c) => [
    c.name === c.file ? `${step}: ${c.file}` : `${step}: ${c.file}: ${c.name}`,
    ...(c.message === "" ? [] : [`  ${c.message}`]),
  ]);
  if (exit !== 0) {
    for (const file of outcome.silentFiles ?? []) {
      failures.push([`${step}: ${file}`, "  reported no test case (did it fail to load?)"]);
    }
  }
  if (cases !== undefined && cases.every((c) => c.outcome === "skipped")) {
    failures.push([`${step}: ran zero tests`]);
  }
  if (failures.length === 0 && exit !== 0) {
    const ended = typeof exit === "number" ? `exited with code ${exit}` : `ended by ${exit}`;
    failures.push([`${step}: ${ended}${cases === undefined ? "" : ", and no test case failed"}`]);
  }
  return failures;
}

/**
 * Whether a step passed: it exited with 0, and if it has a JUnit report, that report was read and
 * has at least one test that ran and none that failed.
 */
export function stepPassed(outcome: StepOutcome): boolean {
  return failuresOf(outcome).length === 0;
}

/**
 * The closing summary of `npm test`: a line per step, then each failure with its step (a failed
 * test with its file and the first line of its message; a file a runtime left out of its report;
 * a step that failed without a failed test), then `N passed, N failed` as the last line.
 *
 * @param outcomes The steps that ran, in order.
 * @param seconds How long the whole run took.
 * @returns The lines, without line ends.
 */
export function summaryLines(outcomes: readonly StepOutcome[], seconds: number): string[] {
  const width = Math.max(...outcomes.map((o) => o.step.length));
  const lines = ["── summary"];
  const failureLines: string[] = [];
  let passed = 0;
  let failed = 0;
  for (const outcome of outcomes) {
    const failures = failuresOf(outcome);
    const counts = outcome.cases === undefined ? undefined : countCases(outcome.cases);
    const tally = counts === undefined
      ? ""
      : `  ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
    const time = `${outcome.seconds.toFixed(1).padStart(6)} s`;
    lines.push(`${failures.length === 0 ? "ok  " : "FAIL"} ${outcome.step.padEnd(width)} ${time}${tally}`);
    passed += counts?.passed ?? 0;
    failed += failures.length;
    failureLines.push(...failures.flat());
  }
  lines.push(`total ${seconds.toFixed(1)} s`);
  if (failureLines.length > 0) lines.push("", "── failed", ...failureLines);
  lines.push(`${passed} passed, ${failed} failed`);
  return lines;
}
