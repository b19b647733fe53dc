/**
 * The targets of the protocol flows: MRTR (sluice ≥ 1.5× the official client's calls per second,
 * and its time per call within 1.25× the bare-fetch floor's with the same fetch) and legacy
 * (sluice ≥ 1.5× the official SDK's calls per second), ratios taken run by run.
 *
 * On Node, sluice is judged with `createNodeFetch()` (what the self-hosted entry uses on Node by
 * default, and what a Node user passes to the edge entry), against the official client as it
 * comes (global fetch) and against the floor with the same `createNodeFetch()`.
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import type { MrtrRow } from "./mrtr.bench.ts";
import { ratioOf } from "./_stats.ts";
import { runtimeLabel, showSpread, type Verdict } from "./_verdict.ts";

/** The fetch sluice is judged with on this runtime. */
export function sluiceFetch(suite: SuiteResult): string {
  return suite.runtime === "node" ? "undici" : "global";
}

function find(rows: readonly MrtrRow[], rounds: number, who: string, fetch: string): MrtrRow | undefined {
  return rows.find((r) => r.rounds === rounds && r.who === who && r.fetch === fetch);
}

/**
 * The MRTR verdicts of one runtime.
 *
 * @param suite The runtime's results.
 * @returns Two verdicts per round count.
 */
export function mrtrVerdicts(suite: SuiteResult): Verdict[] {
  const rows = suite.sections.mrtr;
  if (rows === undefined) return [];
  const runtime = runtimeLabel(suite);
  const fetch = sluiceFetch(suite);
  // Each runtime's misses are explained by a profile taken on that runtime.
  const profile = suite.runtime === "node" ? "mrtr" : `mrtr-${suite.runtime}`;
  const out: Verdict[] = [];
  for (const rounds of [...new Set(rows.map((r) => r.rounds))]) {
    const ours = find(rows, rounds, "sluice", fetch);
    const official = find(rows, rounds, "official", "global");
    const floor = find(rows, rounds, "floor", fetch);
    if (ours === undefined || official === undefined || floor === undefined) continue;
    const label = `${rounds} round${rounds === 1 ? "" : "s"}`;
    const vsOfficial = ratioOf(ours.callsPerSecond, official.callsPerSecond);
    out.push({
      runtime,
      target: `MRTR ${label}: sluice ≥ 1.5× the official client's calls/s`,
      measured: `${showSpread(vsOfficial)}×`,
      ok: vsOfficial.median >= 1.5,
      profile,
    });
    // Time per call is the inverse of calls per second: floor's rate over ours.
    const vsFloor = ratioOf(floor.callsPerSecond, ours.callsPerSecond);
    out.push({
      runtime,
      target: `MRTR ${label}: sluice's time per call ≤ 1.25× the floor's`,
      measured: `${showSpread(vsFloor)}×`,
      ok: vsFloor.median <= 1.25,
      profile,
    });
  }
  return out;
}

/**
 * The legacy verdicts (Node only).
 *
 * @param suite The runtime's results.
 * @returns One verdict per transport.
 */
export function legacyVerdicts(suite: SuiteResult): Verdict[] {
  const rows = suite.sections.legacy;
  if (rows === undefined) return [];
  const out: Verdict[] = [];
  for (const transport of [...new Set(rows.map((r) => r.transport))]) {
    const ours = rows.find((r) => r.transport === transport && r.who === "sluice");
    const official = rows.find((r) => r.transport === transport && r.who === "official");
    if (ours === undefined || official === undefined) continue;
    const ratio = ratioOf(ours.callsPerSecond, official.callsPerSecond);
    const cpu = ratioOf(official.cpuUsPerCall, ours.cpuUsPerCall);
    out.push({
      runtime: runtimeLabel(suite),
      target: `Legacy tools/call with sampling over ${transport}: sluice ≥ 1.5× the official SDK's calls/s`,
      measured: `${showSpread(ratio)}× (client CPU per call: official / sluice ${cpu.median.toFixed(2)}×)`,
      ok: ratio.median >= 1.5,
      profile: transport === "stdio" ? "legacy-stdio" : "legacy-http",
    });
  }
  return out;
}
