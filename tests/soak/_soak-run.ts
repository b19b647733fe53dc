/**
 * A bounded soak of the front, loopback only: the front runs in its own process
 * (`_soak-front.ts`) before the hostile modern server and the hostile stdio server; this process
 * is the downstream caller (sluice's own client). Workers call, round-robin, `ask_form` (an
 * elicitation the front defers down to this caller, who answers it), `ask_sample` (sampling the
 * front's handler answers), `chatty` (log notifications streamed down) and `echo`, while one more
 * worker keeps the flooder busy: floods of server requests and of notifications and logs.
 *
 * Used by `tests/soak/soak.node.test.ts` (short form) and `scripts/soak.ts` (`npm run soak`).
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type Client, ClientError, createClient } from "../../src/legacy.ts";
import { type HostileHttpServer, startHostileHttp } from "../_support/hostile-process.ts";
import { awaitLine, nodeBinary, REPO_ROOT, stopChild } from "../_support/modern-peer.ts";
import type { FrontStats } from "./_soak-front.ts";

/** How long and how hard to soak. */
export interface SoakOptions {
  /** How long the workers call, in milliseconds. */
  readonly durationMs: number;
  /** Concurrent callers of the modern upstream. */
  readonly workers: number;
  /** Server requests in each flood of the flooder. */
  readonly floodCount: number;
  /** Notifications and logs (each) in each noise call of the flooder. */
  readonly noiseCount: number;
  /** Hears progress lines. */
  readonly onProgress?: (line: string) => void;
}

/** The front's figures at one moment of the soak. */
export interface SoakSample extends FrontStats {
  /** Milliseconds since the workers started. */
  readonly atMs: number;
  /** Calls completed by then. */
  readonly calls: number;
}

/** What a soak came to. */
export interface SoakReport {
  readonly durationMs: number;
  /** Calls that completed, by tool. */
  readonly completed: Record<string, number>;
  /** Calls that failed, by `<tool> <kind> <code>`. */
  readonly failed: Record<string, number>;
  /** How the front answered the flooder's server requests: `result:accept`, or `<code> <message>`. */
  readonly floodAnswers: Record<string, number>;
  /** Notifications and logs the flooder sent in its noise calls. */
  readonly noiseSent: number;
  /** Floods that completed (each also sends one notification). */
  readonly floods: number;
  /** The downstream caller's notification stats per server (logs streamed down by the front). */
  readonly downstream: Record<string, { delivered: number; dropped: number; rateLimited: number }>;
  /** The front's figures after warm-up, half-way and at the end. */
  readonly samples: { readonly start: SoakSample; readonly middle: SoakSample; readonly end: SoakSample };
}

const TOOLS = ["ask_form", "ask_sample", "chatty", "echo"] as const;
const WIDE = { rate: 1_000_000, per: "1s", burst: 1_000_000 } as const;

interface Front {
  readonly url: string;
  stats(): Promise<FrontStats>;
  stop(): Promise<void>;
}

async function startFront(modernUrl: string): Promise<Front> {
  const child = spawn(
    nodeBinary(),
    ["--expose-gc", "--import", "tsx", join("tests", "soak", "_soak-front.ts")],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, SOAK_MODERN_URL: modernUrl },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const url = await awaitLine(child, "stdout", /^SOAK_FRONT_URL (\S+)$/);
  const waiting: Array<(stats: FrontStats) => void> = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line.startsWith("SOAK_STATS ")) waiting.shift()?.(JSON.parse(line.slice(11)) as FrontStats);
  });
  return {
    url,
    stats: () => new Promise((resolve) => (waiting.push(resolve), child.stdin.write("stats\n"))),
    stop: () => (child.stdin.end(), stopChild(child, 5000)),
  };
}

function add(into: Record<string, number>, key: string, by = 1): void {
  into[key] = (into[key] ?? 0) + by;
}

function downstreamClient(front: string): Client {
  return createClient({
    name: "soak-caller",
    handler: {
      elicitation: () => ({ action: "accept", content: { name: "soak" } }),
      notification: () => {},
      log: () => {},
    },
    policies: ["modern", "flooder"].map((server) => ({
      server,
      transport: { url: `${front}/mcp/${server}` },
      era: "modern" as const,
      inputRateLimit: WIDE,
      logRateLimit: WIDE,
    })),
  });
}

/**
 * Runs the soak and reports.
 *
 * @param options Duration, workers and flood sizes.
 * @returns The figures.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const modern: HostileHttpServer<unknown> = await startHostileHttp("hostile-modern-server.ts");
  const front = await startFront(modern.url);
  const caller = downstreamClient(front.url);
  const completed: Record<string, number> = {};
  const failed: Record<string, number> = {};
  const floodAnswers: Record<string, number> = {};
  let noiseSent = 0;
  let floods = 0;
  let calls = 0;
  const call = async (server: string, tool: string, args: Record<string, unknown>) => {
    try {
      const result = await caller.callTool(server, tool, args) as {
        structuredContent?: Record<string, unknown>;
      };
      add(completed, tool);
      calls++;
      return result.structuredContent;
    } catch (error) {
      const e = error instanceof ClientError ? error : undefined;
      add(failed, `${tool} ${e?.kind ?? "thrown"} ${e?.code ?? ""}`.trim());
      return undefined;
    }
  };
  try {
    const started = performance.now();
    const deadline = started + options.durationMs;
    const sample = async (): Promise<SoakSample> => ({
      ...await front.stats(),
      atMs: Math.round(performance.now() - started),
      calls,
    });
    const worker = async (first: number) => {
      for (let n = first; performance.now() < deadline; n++) {
        const tool = TOOLS[n % TOOLS.length] as string;
        await call("modern", tool, tool === "chatty" ? { logs: 20 } : { n });
      }
    };
    const flooder = async () => {
      for (let n = 0; performance.now() < deadline; n++) {
        const flood = n % 2 === 0;
        const data = await call("flooder", flood ? "flood" : "noise", {
          count: flood ? options.floodCount : options.noiseCount,
        });
        if (flood && data !== undefined) floods++;
        if (flood) {
          for (const [key, value] of Object.entries(data?.tally ?? {})) {
            add(floodAnswers, key, value as number);
          }
        } else noiseSent += Number(data?.sent ?? 0);
      }
    };
    const at = (fraction: number) =>
      new Promise((resolve) => setTimeout(resolve, options.durationMs * fraction));
    const running = Promise.all([...Array.from({ length: options.workers }, (_, i) => worker(i)), flooder()]);
    await at(0.15);
    const start = await sample();
    options.onProgress?.(`warm-up done: ${start.calls} calls`);
    await at(0.35);
    const middle = await sample();
    options.onProgress?.(`half-way: ${middle.calls} calls`);
    await running;
    // Every notification the flooder sent (its noise, and one per flood) is accounted for once
    // the front's queue has drained: delivered, dropped (queue full) or rate-limited (logs).
    const sent = noiseSent + floods;
    let end = await sample();
    // Polled, with a generous deadline (30 s): a busy machine drains the queue slowly.
    for (let waited = 0; accounted(end) < sent && waited < 300; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      end = await sample();
    }
    return {
      durationMs: Math.round(performance.now() - started),
      completed,
      failed,
      floodAnswers,
      noiseSent,
      floods,
      downstream: JSON.parse(JSON.stringify(caller.stats())) as SoakReport["downstream"],
      samples: { start, middle, end },
    };
  } finally {
    await caller.close();
    await front.stop();
    await modern.stop();
  }
}

function accounted(sample: SoakSample): number {
  const stats = sample.notifications.flooder;
  return stats === undefined ? 0 : stats.delivered + stats.dropped + stats.rateLimited;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Writes the report as text.
 *
 * @param report The figures.
 * @returns Lines for people.
 */
export function formatSoakReport(report: SoakReport): string {
  const total = Object.values(report.completed).reduce((a, b) => a + b, 0);
  const lines = [
    `soak: ${(report.durationMs / 1000).toFixed(1)} s, ${total} calls completed (${
      (total / (report.durationMs / 1000)).toFixed(0)
    }/s)`,
    `  completed by tool: ${JSON.stringify(report.completed)}`,
    `  failed: ${JSON.stringify(report.failed)}`,
    `  flooder's server requests, answered by the front: ${JSON.stringify(report.floodAnswers)}`,
    `  flooder's notifications and logs sent: ${report.noiseSent} (+ ${report.floods} flood notices)`,
    `  front notification stats: ${JSON.stringify(report.samples.end.notifications)}`,
    `  front handler calls: ${JSON.stringify(report.samples.end.handled)}`,
    `  downstream notification stats: ${JSON.stringify(report.downstream)}`,
    "  front memory (rss / peak rss / heap after gc):",
  ];
  for (const name of ["start", "middle", "end"] as const) {
    const s = report.samples[name];
    lines.push(
      `    ${name.padEnd(6)} at ${(s.atMs / 1000).toFixed(1).padStart(6)} s, ${
        String(s.calls).padStart(6)
      } calls: ${mb(s.rss)} / ${mb(s.peakRss)} / ${mb(s.heapUsed)}`,
    );
  }
  return lines.join("\n");
}
