/**
 * The front's cost: `tools/call` throughput from sluice's client straight to the fast loopback
 * peer, and through the front (its own process, `@sluice/mcp/node`) to the same peer, side by
 * side in each run. Two tools: `echo` (one upstream POST) and `ask_form` (one form elicitation,
 * answered by the front's handler: two upstream POSTs, one downstream). Each is run one call at
 * a time and with 8 calls in flight. Two last cases give `echo` 5 ms of work upstream (a second
 * peer), as a real tool has: the front's cost in proportion. Then the concurrency curve: `echo`
 * with 1 to 256 calls in flight, direct and through the front, with the share of the machine's
 * cores the three processes (bench client, front, peer) kept busy.
 *
 * The bench client uses `createNodeFetch()`, as the front itself does upstream, so the client
 * takes as little of the shared cores as it can. All processes share the machine's cores, so on
 * a small machine the front's CPU is taken from the others: the ratio is the worst case of a
 * busy single host. Node only.
 *
 * @module
 */
import { createClient } from "../mod.ts";
import { createNodeFetch } from "../src/transport/node-fetch.ts";
import { type Helper, startFastPeer, startHelper } from "./_processes.ts";
import { type LoadRun, runLoad } from "./_front-load.ts";
import { type Spread, spreadOf } from "./_stats.ts";

/** One case: direct and through the front. */
export interface FrontRow {
  readonly name: string;
  readonly inFlight: number;
  readonly calls: number;
  readonly directPerSecond: Spread;
  readonly frontPerSecond: Spread;
  /** Cores kept busy by the client, front and peer during the front's runs (1 = one core). */
  readonly frontCoresBusy: Spread;
  readonly directCoresBusy: Spread;
  /** CPU µs per call of each process (bench client, peer, front), direct and through the front. */
  readonly directCpuUs: ProcessCpu;
  readonly frontCpuUs: ProcessCpu;
}

/** CPU microseconds per call of each process. */
export interface ProcessCpu {
  readonly client: Spread;
  readonly peer: Spread;
  readonly front: Spread;
}

function processCpu(runs: readonly LoadRun[]): ProcessCpu {
  const of = (i: number) => spreadOf(runs.map((r) => r.cpuUsPerCall[i] as number));
  return { client: of(0), peer: of(1), front: of(2) };
}

/** The concurrency levels of the curve. */
export const FRONT_CONCURRENCY: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Options of {@linkcode benchFront}. */
export interface FrontOptions {
  /** Calls per contender per run (at least 8 per call in flight on the curve). */
  readonly calls: number;
  readonly runs: number;
  /** Concurrency levels of the curve. */
  readonly levels?: readonly number[];
}

const ANSWER = { name: "Ada", age: 36 };

interface Pair {
  readonly peer: Helper;
  readonly front: Helper;
}

async function startPair(workMs: number): Promise<Pair> {
  const peer = await startFastPeer(workMs);
  const front = await startHelper("front-process.js", [peer.url], /^FRONT_URL (\S+)$/);
  return { peer, front };
}

/**
 * Runs the cases, then the concurrency curve.
 *
 * @param options Calls per run, runs and the curve's levels.
 * @returns The cases' rows and the curve's rows.
 */
export async function benchFront(options: FrontOptions): Promise<{ cases: FrontRow[]; curve: FrontRow[] }> {
  const fast = await startPair(0);
  const slow = await startPair(5);
  const pool = createNodeFetch();
  const client = (url: string) =>
    createClient({
      name: "bench",
      fetch: pool,
      handler: { elicitation: () => ({ action: "accept", content: ANSWER }) },
      policies: [{
        server: "peer",
        transport: { url },
        era: "modern",
        inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
      }],
    });
  const clients = {
    fast: [client(fast.peer.url), client(fast.front.url)],
    slow: [client(slow.peer.url), client(slow.front.url)],
  } as const;
  const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
  const measure = async (tool: string, inFlight: number, upstream: "fast" | "slow", calls: number) => {
    const pair = upstream === "fast" ? fast : slow;
    const pids = [pair.peer.pid, pair.front.pid];
    const runs = clients[upstream].map((c) => (i: number) =>
      c.callTool("peer", tool, tool === "echo" ? { text: String(i) } : {}).then(text)
    );
    // Warm-up: the front is a fresh process, its code not yet optimized.
    for (const run of runs) await runLoad(Math.min(calls, 300), inFlight, run, pids);
    const measured: LoadRun[][] = [[], []];
    for (let r = 0; r < options.runs; r++) {
      for (let k = 0; k < 2; k++) {
        const index = (k + r) % 2;
        measured[index]?.push(
          await runLoad(calls, inFlight, runs[index] as (i: number) => Promise<string>, pids),
        );
      }
    }
    const [direct = [], through = []] = measured;
    return {
      name: `${tool}${upstream === "slow" ? " (5 ms tool)" : ""}, ${inFlight} in flight`,
      inFlight,
      calls,
      directPerSecond: spreadOf(direct.map((r) => r.rate)),
      frontPerSecond: spreadOf(through.map((r) => r.rate)),
      directCoresBusy: spreadOf(direct.map((r) => r.cores)),
      frontCoresBusy: spreadOf(through.map((r) => r.cores)),
      directCpuUs: processCpu(direct),
      frontCpuUs: processCpu(through),
    };
  };
  try {
    const cases: FrontRow[] = [];
    const list = [
      ["echo", 1, "fast"],
      ["echo", 8, "fast"],
      ["ask_form", 1, "fast"],
      ["ask_form", 8, "fast"],
      ["echo", 1, "slow"],
      ["echo", 8, "slow"],
    ] as const;
    for (const [tool, inFlight, upstream] of list) {
      // A 5 ms tool takes 5 ms a call: fewer calls make a run as long as the others'.
      const calls = upstream === "slow"
        ? Math.ceil(options.calls * (inFlight === 1 ? 0.4 : 1))
        : options.calls;
      cases.push(await measure(tool, inFlight, upstream, calls));
    }
    const curve: FrontRow[] = [];
    for (const level of options.levels ?? FRONT_CONCURRENCY) {
      curve.push(await measure("echo", level, "fast", Math.max(options.calls, 8 * level)));
    }
    return { cases, curve };
  } finally {
    for (const c of [...clients.fast, ...clients.slow]) await c.close();
    await pool.close();
    for (const helper of [fast.front, fast.peer, slow.front, slow.peer]) await helper.stop();
  }
}
