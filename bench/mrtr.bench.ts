/**
 * Multi round-trip (MRTR) throughput against one lean loopback modern server (bench/fast-peer.ts):
 * tool calls that each need 0, 1, 3 or 10 rounds of form elicitation, one call at a time, made by
 * sluice's `createClient`, the official `@modelcontextprotocol/client` 2.4.0 with an equivalent
 * handler, and a bare fetch loop doing the same POSTs with no validation (the floor).
 *
 * The three always share one fetch, so every ratio compares clients, not fetches. With the global
 * fetch, sluice is the root entry (`mod.ts`) as it comes. On Node they run a second time on
 * sluice's `createNodeFetch()` (`undici.request`): sluice as the self-hosted entry
 * (`@sluice/mcp/legacy`) as it comes, which sends through its own `createNodeFetch()` on Node, and
 * the official client and the floor given a `createNodeFetch()` of their own as `fetch`. Deno and
 * Bun have one fetch, their global one, which both entries use.
 *
 * Each run makes about `posts` HTTP requests per contender; contenders take turns within a run,
 * in a rotating order. The bench process's CPU time per call is recorded too: the peer is
 * another process, so that is the client's own cost.
 *
 * @module
 */
import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "../mod.ts";
import { ownCpuSeconds, runtimeName, startFastPeer } from "./_processes.ts";
import { type Spread, spreadOf } from "./_stats.ts";
import { floorCall } from "./_mrtr-floor.ts";

/** One contender at one round count. */
export interface MrtrRow {
  readonly rounds: number;
  /** `sluice`, `official` or `floor`. */
  readonly who: string;
  /** `global` or `undici`. */
  readonly fetch: string;
  readonly name: string;
  readonly calls: number;
  readonly callsPerSecond: Spread;
  /** This process's CPU time per call, in microseconds. */
  readonly cpuUsPerCall: Spread;
}

/** The round counts measured. */
export const MRTR_ROUNDS: readonly number[] = [0, 1, 3, 10];

/** Options of {@linkcode benchMrtr}. */
export interface MrtrOptions {
  /** HTTP requests per contender per run (calls = posts / (rounds + 1)). */
  readonly posts: number;
  readonly runs: number;
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

interface Contender {
  readonly who: string;
  readonly fetch: string;
  call(rounds: number, id: number): Promise<string>;
  close(): Promise<void>;
}

const ANSWER = { name: "Ada", age: 36 };
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

/** sluice's `createClient` of the root or the self-hosted entry, with the fetch it comes with. */
function sluice(url: string, fetchName: string, create: typeof createClient = createClient): Contender {
  const client = create({
    name: "bench",
    handler: { elicitation: () => ({ action: "accept", content: ANSWER }) },
    // A budget the bench never exhausts (the default 10/s would refuse it, as it should).
    policies: [{
      server: "peer",
      transport: { url },
      era: "modern",
      maxRounds: 16,
      inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
    }],
  });
  return {
    who: "sluice",
    fetch: fetchName,
    call: async (rounds) => text(await client.callTool("peer", "ask_rounds", { rounds })),
    close: () => client.close(),
  };
}

async function official(url: string, fetchName: string, fetch?: Fetch): Promise<Contender> {
  const client = new OfficialClient({ name: "bench", version: "1" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    inputRequired: { maxRounds: 16 },
  });
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: ANSWER }));
  const options = fetch === undefined
    ? {}
    : { fetch: (u: string | URL, init?: RequestInit) => fetch(String(u), init ?? {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), options));
  return {
    who: "official",
    fetch: fetchName,
    call: async (rounds) => text(await client.callTool({ name: "ask_rounds", arguments: { rounds } })),
    close: () => client.close(),
  };
}

function floor(url: string, fetchName: string, fetch: Fetch): Contender {
  return {
    who: "floor",
    fetch: fetchName,
    call: (rounds, id) => floorCall(fetch, url, rounds, id),
    close: () => Promise.resolve(),
  };
}

/** Makes the contenders of this runtime; on Node, the undici ones too. */
async function contenders(url: string): Promise<{ list: Contender[]; close: () => Promise<void> }> {
  const global: Fetch = (u, init) => fetch(u, init);
  const list = [sluice(url, "global"), await official(url, "global"), floor(url, "global", global)];
  if (runtimeName() !== "node") return { list, close: () => Promise.resolve() };
  const { createNodeFetch } = await import("../src/transport/node-fetch.ts");
  const selfHosted = await import("../src/legacy.ts");
  // One pool each (the self-hosted entry makes its own), so no contender reuses another's warm sockets.
  const pools = [createNodeFetch(), createNodeFetch()] as const;
  list.push(
    sluice(url, "undici", selfHosted.createClient),
    await official(url, "undici", pools[0]),
    floor(url, "undici", pools[1]),
  );
  return { list, close: async () => void await Promise.all(pools.map((pool) => pool.close())) };
}

const WHO: Readonly<Record<string, string>> = {
  official: "official client 2.4.0",
  floor: "bare fetch (floor)",
  sluice: "sluice",
};

const nameOf = (c: Contender) => {
  const entry = c.who !== "sluice" ? "" : c.fetch === "undici" ? " (@sluice/mcp/legacy)" : " (root entry)";
  return `${WHO[c.who]}${entry}, ${c.fetch === "undici" ? "createNodeFetch()" : "global fetch"}`;
};

let ids = 1;

async function timed(c: Contender, rounds: number, calls: number): Promise<{ ms: number; cpu: number }> {
  const expected = JSON.stringify({ rounds, name: "Ada" });
  const cpu = ownCpuSeconds();
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const got = await c.call(rounds, ids += 100);
    // The peer checks every round's answer and names the rounds it asked for.
    if (got !== expected) throw new Error(`${nameOf(c)}: unexpected result ${got}`);
  }
  return { ms: performance.now() - started, cpu: ownCpuSeconds() - cpu };
}

/**
 * Runs every contender at every round count against one peer.
 *
 * @param options Requests per run and runs.
 * @returns One row per round count and contender.
 */
export async function benchMrtr(options: MrtrOptions): Promise<MrtrRow[]> {
  const peer = await startFastPeer();
  const { list, close } = await contenders(peer.url);
  const rows: MrtrRow[] = [];
  try {
    for (const rounds of MRTR_ROUNDS) {
      const calls = Math.max(5, Math.ceil(options.posts / (rounds + 1)));
      // Warm-up: about 200 requests each.
      for (const c of list) await timed(c, rounds, Math.max(10, Math.ceil(200 / (rounds + 1))));
      const samples = list.map(() => ({ rate: [] as number[], cpu: [] as number[] }));
      for (let run = 0; run < options.runs; run++) {
        for (let k = 0; k < list.length; k++) {
          const index = (k + run) % list.length;
          const { ms, cpu } = await timed(list[index] as Contender, rounds, calls);
          samples[index]?.rate.push((calls * 1000) / ms);
          samples[index]?.cpu.push((cpu * 1e6) / calls);
        }
      }
      list.forEach((c, index) =>
        rows.push({
          rounds,
          who: c.who,
          fetch: c.fetch,
          name: nameOf(c),
          calls,
          callsPerSecond: spreadOf(samples[index]?.rate ?? []),
          cpuUsPerCall: spreadOf(samples[index]?.cpu ?? []),
        })
      );
    }
    return rows;
  } finally {
    for (const c of list) await c.close();
    await close();
    await peer.stop();
  }
}
