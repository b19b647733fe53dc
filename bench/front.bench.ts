/**
 * The front's cost: `tools/call` throughput from sluice's client straight to the fast loopback
 * peer, and through the front (its own process, `@sluice/mcp/node`) to the same peer, side by
 * side in one run. Two tools: `echo` (one upstream POST) and `ask_form` (one form elicitation,
 * answered by the front's handler: two upstream POSTs, one downstream). Each is run one call at
 * a time and with 8 calls in flight; the median of the repeats counts.
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
  const direct = client(peer.url);
  const gated = client(front.url);
  const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
  try {
    const rows: FrontRow[] = [];
    for (const [tool, inFlight] of [["echo", 1], ["echo", 8], ["ask_form", 1], ["ask_form", 8]] as const) {
      const call = (c: ReturnType<typeof client>) => async (i: number) =>
        text(await c.callTool("peer", tool, tool === "echo" ? { text: String(i) } : {}));
      const contenders = [call(direct), call(gated)];
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
        name: `${tool}, ${inFlight} in flight`,
        directPerSecond: median(samples[0]),
        frontPerSecond: median(samples[1]),
      });
    }
    return rows;
  } finally {
    await direct.close();
    await gated.close();
    await front.stop();
    await peer.stop();
  }
}
