/**
 * The front under soak, in a process of its own (so its memory is measured alone): the Node
 * gateway (`src/adapters/node.ts`) on a free loopback port, in front of two upstreams:
 *
 * - `modern`: the hostile modern server at `SOAK_MODERN_URL` (its well-behaved tools): the
 *   handler defers its elicitations to the downstream caller and answers its sampling itself;
 * - `flooder`: the hostile stdio server (legacy era), whose calls flood server requests,
 *   notifications and logs; the handler answers its elicitations and hears its notifications
 *   slowly, so the notification queue fills and drops.
 *
 * Run: `node --expose-gc --import tsx tests/soak/_soak-front.ts` with `SOAK_MODERN_URL` set. It
 * prints `SOAK_FRONT_URL <url>` once listening; each `stats` line on stdin is answered with one
 * `SOAK_STATS <json>` line ({@linkcode FrontStats}); stdin ending closes the gateway and exits.
 *
 * @module
 */
import process from "node:process";
import { createInterface } from "node:readline";
import { serve } from "../../src/adapters/node.ts";
import type { Handler } from "../../src/legacy.ts";
import { hostileStdioTransport } from "../_support/hostile-process.ts";

/** What the front reports on `stats`. */
export interface FrontStats {
  /** Resident set size now, in bytes. */
  readonly rss: number;
  /** The largest resident set size so far, in bytes. */
  readonly peakRss: number;
  /** Heap in use after a full collection, in bytes. */
  readonly heapUsed: number;
  /** The gateway client's notification stats per upstream. */
  readonly notifications: Record<string, { delivered: number; dropped: number; rateLimited: number }>;
  /** How often each handler callback ran. */
  readonly handled: Record<string, number>;
}

const handled: Record<string, number> = { sampling: 0, elicitation: 0, notification: 0, log: 0 };
const count = (what: string) => handled[what] = (handled[what] ?? 0) + 1;
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

const handler: Handler = {
  sampling:
    () => (count("sampling"), { role: "assistant", content: { type: "text", text: "soak" }, model: "soak" }),
  elicitation: (_params, ctx) => {
    count("elicitation");
    return ctx.serverId === "modern" ? ctx.defer() : { action: "accept", content: { ok: true } };
  },
  notification: () => (count("notification"), tick()),
  log: () => (count("log"), tick()),
};

const modernUrl = process.env.SOAK_MODERN_URL;
if (modernUrl === undefined) throw new Error("_soak-front.ts: SOAK_MODERN_URL is not set");
const wide = { rate: 1_000_000, per: "1s", burst: 1_000_000 } as const;
const gateway = await serve({
  port: 0,
  stateKey: "soak-state-key-0123456789abcdef0123456789",
  playground: false,
  handler,
  policies: [
    { server: "modern", transport: { url: modernUrl }, era: "modern", inputRateLimit: wide },
    { server: "flooder", transport: hostileStdioTransport(), era: "legacy" },
  ],
});

function stats(): FrontStats {
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  return {
    rss: memory.rss,
    peakRss: process.resourceUsage().maxRSS * 1024,
    heapUsed: memory.heapUsed,
    notifications: gateway.client.stats() as FrontStats["notifications"],
    handled,
  };
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "stats") process.stdout.write(`SOAK_STATS ${JSON.stringify(stats())}\n`);
});
lines.on("close", () => void gateway.close().finally(() => process.exit(0)));
process.stdout.write(`SOAK_FRONT_URL ${gateway.url}\n`);
