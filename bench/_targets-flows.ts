/**
 * The targets of the protocol flows: MRTR (sluice ≥ 1.5× the official client's calls per second,
 * and its time per call within 1.25× the bare-fetch floor's) and legacy (sluice ≥ 1.5× the
 * official SDK's calls per second), ratios taken run by run.
 *
 * Every MRTR ratio is between contenders on the same fetch: the global fetch on every runtime, and
 * on Node also `createNodeFetch()` (sluice's self-hosted entry, and the official client and the
 * floor given one), so each target is judged once per fetch.
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import type { MrtrRow } from "./mrtr.bench.ts";
import { ratioOf } from "./_stats.ts";
import { runtimeLabel, showSpread, type Verdict } from "./_verdict.ts";

/**
 * The fetches the MRTR contenders ran on in this suite, global first.
 *
 * @param suite The runtime's results.
 * @returns `["global"]`, or `["global", "undici"]` on Node.
 */
export function mrtrFetches(suite: SuiteResult): string[] {
  return [...new Set((suite.sections.mrtr ?? []).map((r) => r.fetch))];
}

/**
 * How a fetch is named in targets and tables.
 *
 * @param fetch `global` or `undici`.
 * @returns Its name.
 */
export function fetchLabel(fetch: string): string {
  return fetch === "undici" ? "createNodeFetch()" : "global fetch";
}

/**
 * The profile scenario (`profile.ts`) that explains a missed MRTR target of this runtime and fetch.
 *
 * @param suite The runtime's results.
 * @param fetch The fetch of the target.
 * @returns The scenario's name.
 */
export function mrtrProfile(suite: SuiteResult, fetch: string): string {
  if (suite.runtime !== "node") return `mrtr-${suite.runtime}`;
  return fetch === "undici" ? "mrtr" : "mrtr-global";
}

/**
 * One MRTR contender's row.
 *
 * @param rows The runtime's MRTR rows.
 * @param rounds The round count.
 * @param who `sluice`, `official` or `floor`.
 * @param fetch `global` or `undici`.
 * @returns The row, if measured.
 */
export function mrtrRow(
  rows: readonly MrtrRow[],
  rounds: number,
  who: string,
  fetch: string,
): MrtrRow | undefined {
  return rows.find((r) => r.rounds === rounds && r.who === who && r.fetch === fetch);
}

/**
 * The MRTR verdicts of one runtime.
 *
 * @param suite The runtime's results.
 * @returns Two verdicts per fetch and round count.
 */
export function mrtrVerdicts(suite: SuiteResult): Verdict[] {
  const rows = suite.sections.mrtr;
  if (rows === undefined) return [];
  const runtime = runtimeLabel(suite);
  const out: Verdict[] = [];
  for (const fetch of mrtrFetches(suite)) {
    // Each runtime's misses are explained by a profile taken on that runtime, with that fetch.
    const profile = mrtrProfile(suite, fetch);
    for (const rounds of [...new Set(rows.map((r) => r.rounds))]) {
      const ours = mrtrRow(rows, rounds, "sluice", fetch);
      const official = mrtrRow(rows, rounds, "official", fetch);
      const floor = mrtrRow(rows, rounds, "floor", fetch);
      if (ours === undefined || official === undefined || floor === undefined) continue;
      const label = `MRTR ${rounds} round${rounds === 1 ? "" : "s"}, ${fetchLabel(fetch)} on every side`;
      const vsOfficial = ratioOf(ours.callsPerSecond, official.callsPerSecond);
      out.push({
        runtime,
        target: `${label}: sluice ≥ 1.5× the official client's calls/s`,
        measured: `${showSpread(vsOfficial)}×`,
        ok: vsOfficial.median >= 1.5,
        profile,
      });
      // Time per call is the inverse of calls per second: floor's rate over ours.
      const vsFloor = ratioOf(floor.callsPerSecond, ours.callsPerSecond);
      out.push({
        runtime,
        target: `${label}: sluice's time per call ≤ 1.25× the floor's`,
        measured: `${showSpread(vsFloor)}×`,
        ok: vsFloor.median <= 1.25,
        profile,
      });
    }
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
