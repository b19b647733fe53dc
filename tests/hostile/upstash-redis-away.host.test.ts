// Redis going away under the Upstash store while servers ask for input (a real redis-server behind
// the project's Upstash REST shim, and real hostile servers): input requests are refused while it
// is down (fail closed) unless the policy sets rateLimitFailOpen, and pass again once a new
// redis-server listens on the same port. Both eras: a modern input round, legacy server requests.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { type Client, ClientError, createClient, type Policy } from "../../src/legacy.ts";
import { createUpstashStore } from "../../src/limits/upstash-store.ts";
import type { HostileModernLog } from "../_support/hostile-modern-server.ts";
import {
  type HostileHttpServer,
  hostileStdioTransport,
  startHostileHttp,
} from "../_support/hostile-process.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { SHIM_TIMEOUT_MS, startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";

const ROOTS = { roots: [{ uri: "file:///srv/project" }] };
const UNAVAILABLE = "Input request refused: the rate-limit store is unavailable";

if (redisTestsEnabled()) {
  describe("input budgets in the Upstash store when redis-server goes away and comes back", () => {
    let redis: RedisServer;
    let shim: UpstashShim;
    let modern: HostileHttpServer<HostileModernLog>;
    let prefix = 0;
    const asked: string[] = [];

    before(async () => {
      redis = await startRedis();
      shim = await startUpstashShim({ redisPort: redis.port });
      modern = await startHostileHttp("hostile-modern-server.ts");
    });
    after(async () => {
      await modern?.stop();
      await shim?.stop();
      await redis?.stop();
    });

    /** A client whose budgets live in Redis (a fresh prefix), for a modern and a legacy server. */
    function client(policy: Partial<Policy> = {}): Client {
      const store = createUpstashStore({
        redis: new Redis({ url: shim.url, token: shim.token, retry: { retries: 0 }, enableTelemetry: false }),
        prefix: `away${++prefix}`,
        timeoutMs: SHIM_TIMEOUT_MS,
      });
      return createClient({
        name: "redis-away",
        store,
        handler: {
          roots: (ctx) => (asked.push(`${ctx.serverId} roots`), ROOTS),
          elicitation: (_p, ctx) => (asked.push(`${ctx.serverId} elicitation`), { action: "decline" }),
        },
        policies: [
          { server: "modern", transport: { url: modern.url }, era: "modern", ...policy },
          { server: "stdio", transport: hostileStdioTransport(), era: "legacy", ...policy },
        ],
      });
    }

    const roots = async (c: Client) =>
      (await c.callTool("modern", "ask_roots") as { structuredContent?: unknown }).structuredContent;
    const flood = async (c: Client) =>
      ((await c.callTool("stdio", "flood", { count: 3, sequential: true })) as {
        structuredContent: { tally: unknown };
      }).structuredContent.tally;

    test(
      "fails closed while Redis is down, lets through with rateLimitFailOpen, and recovers on a new redis-server",
      {
        timeout: 60_000, // two stdio servers and a redis-server start: slow on a busy machine
      },
      async () => {
        const closed = client();
        const open = client({ rateLimitFailOpen: true });
        assert.deepEqual(await roots(closed), ROOTS);
        assert.deepEqual(await flood(closed), { "result:decline": 3 });
        asked.length = 0;

        await redis.stop();
        const error = await closed.callTool("modern", "ask_roots").catch((e: unknown) => e);
        assert.ok(error instanceof ClientError);
        assert.deepEqual([error.kind, error.code, error.message], [
          "policy",
          -32000,
          `Input request "roots" (roots/list) from server "modern" refused by policy: ${UNAVAILABLE}`,
        ]);
        assert.deepEqual(await flood(closed), { [`-32000 ${UNAVAILABLE}`]: 3 });
        assert.deepEqual(asked, []);
        // The policy that says so lets input through while the store is down.
        assert.deepEqual(await roots(open), ROOTS);
        assert.deepEqual(await flood(open), { "result:decline": 3 });
        assert.deepEqual(asked, [
          "modern roots",
          "stdio elicitation",
          "stdio elicitation",
          "stdio elicitation",
        ]);

        redis = await startRedis({ port: redis.port });
        await shim.redisReady();
        asked.length = 0;
        assert.deepEqual(await roots(closed), ROOTS);
        assert.deepEqual(await flood(closed), { "result:decline": 3 });
        assert.deepEqual(asked, [
          "modern roots",
          "stdio elicitation",
          "stdio elicitation",
          "stdio elicitation",
        ]);
        await closed.close();
        await open.close();
      },
    );
  });
}
