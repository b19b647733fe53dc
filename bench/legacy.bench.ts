/**
 * The legacy era (2025-11-25): one `tools/call` of server-everything's `trigger-sampling-request`,
 * which sends one `sampling/createMessage` back to the client before it answers, made by sluice
 * (`@sluice/mcp/legacy` `createClient`, with its default fetch on Node: a `createNodeFetch()`
 * pool) and by the official `@modelcontextprotocol/sdk` 1.32.2 `Client` (its default: the global
 * fetch) with an equivalent sampling handler. Over stdio (each client spawns its own server) and
 * over Streamable HTTP (one server, a session each), one call at a time, contenders in turn
 * within each run. The bench process's CPU time per call is the clients' own cost (the server is
 * another process).
 *
 * Node only: server-everything is a Node program, and the legacy entry's Node fetch is the point.
 *
 * @module
 */
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Client, createClient, type Policy } from "../src/legacy.ts";
import { everythingStdioCommand, startEverythingHttp } from "../tests/_support/everything.ts";
import { ownCpuSeconds } from "./_processes.ts";
import { type Spread, spreadOf } from "./_stats.ts";

/** One contender over one transport. */
export interface LegacyRow {
  /** `stdio` or `HTTP`. */
  readonly transport: string;
  /** `sluice` or `official`. */
  readonly who: string;
  readonly name: string;
  /** Calls before the runs, with this contender's server. */
  readonly warmup: number;
  readonly calls: number;
  readonly callsPerSecond: Spread;
  /** This process's CPU time per call, in microseconds. */
  readonly cpuUsPerCall: Spread;
}

/** Options of {@linkcode benchLegacy}. */
export interface LegacyOptions {
  /**
   * Calls per contender before the runs. Both clients and server-everything are still compiling
   * their code for the first thousand calls or so: with a short warm-up, calls/s rises run after
   * run and the median mixes warm-up with the steady state that a long-lived client sees.
   */
  readonly warmup: number;
  /** Calls per contender per run. */
  readonly calls: number;
  readonly runs: number;
}

interface Contender {
  readonly who: string;
  call(): Promise<string>;
  close(): Promise<void>;
}

const REPLY = { role: "assistant", content: { type: "text", text: "canned reply" }, model: "bench" } as const;
const ARGS = { prompt: "hi", maxTokens: 100 };
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

function sluice(transport: Policy["transport"]): Contender {
  const client: Client = createClient({
    name: "bench",
    handler: { sampling: () => REPLY },
    policies: [{
      server: "everything",
      transport,
      era: "legacy",
      inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
    }],
  });
  return {
    who: "sluice",
    call: async () => textOf(await client.callTool("everything", "trigger-sampling-request", ARGS)),
    close: () => client.close(),
  };
}

async function official(transport: "stdio" | string): Promise<Contender> {
  const client = new SdkClient({ name: "bench", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, () => REPLY);
  if (transport === "stdio") {
    const { command, args } = everythingStdioCommand();
    await client.connect(new StdioClientTransport({ command, args: [...args], stderr: "ignore" }));
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(transport)));
  }
  return {
    who: "official",
    call: async () => textOf(await client.callTool({ name: "trigger-sampling-request", arguments: ARGS })),
    close: () => client.close(),
  };
}

async function timed(c: Contender, calls: number): Promise<{ ms: number; cpu: number }> {
  const cpu = ownCpuSeconds();
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const text = await c.call();
    if (!text.includes("canned reply")) throw new Error(`${c.who}: unexpected result ${text}`);
  }
  return { ms: performance.now() - started, cpu: ownCpuSeconds() - cpu };
}

async function measure(
  transport: string,
  list: readonly Contender[],
  options: LegacyOptions,
): Promise<LegacyRow[]> {
  for (const c of list) await timed(c, options.warmup); // the handshake included
  const samples = list.map(() => ({ rate: [] as number[], cpu: [] as number[] }));
  for (let run = 0; run < options.runs; run++) {
    for (let k = 0; k < list.length; k++) {
      const index = (k + run) % list.length;
      const { ms, cpu } = await timed(list[index] as Contender, options.calls);
      samples[index]?.rate.push((options.calls * 1000) / ms);
      samples[index]?.cpu.push((cpu * 1e6) / options.calls);
    }
  }
  return list.map((c, index) => ({
    transport,
    who: c.who,
    name: c.who === "sluice" ? "sluice (legacy entry)" : "official SDK 1.32.2",
    warmup: options.warmup,
    calls: options.calls,
    callsPerSecond: spreadOf(samples[index]?.rate ?? []),
    cpuUsPerCall: spreadOf(samples[index]?.cpu ?? []),
  }));
}

/**
 * Runs both contenders over stdio, then over HTTP.
 *
 * @param options Calls per run and runs.
 * @returns One row per transport and contender.
 */
export async function benchLegacy(options: LegacyOptions): Promise<LegacyRow[]> {
  const rows: LegacyRow[] = [];
  const stdio = [sluice(everythingStdioCommand()), await official("stdio")];
  try {
    rows.push(...await measure("stdio", stdio, options));
  } finally {
    for (const c of stdio) await c.close();
  }
  const server = await startEverythingHttp();
  const http = [sluice({ url: server.url }), await official(server.url)];
  try {
    rows.push(...await measure("HTTP", http, options));
  } finally {
    for (const c of http) await c.close();
    await server.stop();
  }
  return rows;
}
