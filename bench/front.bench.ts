/**
 * The front's cost: `tools/call` throughput to the fast loopback peer by four contenders side by
 * side in each run, each gateway its own process in front of the same peer:
 *
 * - `direct`: straight to the peer, no gateway;
 * - `floor`: a bare pass-through proxy (`bench/floor-proxy.ts`, `node:http` and an undici pool,
 *   parsing only to answer a form round): the least one extra hop costs;
 * - `sluice`: sluice's `serve()` (`@sluice/mcp/node`, `bench/front-process.ts`);
 * - `official`: the official SDK v2 as a hand-written gateway (`bench/official-gateway.ts`).
 *
 * Two tools: `echo` (one upstream POST) and `ask_form` (one form elicitation, answered by the
 * gateway itself: two upstream POSTs, one downstream). Each is run one call at a time and with 8
 * calls in flight. Two last cases give `echo` 5 ms of work upstream (a second peer and its own
 * gateways), as a real tool has: the gateway's cost in proportion. Then the concurrency curve:
 * `echo` with 1 to 256 calls in flight, direct and through sluice, with the share of the
 * machine's cores the three processes (bench client, gateway, peer) kept busy.
 *
 * The bench client is the same for every contender: sluice's `createClient` with
 * `createNodeFetch()`, the fetch the front itself uses upstream, so the client takes as little of
 * the shared cores as it can. Each process's CPU time is read from `/proc`; a gateway's CPU per
 * call is its own cost. All processes share the machine's cores, so on a small machine a
 * gateway's CPU is taken from the others. Node only.
 *
 * @module
 */
import { createClient } from "../mod.ts";
import { createNodeFetch } from "../src/transport/node-fetch.ts";
import { type Helper, startFastPeer, startHelper } from "./_processes.ts";
import { type LoadRun, runLoad } from "./_front-load.ts";
import { type Spread, spreadOf } from "./_stats.ts";

/** The contenders, in the order of the tables. */
export const FRONT_CONTENDERS = ["direct", "floor", "sluice", "official"] as const;
/** One contender of the front bench. */
export type FrontContender = (typeof FRONT_CONTENDERS)[number];

/** One contender's figures in one case. */
export interface ContenderFigures {
  readonly perSecond: Spread;
  /** Cores kept busy by the client, the gateway and the peer (1 = one core). */
  readonly coresBusy: Spread;
  /** CPU µs per call of each process; `gateway` is `NaN` for `direct`. */
  readonly cpuUs: ProcessCpu;
}

/** One case: every contender that ran it. */
export interface FrontRow {
  readonly name: string;
  readonly tool: "echo" | "ask_form";
  /** `fast`: the peer answers at once; `slow`: its `echo` takes 5 ms. */
  readonly upstream: "fast" | "slow";
  readonly inFlight: number;
  readonly calls: number;
  readonly by: Partial<Record<FrontContender, ContenderFigures>>;
}

/** CPU microseconds per call of each process. */
export interface ProcessCpu {
  readonly client: Spread;
  readonly peer: Spread;
  readonly gateway: Spread;
}

function figuresOf(runs: readonly LoadRun[]): ContenderFigures {
  const cpu = (i: number) => spreadOf(runs.map((r) => r.cpuUsPerCall[i] ?? NaN));
  return {
    perSecond: spreadOf(runs.map((r) => r.rate)),
    coresBusy: spreadOf(runs.map((r) => r.cores)),
    cpuUs: { client: cpu(0), peer: cpu(1), gateway: cpu(2) },
  };
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

/** One peer and the gateways in front of it. */
interface Upstream {
  readonly peer: Helper;
  readonly gateways: Readonly<Record<Exclude<FrontContender, "direct">, Helper>>;
}

async function startUpstream(workMs: number): Promise<Upstream> {
  const peer = await startFastPeer(workMs);
  const [floor, sluice, official] = await Promise.all([
    startHelper("floor-proxy.js", [peer.url], /^FLOOR_URL (\S+)$/),
    startHelper("front-process.js", [peer.url], /^FRONT_URL (\S+)$/),
    startHelper("official-gateway.js", [peer.url], /^OFFICIAL_URL (\S+)$/),
  ]);
  return { peer, gateways: { floor, sluice, official } };
}

/**
 * Runs the cases, then the concurrency curve.
 *
 * @param options Calls per run, runs and the curve's levels.
 * @returns The cases' rows and the curve's rows.
 */
export async function benchFront(options: FrontOptions): Promise<{ cases: FrontRow[]; curve: FrontRow[] }> {
  const fast = await startUpstream(0);
  const slow = await startUpstream(5);
  const pool = createNodeFetch();
  const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
  const caller = (url: string) => {
    const client = createClient({
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
    return {
      client,
      call: (tool: string, i: number) =>
        client.callTool("peer", tool, tool === "echo" ? { text: String(i) } : {}).then(text),
    };
  };
  const callers = new Map<string, ReturnType<typeof caller>>();
  const callerOf = (upstream: Upstream, who: FrontContender) => {
    const url = who === "direct" ? upstream.peer.url : upstream.gateways[who].url;
    let made = callers.get(url);
    if (made === undefined) callers.set(url, made = caller(url));
    return made;
  };
  const measure = async (
    tool: "echo" | "ask_form",
    inFlight: number,
    which: "fast" | "slow",
    calls: number,
    who: readonly FrontContender[],
  ): Promise<FrontRow> => {
    const upstream = which === "fast" ? fast : slow;
    const runs = who.map((contender) => {
      const { call } = callerOf(upstream, contender);
      const pids = [upstream.peer.pid, ...(contender === "direct" ? [] : [upstream.gateways[contender].pid])];
      return (n: number) => runLoad(n, inFlight, (i) => call(tool, i), pids);
    });
    // Warm-up: each gateway is a fresh process, its code not yet optimized.
    for (const run of runs) await run(Math.min(calls, 300));
    const measured: LoadRun[][] = who.map(() => []);
    for (let r = 0; r < options.runs; r++) {
      // A rotating order, so no contender always runs first (or right after the same one).
      for (let k = 0; k < who.length; k++) {
        const index = (k + r) % who.length;
        measured[index]?.push(await (runs[index] as (n: number) => Promise<LoadRun>)(calls));
      }
    }
    const by: Partial<Record<FrontContender, ContenderFigures>> = {};
    who.forEach((contender, i) => (by[contender] = figuresOf(measured[i] ?? [])));
    return {
      name: `${tool}${which === "slow" ? " (5 ms tool)" : ""}, ${inFlight} in flight`,
      tool,
      upstream: which,
      inFlight,
      calls,
      by,
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
    for (const [tool, inFlight, which] of list) {
      // A 5 ms tool takes 5 ms a call: fewer calls make a run as long as the others'.
      const calls = which === "slow" ? Math.ceil(options.calls * (inFlight === 1 ? 0.4 : 1)) : options.calls;
      cases.push(await measure(tool, inFlight, which, calls, FRONT_CONTENDERS));
    }
    const curve: FrontRow[] = [];
    for (const level of options.levels ?? FRONT_CONCURRENCY) {
      curve.push(
        await measure("echo", level, "fast", Math.max(options.calls, 8 * level), ["direct", "sluice"]),
      );
    }
    return { cases, curve };
  } finally {
    for (const { client } of callers.values()) await client.close();
    await pool.close();
    for (const upstream of [fast, slow]) {
      await Promise.all(Object.values(upstream.gateways).map((helper) => helper.stop()));
      await upstream.peer.stop();
    }
  }
}
