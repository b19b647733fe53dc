/**
 * Multi round-trip throughput against one lean loopback modern server (bench/fast-peer.ts), in one run: `calls` tool calls
 * that each need one form elicitation, made by (a) sluice, (b) the official
 * `@modelcontextprotocol/client` 2.4.0 with an equivalent handler, (c) a bare fetch loop doing the
 * same two POSTs (the floor). Each contender runs `repeats` times, interleaved, and the median
 * is reported.
 *
 * @module
 */
import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "../mod.ts";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { awaitLine, stopChild } from "../tests/_support/modern-peer.ts";

/** Starts bench/fast-peer.ts (compiled next to this file) as its own process. */
async function startFastPeer(): Promise<{ url: string; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL("./fast-peer.js", import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
  const url = await awaitLine(child, "stdout", /^FAST_PEER_URL (\S+)$/);
  return { url, stop: () => stopChild(child) };
}

/** One contender's figures. */
export interface MrtrRow {
  readonly name: string;
  readonly callsPerSecond: number;
  readonly msPerCall: number;
}

const ANSWER = { name: "Ada", age: 36 };

function meta(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "floor", version: "1" },
  };
}

/** The floor: exactly the two POSTs of one round, with no validation at all. */
async function floorCall(url: string, id: number): Promise<string> {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "ask_form",
  };
  const post = async (params: Record<string, unknown>, requestId: number) => {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: requestId, method: "tools/call", params }),
    });
    return (await response.json()).result;
  };
  const first = await post({ name: "ask_form", arguments: {}, _meta: meta() }, id);
  const key = Object.keys(first.inputRequests)[0] as string;
  const final = await post({
    name: "ask_form",
    arguments: {},
    _meta: meta(),
    inputResponses: { [key]: { action: "accept", content: ANSWER } },
    requestState: first.requestState,
  }, id + 1);
  return final.content[0].text;
}

async function timed(calls: number, call: (i: number) => Promise<string>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const text = await call(i);
    // sluice also applies the form's default (subscribe: false); the others send the answer as is.
    if ((JSON.parse(text) as { name?: unknown }).name !== ANSWER.name) {
      throw new Error(`unexpected result ${text}`);
    }
  }
  return performance.now() - started;
}

/**
 * Runs the three contenders against one peer.
 *
 * @param calls Tool calls per run.
 * @param repeats Runs per contender (interleaved); the median counts.
 * @returns One row per contender.
 */
export async function benchMrtr(calls = 1000, repeats = 3): Promise<MrtrRow[]> {
  const peer = await startFastPeer();
  try {
    const sluice = createClient({
      name: "bench",
      handler: { elicitation: () => ({ action: "accept", content: ANSWER }) },
      // A budget the bench never exhausts (the default 10/s would refuse it, as it should).
      policies: [{
        server: "peer",
        transport: { url: peer.url },
        era: "modern",
        inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
      }],
    });
    const official = new OfficialClient({ name: "bench", version: "1" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    official.setRequestHandler("elicitation/create", () => ({ action: "accept", content: ANSWER }));
    await official.connect(new StreamableHTTPClientTransport(new URL(peer.url)));
    const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
    const contenders: Array<[string, (i: number) => Promise<string>]> = [
      ["sluice", async () => text(await sluice.callTool("peer", "ask_form"))],
      [
        "official client 2.4.0",
        async () => text(await official.callTool({ name: "ask_form", arguments: {} })),
      ],
      ["bare fetch (floor)", (i) => floorCall(peer.url, 2 * i + 1)],
    ];
    for (const [, call] of contenders) await timed(50, call); // warm-up
    const samples = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
    for (let r = 0; r < repeats; r++) {
      for (const [name, call] of contenders) samples.get(name)?.push(await timed(calls, call));
    }
    await official.close();
    await sluice.close();
    return contenders.map(([name]) => {
      const sorted = [...(samples.get(name) ?? [])].sort((a, b) => a - b);
      const ms = sorted[Math.floor(sorted.length / 2)] ?? NaN;
      return { name, callsPerSecond: (calls * 1000) / ms, msPerCall: ms / calls };
    });
  } finally {
    await peer.stop();
  }
}
