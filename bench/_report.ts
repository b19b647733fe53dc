/**
 * RESULTS.md: the machine, the method, every target's verdict, the measured sections, the Worker,
 * the figures measured by hand, and the profiles of missed targets.
 *
 * @module
 */
import type { RunResults } from "./_results.ts";
import type { Verdict } from "./_verdict.ts";
import { measuredSections } from "./_report-sections.ts";
import { showSpread } from "./_verdict.ts";
import { WORKERS_LIMITS } from "./_targets-front.ts";
import { limitsOf } from "./_limits.ts";
import { profileMarkdown } from "./_cpu-profile.ts";
import { handMeasuresSection } from "./_hand-measures.ts";

/**
 * Whether other work loaded the machine when the run began (a load average over a quarter of
 * the cores; the load at the end counts the bench's own processes, so it tells nothing).
 */
function busyMachine(results: RunResults): boolean {
  return results.machine.loadBefore > results.machine.cores / 4;
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

function machineSection(results: RunResults): string {
  const m = results.machine;
  const versions = Object.entries(m.versions).map(([name, version]) => `| ${name} | ${version} |`);
  return [
    "## Machine",
    "",
    "| CPU | cores | memory | OS | load average (1 min) before the run / at its end (the bench's own included) |",
    "|---|--:|--:|---|---|",
    `| ${m.cpu} | ${m.cores} | ${gib(m.memoryBytes)} | ${m.os} | ${m.loadBefore.toFixed(2)} / ${
      m.loadAfter.toFixed(2)
    } |`,
    "",
    "| runtime or package | version |",
    "|---|---|",
    ...versions,
    "",
  ].join("\n");
}

function methodSection(results: RunResults): string {
  const runs = results.quick ? "3" : "5";
  const ran = results.suites.map((s) => `${s.runtime}: ${Object.keys(s.seconds).join(", ")}`).join("; ");
  return [
    "## Method",
    "",
    `- Every figure is the median of ${runs} runs; brackets give the min–max of the runs. Contenders take turns within each run (in a rotating order), and every ratio is taken run by run and then summarized, so a comparison is between measures of the same moment.`,
    "- One process per runtime runs every benchmark that applies (`bench/suite.ts`); helper servers (the fast peer, the front, server-everything, workerd) are separate processes on the same machine and share its cores.",
    `- What ran where: ${ran}. The legacy flow, the front and the Worker are Node only: server-everything and the front's \`@sluice/mcp/node\` are Node programs, and the Worker runs in workerd.`,
    "- Node runs the compiled bench (`tsc -p tsconfig.bench.json`) with `--expose-gc`; Deno runs the sources with `-A --v8-flags=--expose-gc`; Bun runs the sources.",
    "",
  ].join("\n");
}

function durationsSection(results: RunResults): string {
  const sections = [...new Set(results.suites.flatMap((s) => Object.keys(s.seconds)))];
  const cell = (seconds: number | undefined) => (seconds === undefined ? "–" : seconds.toFixed(0));
  return [
    "## Durations",
    "",
    `The whole run took ${
      (results.seconds / 60).toFixed(1)
    } minutes (wall clock), profiles included. Seconds per section:`,
    "",
    `| runtime | ${sections.join(" | ")} |`,
    `|---|${sections.map(() => "--:").join("|")}|`,
    ...results.suites.map((s) =>
      `| ${s.runtime} ${s.version} | ${sections.map((n) => cell(s.seconds[n])).join(" | ")} |`
    ),
    "",
  ].join("\n");
}

function targetsSection(verdicts: readonly Verdict[]): string {
  const rows = verdicts.map((v) =>
    `| ${v.runtime} | ${v.target} | ${v.measured.replaceAll("|", "\\|")} | ${v.ok ? "ok" : "**MISSED**"} |`
  );
  const missed = verdicts.filter((v) => !v.ok).length;
  return [
    "## Targets",
    "",
    `${verdicts.length - missed} ok, ${missed} missed.`,
    "",
    "| runtime | target | measured: median [min–max of runs] | verdict |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

function workerSection(results: RunResults): string {
  const worker = results.suites.find((s) => s.runtime === "node")?.sections.worker;
  if (worker === undefined) return "";
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  return [
    "## The Worker (`examples/worker`)",
    "",
    "Bundled by `scripts/build-worker.ts` (`wrangler deploy --dry-run --minify`); gzip level 9, which is what the size limit counts. Cold start: a fresh `workerd serve` with a generated config (compatibility date of wrangler.jsonc, no flags), timed from spawn to the first `200` from `GET /healthz`, polled every millisecond; a trivial Worker is started the same way, in turn, and the difference start by start is sluice's script (parse, compile, top-level run and first request in the isolate).",
    "",
    "| figure | value |",
    "|---|--:|",
    `| minified | ${kib(worker.bytes)} |`,
    `| gzipped | ${kib(worker.gzipBytes)} |`,
    `| Workers Free limit (compressed) | ${kib(WORKERS_LIMITS.freeBytes)} (${
      (worker.gzipBytes / WORKERS_LIMITS.freeBytes * 100).toFixed(1)
    }% used) |`,
    `| Workers Paid limit (compressed) | ${kib(WORKERS_LIMITS.paidBytes)} (${
      (worker.gzipBytes / WORKERS_LIMITS.paidBytes * 100).toFixed(1)
    }% used) |`,
    `| cold start, example (ms) | ${showSpread(worker.coldStartMs, 1)} |`,
    `| cold start, trivial Worker (ms) | ${showSpread(worker.baselineMs, 1)} |`,
    `| sluice's script's share (ms) | ${showSpread(worker.scriptMs, 1)} |`,
    "",
    "Limits: Cloudflare's Workers limits page (developers.cloudflare.com/workers/platform/limits/) lists a Worker size of 3 MB on Workers Free and 10 MB on Workers Paid, after compression, and a startup time limit of 1 second; earlier versions of that page listed 1 MB for Free and 400 ms. Not re-checked online from this machine (it reaches only the package registry); nothing in this repository or its design notes states them.",
    "",
  ].join("\n");
}

function profilesSection(results: RunResults): string {
  if (results.profiles.length === 0) return "";
  return [
    "## What limits the missed targets",
    "",
    "Each scenario behind a missed target: first what the run's own figures say, then a CPU profile of sluice's side of it (`bench/profile.ts`, sampling every 200 µs; client-side scenarios after a warm-up, the front as its own process from start to exit), on Node except `mrtr-deno` and `mrtr-bun`, taken on their runtime with its global fetch through its inspector. `node:` internals include Node's bundled undici, its `Response` and streams; Deno's are its `ext:` scripts, Bun's its `internal:` scripts (Bun's native code, its fetch and streams included, has no script and counts as native; and Bun's inspector records no idle samples, so its busy time includes time spent waiting on I/O). Self time is time spent in the function itself, not its callees.",
    "",
    ...results.profiles.flatMap((p) => [
      `### \`${p.scenario}\``,
      "",
      `Explains: ${p.explains.join("; ")}.`,
      "",
      limitsOf(p.scenario, results),
      p.summary === undefined ? "" : profileMarkdown(p.summary),
      "",
    ]),
  ].join("\n");
}

/**
 * Writes the whole of RESULTS.md.
 *
 * @param results The run's results.
 * @param verdicts The targets' verdicts.
 * @returns Markdown.
 */
export function renderResults(results: RunResults, verdicts: readonly Verdict[]): string {
  const minutes = (results.seconds / 60).toFixed(1);
  const title = results.quick
    ? "# sluice benchmarks (QUICK RUN: small counts, not for citing)"
    : "# sluice benchmarks";
  return [
    title,
    "",
    `Written by \`npm run bench\`${
      results.quick ? " -- --quick" : ""
    } on ${results.startedAt}; the whole run took ${minutes} minutes. Do not edit by hand: run it again.`,
    "",
    ...(busyMachine(results)
      ? [
        `**The machine was busy when this run began** (1-minute load average ${
          results.machine.loadBefore.toFixed(2)
        } on ${results.machine.cores} cores): other work shared the cores, so the figures are noisier and slower than on a quiet machine.`,
        "",
      ]
      : []),
    ...(results.failures.length === 0 ? [] : [
      "## FAILURES",
      "",
      ...results.failures.map((f) => `- ${f.replaceAll("\n", " ").slice(0, 400)}`),
      "",
    ]),
    machineSection(results),
    methodSection(results),
    targetsSection(verdicts),
    measuredSections(results),
    workerSection(results),
    handMeasuresSection(),
    profilesSection(results),
    durationsSection(results),
    "## Run it",
    "",
    "`npm run bench` (about the time above; `-- --quick` for a check of the harness in about a minute and a half, written to `bench/.tmp/quick/`; `-- --runtimes node --only mrtr,front` for a part). Every run's values are in `bench/.tmp/results.json`. A scenario's profile by itself: `node bench/.tmp/bench/profile.js mrtr <dir> 6` after `tsc -p tsconfig.bench.json`.",
    "",
  ].join("\n");
}
