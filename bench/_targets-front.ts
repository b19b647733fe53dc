/**
 * The targets of the front (its time within 1.3× and its CPU within 2× one bare extra hop's, its
 * throughput at least 2× the official gateway's and growing with concurrency until the cores are
 * busy), of memory (stated, and flat over churn) and of the
 * Worker (bundle well inside the free plan's 3 MB compressed, start well inside the 1 s limit).
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import type { FrontRow } from "./front.bench.ts";
import { ratioOf } from "./_stats.ts";
import { runtimeLabel, showSpread, type Verdict } from "./_verdict.ts";

/** Cloudflare Workers' size limits after compression, and the startup limit. */
export const WORKERS_LIMITS = { freeBytes: 3 * 1024 * 1024, paidBytes: 10 * 1024 * 1024, startupMs: 1000 };

/** The front's targets against the floor (one bare extra hop) and the official gateway. */
export const FRONT_TARGETS = { timeOverFloor: 1.3, cpuOverFloor: 2, overOfficial: 2 } as const;

/**
 * The front's verdicts (Node only). For each case with the peer answering at once: sluice's time
 * per call is at most 1.3× the floor's, its gateway process's CPU per call at most 2× the
 * floor's, and its calls/s at least 2× the official gateway's (ratios taken run by run). The
 * curve's: throughput at its peak is at least 1.3× the throughput of one call in flight, and at
 * the peak the three processes keep at least 75% of the machine's cores busy (so what stopped
 * the growth was the CPU, not the front serializing calls). What happens past the peak, and the
 * cases with a 5 ms tool, are stated, not judged.
 *
 * @param suite The runtime's results.
 * @param cores The machine's cores.
 * @returns Three per judged case, and one for the curve.
 */
export function frontVerdicts(suite: SuiteResult, cores: number): Verdict[] {
  const front = suite.sections.front;
  if (front === undefined) return [];
  const runtime = runtimeLabel(suite);
  const out: Verdict[] = [];
  for (const row of front.cases) {
    const { floor, sluice, official } = row.by;
    if (row.upstream !== "fast" || floor === undefined || sluice === undefined) continue;
    // Time per call = 1 / calls per second: sluice's time over the floor's = floor rate / sluice rate.
    const time = ratioOf(floor.perSecond, sluice.perSecond);
    out.push({
      runtime,
      target: `The front's time ≤ ${FRONT_TARGETS.timeOverFloor}× the floor's: ${row.name}`,
      measured: `${showSpread(time)}× the floor's time`,
      ok: time.median <= FRONT_TARGETS.timeOverFloor,
      profile: "front",
    });
    const cpu = ratioOf(sluice.cpuUs.gateway, floor.cpuUs.gateway);
    out.push({
      runtime,
      target: `The front's CPU per call ≤ ${FRONT_TARGETS.cpuOverFloor}× the floor's: ${row.name}`,
      measured: `${showSpread(cpu)}× (${sluice.cpuUs.gateway.median.toFixed(0)} µs / ${
        floor.cpuUs.gateway.median.toFixed(0)
      } µs a call)`,
      ok: cpu.median <= FRONT_TARGETS.cpuOverFloor,
      profile: "front",
    });
    if (official === undefined) continue;
    const over = ratioOf(sluice.perSecond, official.perSecond);
    out.push({
      runtime,
      target: `The front's calls/s ≥ ${FRONT_TARGETS.overOfficial}× the official gateway's: ${row.name}`,
      measured: `${showSpread(over)}× (${sluice.perSecond.median.toFixed(0)}/s against ${
        official.perSecond.median.toFixed(0)
      }/s)`,
      ok: over.median >= FRONT_TARGETS.overOfficial,
    });
  }
  const curve = front.curve;
  const rateOf = (row: FrontRow) => row.by.sluice?.perSecond.median ?? NaN;
  if (curve.length >= 2) {
    const rates = curve.map(rateOf);
    const peak = Math.max(...rates);
    const peakAt = curve[rates.indexOf(peak)];
    const first = rates[0] as number;
    const last = rates[rates.length - 1] as number;
    const busy = peakAt?.by.sluice?.coresBusy.median ?? NaN;
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
