/**
 * `npm run properties`: every property test, deep, on Node. Runs each test file that uses
 * fast-check with `SLUICE_PROPERTY_RUNS=10000` (or the number given: `npm run properties -- 500`),
 * only its property tests (those whose name ends in `(N runs)`, see
 * tests/_support/property-runs.ts), and prints one row per property: name, runs, result and
 * seconds, then a closing total line. Exits non-zero when a property fails or none ran.
 *
 * `SLUICE_PROPERTY_SEED` is passed through, to explore other inputs than the fixed seed's.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const runs = process.argv[2] ?? "10000";
if (!/^[1-9]\d*$/.test(runs)) {
  throw new TypeError(`properties: the run count must be a positive integer, received "${runs}"`);
}

/** Test files that run on Node and use fast-check. */
function propertyFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (/(?<!\.(?:deno|bun))\.test\.ts$/.test(entry.name)) {
        if (/from "fast-check"/.test(readFileSync(path, "utf8"))) found.push(relative(root, path));
      }
    }
  };
  walk(join(root, "tests"));
  return found.sort();
}

interface Row {
  readonly name: string;
  readonly runs: string;
  readonly result: "pass" | "FAIL";
  readonly seconds: number;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) {
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    }
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return XML_ENTITIES[name] ?? whole;
  });
}

/** The property rows of a Node JUnit report. */
function readRows(xml: string): Row[] {
  const rows: Row[] = [];
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attributes = match[1] ?? "";
    const name = unescapeXml(/\bname="([^"]*)"/.exec(attributes)?.[1] ?? "");
    const count = /\((\d+) runs\)$/.exec(name);
    if (count === null || /<skipped\b/.test(match[3] ?? "")) continue;
    rows.push({
      name: name.slice(0, count.index).trimEnd(),
      runs: count[1]!,
      result: /<(failure|error)\b/.test(match[3] ?? "") ? "FAIL" : "pass",
      seconds: Number(/\btime="([^"]*)"/.exec(attributes)?.[1] ?? "0"),
    });
  }
  return rows;
}

const files = propertyFiles();
const reports = mkdtempSync(join(tmpdir(), "sluice-properties-"));
const junit = join(reports, "node.xml");
console.log(`── ${files.length} files, SLUICE_PROPERTY_RUNS=${runs}: ${files.join(" ")}`);
const started = performance.now();
const run = spawnSync(process.execPath, [
  "--import",
  "tsx",
  "--test",
  "--test-name-pattern=\\(\\d+ runs\\)$",
  "--test-reporter=dot",
  "--test-reporter-destination=stdout",
  "--test-reporter=junit",
  `--test-reporter-destination=${junit}`,
  ...files.map((file) => `./${file}`),
], { cwd: root, stdio: "inherit", env: { ...process.env, SLUICE_PROPERTY_RUNS: runs } });
const wall = (performance.now() - started) / 1000;
let rows: Row[] = [];
try {
  rows = readRows(readFileSync(junit, "utf8"));
} finally {
  rmSync(reports, { recursive: true, force: true });
}

const width = Math.max(8, ...rows.map((row) => row.name.length));
console.log(`\n${"property".padEnd(width)}  ${"runs".padStart(6)}  result  ${"seconds".padStart(8)}`);
console.log(`${"-".repeat(width)}  ${"-".repeat(6)}  ------  ${"-".repeat(8)}`);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(width)}  ${row.runs.padStart(6)}  ${row.result.padEnd(6)}  ${
      row.seconds.toFixed(2).padStart(8)
    }`,
  );
}
const failed = rows.filter((row) => row.result === "FAIL").length;
const summed = rows.reduce((sum, row) => sum + row.seconds, 0);
console.log(
  `total: ${rows.length} properties, ${rows.length - failed} passed, ${failed} failed, ` +
    `${summed.toFixed(1)} s in properties, ${wall.toFixed(1)} s wall`,
);
process.exitCode = run.status === 0 && failed === 0 && rows.length > 0 ? 0 : 1;
