/**
 * The front's cost: `tools/call` throughput from sluice's client straight to the fast loopback
 * peer, and through the front (its own process, `@sluice/mcp/node`) to the same peer, side by
 * side in one run. Two tools: `echo` (one upstream POST) and `ask_form` (one form elicitation,
 * answered by the front's handler: two upstream POSTs, one downstream). Each is run one call at
 * a time and with 8 calls in flight; the median of the repeats counts. A last case gives `echo`
 * 5 ms of work upstream (a second peer), as a real tool has: the front's cost in proportion.
 *
 * All processes (bench client, front, peer) share the machine's cores, so on a small machine the
 * front's CPU is taken from the others: the ratio is the worst case of a busy single host.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createClient } from "../mod.ts";
import { awaitLine, stopChild } from "../tests/_support/modern-peer.ts";

/** One case's figures. */
export interface FrontRow {
  readonly name: string;
  readonly directPerSecond: number;
  readonly frontPerSecond: number;
}

async function start(script: string, args: string[], pattern: RegExp) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await awaitLine(child, "stdout", pattern);
  return { url, stop: () => stopChild(child) };
}

const ANSWER = { name: "Ada", age: 36 };

async function perSecond(
  calls: number,
  inFlight: number,
  call: (i: number) => Promise<string>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < calls) {
      const i = next++;
      const text = await call(i);
      if (text !== String(i) && !text.startsWith('{"name":"Ada"')) {
        throw new Error(`unexpected result ${text}`);
      }
    }
  }));
  return (calls * 1000) / (performance.now() - started);
}

/**
 * Runs the cases.
 *
 * @param calls Calls per run.
 * @param repeats Runs per contender (interleaved); the median counts.
 * @returns One row per case.
 */
export async function benchFront(calls = 1000, repeats = 3): Promise<FrontRow[]> {
  const peer = await start("./fast-peer.js", [], /^FAST_PEER_URL (\S+)$/);
  const front = await start("./front-process.js", [peer.url], /^FRONT_URL (\S+)$/);
  const slowPeer = await start("./fast-peer.js", ["--work-ms", "5"], /^FAST_PEER_URL (\S+)$/);
  const slowFront = await start("./front-process.js", [slowPeer.url], /^FRONT_URL (\S+)$/);
  const client = (url: string) =>
    createClient({
      name: "bench",
      handler: { elicitation: () => ({ action: "accept", content: ANSWER }) },
      policies: [{
        server: "peer",
        transport: { url },
        era: "modern",
        inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
      }],
    });
  const pairs = {
    fast: [client(peer.url), client(front.url)],
    slow: [client(slowPeer.url), client(slowFront.url)],
  } as const;
  const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
  try {
    const rows: FrontRow[] = [];
    const cases = [
      ["echo", 1, "fast"],
      ["echo", 8, "fast"],
      ["ask_form", 1, "fast"],
      ["ask_form", 8, "fast"],
      ["echo", 8, "slow"],
    ] as const;
    for (const [tool, inFlight, upstream] of cases) {
      const call = (c: ReturnType<typeof client>) => async (i: number) =>
        text(await c.callTool("peer", tool, tool === "echo" ? { text: String(i) } : {}));
      const contenders = pairs[upstream].map(call);
      for (const run of contenders) await perSecond(100, inFlight, run); // warm-up
      const samples: number[][] = [[], []];
      for (let r = 0; r < repeats; r++) {
        for (const [index, run] of contenders.entries()) {
          samples[index]?.push(await perSecond(calls, inFlight, run));
        }
      }
      const median = (values: number[] = []) =>
        [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
      rows.push({
        name: `${tool}${upstream === "slow" ? " (5 ms tool)" : ""}, ${inFlight} in flight`,
        directPerSecond: median(samples[0]),
        frontPerSecond: median(samples[1]),
      });
    }
    return rows;
  } finally {
    for (const c of [...pairs.fast, ...pairs.slow]) await c.close();
    for (const process of [front, peer, slowFront, slowPeer]) await process.stop();
  }
}
