/**
 * The targets, judged from one run's results: each verdict names the runtime, what was measured
 * (median and spread of the runs, ratios taken run by run) and ok or MISSED, and which profile
 * scenario (`profile.ts`) explains a miss.
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import { linearFit } from "./_stats.ts";
import { runtimeLabel, showSpread, type Verdict } from "./_verdict.ts";
import { legacyVerdicts, mrtrFetches, mrtrRow, mrtrVerdicts } from "./_targets-flows.ts";
import { frontVerdicts, memoryVerdicts, workerVerdicts } from "./_targets-front.ts";

/**
 * One loopback MRTR round on this runtime, in nanoseconds: the bare-fetch floor's time per HTTP
 * request at one round, on the fastest fetch measured (the chain's budget is a share of it).
 */
function loopbackRoundNs(suite: SuiteResult): number | undefined {
  const rows = suite.sections.mrtr ?? [];
  const times = mrtrFetches(suite).flatMap((fetch) => {
    const floor = mrtrRow(rows, 1, "floor", fetch);
    return floor === undefined ? [] : [1e9 / floor.callsPerSecond.median / 2];
  });
  return times.length === 0 ? undefined : Math.min(...times);
}

function chainVerdicts(suite: SuiteResult): Verdict[] {
  const rows = suite.sections.chain;
  if (rows === undefined) return [];
  const runtime = runtimeLabel(suite);
  // The rule: the chain costs under 2% of one loopback MRTR round on this runtime.
  const round = loopbackRoundNs(suite);
  const out: Verdict[] = round === undefined ? [] : rows.filter((r) => r.group === "kind").map((r) => ({
    runtime,
    target: `Chain overhead < 2% of one loopback round (${(round / 1000).toFixed(0)} µs): ${r.name}`,
    measured: `${showSpread(r.addedNs, 0, " ns")} added (${(100 * r.addedNs.median / round).toFixed(1)}%)`,
    ok: r.addedNs.median < 0.02 * round,
    profile: "chain",
  }));
  const groups = [["form-same", "same form"], ["form-new", "new form each call"], [
    "messages",
    "sampling messages",
  ]];
  for (const [group, label] of groups) {
    const points = rows.filter((r) => r.group === group).map((r) => ({ x: r.size, y: r.addedNs.median }));
    if (points.length < 3) continue;
    const fit = linearFit(points);
    const unit = group === "messages" ? "message" : "field";
    // No faster than linear: the last step's cost per item is at most 1.5× the fitted slope.
    const [a, b] = points.slice(-2) as [{ x: number; y: number }, { x: number; y: number }];
    const last = (b.y - a.y) / (b.x - a.x);
    out.push({
      runtime,
      target: `Chain overhead linear in ${
        group === "messages" ? "message count" : "form size"
      } (${label}): R² ≥ 0.95, last step ≤ 1.5× the slope`,
      measured: `R² ${fit.r2.toFixed(3)}, ${fit.slope.toFixed(0)} ns per ${unit} + ${
        fit.intercept.toFixed(0)
      } ns; last step ${last.toFixed(0)} ns per ${unit}`,
      ok: fit.r2 >= 0.95 && last <= 1.5 * fit.slope,
      profile: "chain-growth",
    });
  }
  return out;
}

function sanitizeVerdicts(suite: SuiteResult): Verdict[] {
  const ascii = suite.sections.sanitize?.find((r) => r.name === "ASCII");
  if (ascii === undefined) return [];
  return [{
    runtime: runtimeLabel(suite),
    target: "sanitizeText ≥ 200 MB/s on ASCII",
    measured: `${showSpread(ascii.sanitizeMBps, 0, " MB/s")} (naive regex ${
      ascii.naiveMBps.median.toFixed(0)
    })`,
    ok: ascii.sanitizeMBps.median >= 200,
    profile: "sanitize",
  }];
}

/**
 * Judges every target on every runtime.
 *
 * @param suites The runtimes' results.
 * @param cores The machine's cores (for "until the cores are busy").
 * @returns The verdicts, runtime by runtime.
 */
export function judgeTargets(suites: readonly SuiteResult[], cores: number): Verdict[] {
  return suites.flatMap((suite) => [
    ...mrtrVerdicts(suite),
    ...legacyVerdicts(suite),
    ...chainVerdicts(suite),
    ...sanitizeVerdicts(suite),
    ...frontVerdicts(suite, cores),
    ...memoryVerdicts(suite),
    ...workerVerdicts(suite),
  ]);
}

export type { Verdict } from "./_verdict.ts";
