/**
 * The targets of the front (it adds at most 20% to a call's time, and its throughput grows with
 * concurrency until the cores are busy), of memory (stated, and flat over churn) and of the
 * Worker (bundle well inside the free plan's 3 MB compressed, start well inside the 1 s limit).
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import { ratioOf } from "./_stats.ts";
import { runtimeLabel, showSpread, type Verdict } from "./_verdict.ts";

/** Cloudflare Workers' size limits after compression, and the startup limit. */
export const WORKERS_LIMITS = { freeBytes: 3 * 1024 * 1024, paidBytes: 10 * 1024 * 1024, startupMs: 1000 };

/**
 * The front's verdicts (Node only). The curve's: throughput at its peak is at least 1.3× the
 * throughput of one call in flight, and at the peak the three processes keep at least 75% of the
 * machine's cores busy (so what stopped the growth was the CPU, not the front serializing calls).
 * What happens past the peak is stated, not judged.
 *
 * @param suite The runtime's results.
 * @param cores The machine's cores.
 * @returns One per case, and one for the curve.
 */
export function frontVerdicts(suite: SuiteResult, cores: number): Verdict[] {
  const front = suite.sections.front;
  if (front === undefined) return [];
  const runtime = runtimeLabel(suite);
  const out: Verdict[] = front.cases.map((row) => {
    // Time per call through the front over time per call direct = direct rate / front rate.
    const added = ratioOf(row.directPerSecond, row.frontPerSecond);
    return {
      runtime,
      target: `The front adds ≤ 20% to a call's time: ${row.name}`,
      measured: `${showSpread(added)}× the direct time`,
      ok: added.median <= 1.2,
      profile: "front",
    };
  });
  const curve = front.curve;
  if (curve.length >= 2) {
    const rates = curve.map((r) => r.frontPerSecond.median);
    const peak = Math.max(...rates);
    const peakAt = curve[rates.indexOf(peak)];
    const first = rates[0] as number;
    const last = rates[rates.length - 1] as number;
    const busy = peakAt?.frontCoresBusy.median ?? NaN;
    out.push({
      runtime,
      target: "The front's throughput grows with concurrency until the cores are busy",
      measured: `peak ${peak.toFixed(0)}/s at ${peakAt?.inFlight} in flight = ${
        (peak / first).toFixed(2)
      }× one in flight, ${busy.toFixed(2)} of ${cores} cores busy there; at ${
        curve[curve.length - 1]?.inFlight
      } in flight: ${(last / peak * 100).toFixed(0)}% of the peak`,
      ok: peak / first >= 1.3 && busy >= 0.75 * cores,
      profile: "front",
    });
  }
  return out;
}

/**
 * The memory verdicts: flat when every measure is within 25% of the smallest and what stays after
 * letting go is under 64 bytes or 5% per item.
 *
 * @param suite The runtime's results.
 * @returns One per subject.
 */
export function memoryVerdicts(suite: SuiteResult): Verdict[] {
  return (suite.sections.memory ?? []).map((row) => {
    const s = row.perItemBytes;
    const flat = s.max <= 1.25 * s.min;
    const leakFree = row.retainedBytes < Math.max(64, 0.05 * s.median);
    return {
      runtime: runtimeLabel(suite),
      target: `Memory per ${row.name}: stated, flat over churn, nothing kept`,
      measured: `${showSpread(s, 0, " B")} over ${row.perItem.length} measures to ${
        row.perItem[row.perItem.length - 1]?.allocated
      } made; kept after release ${row.retainedBytes.toFixed(0)} B/item`,
      ok: flat && leakFree,
    };
  });
}

/**
 * The Worker's verdicts: bundle under a third of the free plan's limit; the script's share of a
 * cold start under a tenth of the startup limit.
 *
 * @param suite The runtime's results.
 * @returns Two verdicts.
 */
export function workerVerdicts(suite: SuiteResult): Verdict[] {
  const worker = suite.sections.worker;
  if (worker === undefined) return [];
  const runtime = runtimeLabel(suite);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  return [
    {
      runtime,
      target: "Worker bundle well inside the free plan (gzip ≤ 1 MiB, a third of 3 MiB)",
      measured: `${kb(worker.gzipBytes)} gzipped (${
        (worker.gzipBytes / WORKERS_LIMITS.freeBytes * 100).toFixed(1)
      }% of the free plan, ${(worker.gzipBytes / WORKERS_LIMITS.paidBytes * 100).toFixed(1)}% of paid), ${
        kb(worker.bytes)
      } minified`,
      ok: worker.gzipBytes <= WORKERS_LIMITS.freeBytes / 3,
    },
    {
      runtime,
      target: "Worker start: sluice's script adds ≤ 100 ms (a tenth of the 1 s startup limit)",
      measured: `${showSpread(worker.scriptMs, 1, " ms")} over a trivial Worker (cold start ${
        worker.coldStartMs.median.toFixed(0)
      } ms in all)`,
      ok: worker.scriptMs.median <= WORKERS_LIMITS.startupMs / 10,
    },
  ];
}
