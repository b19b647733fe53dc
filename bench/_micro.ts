/**
 * A small micro-benchmark harness that runs on Node, Deno and Bun alike: each case is warmed up
 * and calibrated to a batch of about `batchMs`, then the cases run `runs` times, interleaved
 * (run 1 of every case, then run 2 of every case, …), so cases compared with each other share
 * the machine's moments. A case's figure is nanoseconds per call, one value per run.
 *
 * A case whose function returns a promise is awaited call by call (as its callers do).
 *
 * Hand-written rather than mitata (which this project used before): mitata measures each case to
 * the end before the next, while every ratio in the report is taken run by run between cases that
 * ran at the same moments, which on a shared 2-core machine is what keeps the ratios honest.
 *
 * @module
 */
import { type Spread, spreadOf } from "./_stats.ts";

/** One function to time. */
export interface MicroCase {
  readonly name: string;
  readonly fn: () => unknown;
  /** Awaits every call even when it returns no promise (a baseline for an async contender). */
  readonly awaited?: boolean;
}

/** How long and how often. */
export interface MicroOptions {
  /** Runs per case. */
  readonly runs: number;
  /** The length of one run (one batch of calls), in milliseconds. */
  readonly batchMs: number;
}

/** Keeps results alive so no engine drops a call whose result is unused. */
let sink: unknown;

/** Reads the sink (so it is not dead code either). */
export function sinkValue(): unknown {
  return sink;
}

async function batch(fn: () => unknown, calls: number, awaited: boolean): Promise<number> {
  const started = performance.now();
  if (awaited) {
    for (let i = 0; i < calls; i++) sink = await fn();
  } else {
    for (let i = 0; i < calls; i++) sink = fn();
  }
  return performance.now() - started;
}

/** Finds how many calls fill `ms`, warming the case up on the way. */
async function calibrate(fn: () => unknown, ms: number, awaited: boolean): Promise<number> {
  let calls = 1;
  for (;;) {
    const took = await batch(fn, calls, awaited);
    if (took >= ms / 4) return Math.max(1, Math.ceil((calls * ms) / took));
    calls *= took < ms / 64 ? 8 : 2;
  }
}

/**
 * Times every case.
 *
 * @param cases The cases, in the order they run within a run.
 * @param options Runs and batch length.
 * @returns Nanoseconds per call of each case, by name.
 */
export async function measureMicro(
  cases: readonly MicroCase[],
  options: MicroOptions,
): Promise<Map<string, Spread>> {
  const plans = [];
  for (const c of cases) {
    const first = c.fn();
    const awaited = c.awaited === true || first instanceof Promise;
    if (awaited) await first;
    const calls = await calibrate(c.fn, options.batchMs, awaited);
    plans.push({ ...c, awaited, calls, runs: [] as number[] });
  }
  for (let run = 0; run < options.runs; run++) {
    for (const plan of plans) {
      const ms = await batch(plan.fn, plan.calls, plan.awaited);
      plan.runs.push((ms * 1e6) / plan.calls);
    }
  }
  return new Map(plans.map((plan) => [plan.name, spreadOf(plan.runs)]));
}
