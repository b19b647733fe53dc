// The Upstash store over @upstash/redis, the project's REST shim and a real redis-server:
// the store contract, then fail-closed behaviour when Redis or Upstash goes away or hangs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { StoreUnavailableError } from "../../src/limits/rate-limit-store.ts";
import { createUpstashStore } from "../../src/limits/upstash-store.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { SHIM_TIMEOUT_MS, startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";
import { storeContract } from "./store-contract.ts";
import { eventually } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";
import { settle } from "../_support/fake-time.ts";

const RULE = { rate: 1, perMs: 60_000, burst: 2 };

/** A client for `shim` that does not retry, so nothing is left running after a test. */
function client(shim: UpstashShim): Redis {
  return new Redis({ url: shim.url, token: shim.token, retry: { retries: 0 }, enableTelemetry: false });
}

/** Runs `work`, returning what it rejected with and after how many milliseconds. */
async function timedRejection(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await work();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error("expected a rejection");
}

if (redisTestsEnabled()) {
  describe("createUpstashStore() over @upstash/redis, the REST shim and redis-server", () => {
    let redis: RedisServer;
    let shim: UpstashShim;
    let stores = 0;

    before(async () => {
      redis = await startRedis();
      shim = await startUpstashShim({ redisPort: redis.port });
    });

    after(async () => {
      await shim.stop();
      await redis.stop();
    });

    /** A store over the shim under `prefix`. */
    const storeAt = (prefix: string) =>
      createUpstashStore({ redis: client(shim), prefix, timeoutMs: SHIM_TIMEOUT_MS });

    // A fresh prefix per test: every test starts with no buckets.
    storeContract(
      "createUpstashStore()",
      () => storeAt(`t${++stores}`),
    );

    test("createUpstashStore() uses EVALSHA with the client's SHA after the first EVAL", async () => {
      const store = storeAt("evalsha");
      const direct = client(shim);
      await direct.exec(["CONFIG", "RESETSTAT"]);
      for (let i = 0; i < 3; i++) await store.take(`k${i}`, RULE);
      const stats = String(await direct.exec(["INFO", "commandstats"]));
      const calls = (name: string) =>
        /calls=(\d+)/.exec(stats.split("\n").find((l) => l.startsWith(name)) ?? "")?.[1];
      // The first EVALSHA of this process may find no script (NOSCRIPT, then EVAL); the rest hit.
      assert.deepEqual([calls("cmdstat_evalsha:"), Number(calls("cmdstat_eval:") ?? 0) <= 1], ["3", true]);
    });

    test("createUpstashStore() rejects when redis-server stops, and works again once it is back", async () => {
      const store = storeAt("restart");
      assert.deepEqual(await store.take("k", RULE), { allowed: true, remaining: 1, retryAfterMs: 0 });
      await redis.stop();
      await assert.rejects(store.take("k", RULE), {
        name: "StoreUnavailableError",
        message: /^Rate-limit store "upstash": Redis request failed with "ERR redis-server unreachable/,
      });
      redis = await startRedis({ port: redis.port });
      await shim.redisReady();
      // A new redis-server has no buckets and no scripts: NOSCRIPT, EVAL, and a full bucket.
      assert.deepEqual(await store.take("k", RULE), { allowed: true, remaining: 1, retryAfterMs: 0 });
    });

    test("createUpstashStore() rejects when the Upstash endpoint refuses connections", async () => {
      const gone = await startUpstashShim({ redisPort: redis.port });
      const store = createUpstashStore({ redis: client(gone), prefix: "gone", timeoutMs: SHIM_TIMEOUT_MS });
      await gone.stop();
      await assert.rejects(store.take("k", RULE), {
        name: "StoreUnavailableError",
        message: /^Rate-limit store "upstash": Redis request failed with /,
      });
    });

    test("createUpstashStore() rejects with the wrong token", async () => {
      const store = createUpstashStore({
        redis: new Redis({ url: shim.url, token: "wrong", retry: { retries: 0 }, enableTelemetry: false }),
        timeoutMs: SHIM_TIMEOUT_MS,
      });
      await assert.rejects(store.take("k", RULE), {
        name: "StoreUnavailableError",
        message: /^Rate-limit store "upstash": Redis request failed with "Unauthorized, command was: /,
      });
    });

    /**
     * A store over the shim whose Redis runs each command at once, but whose answers reach the store
     * only once `letGo()` is called (while held, the store gives up after 100 ms). `after` holds
     * the requests sent after that, settled or failed.
     */
    const heldStore = (prefix: string, now?: () => number) => {
      const inner = client(shim);
      const held = gate();
      let holding = true;
      const delivered: Promise<unknown>[] = [];
      const after: Promise<unknown>[] = [];
      const late = <T>(answer: Promise<T>): Promise<T> => {
        if (!holding) return (after.push(answer.catch(() => undefined)), answer);
        const reaching = answer.then((value) => held.opened.then(() => value));
        delivered.push(reaching.catch(() => undefined));
        return reaching;
      };
      const redis = {
        eval: (...args: Parameters<Redis["eval"]>) => late(inner.eval(...args)),
        evalsha: (...args: Parameters<Redis["evalsha"]>) => late(inner.evalsha(...args)),
      } as unknown as Redis;
      const store = createUpstashStore({
        redis,
        prefix,
        timeoutMs: 100,
        ...(now === undefined ? {} : { clock: { now } }),
      });
      const letGo = async () => {
        holding = false;
        held.open();
        await Promise.all(delivered);
        await settle();
      };
      return { store, letGo, after };
    };
    const tooSlow = {
      name: "StoreUnavailableError",
      message: 'Rate-limit store "upstash": no answer within "100" ms, expected a token-bucket answer',
    };

    test("createUpstashStore() gives back the tokens of takes it refused for want of an answer once Redis took them: a fresh store finds the bucket full", async () => {
      const { store, letGo, after } = heldStore("refund");
      await assert.rejects(store.take("k", RULE), tooSlow);
      await assert.rejects(store.take("k", RULE), tooSlow);
      await letGo();
      await eventually("both tokens given back", () => after.length === 2 || undefined);
      await Promise.all(after);
      assert.deepEqual(await storeAt("refund").take("k", RULE), {
        allowed: true,
        remaining: 1,
        retryAfterMs: 0,
      });
    });

    test("createUpstashStore() gives back no token whose answer comes after the bucket's next refill, which would lift it over its burst", async () => {
      // The store's clock reads a time past the refill the late answer names.
      const { store, letGo, after } = heldStore("no-refund", () => Date.now() + 2 * RULE.perMs);
      await assert.rejects(store.take("k", RULE), tooSlow);
      await letGo();
      assert.deepEqual(
        [after.length, await storeAt("no-refund").take("k", RULE)],
        [0, { allowed: true, remaining: 0, retryAfterMs: 0 }],
      );
    });

    // Upstash's own timeout (5 s by default) would answer success: true here; the store must not.
    test(
      "createUpstashStore() rejects at timeoutMs 5500 when Upstash hangs, past ratelimit's 5 s fail-open",
      {
        timeout: 30_000, // Bun's default per-test timeout is 5 s
      },
      async () => {
        const hung = await startUpstashShim({ redisPort: redis.port, hang: true });
        try {
          const store = createUpstashStore({ redis: client(hung), timeoutMs: 5500 });
          const { error, ms } = await timedRejection(() => store.take("k", RULE));
          assert.ok(error instanceof StoreUnavailableError, String(error));
          assert.equal(
            error.message,
            'Rate-limit store "upstash": no answer within "5500" ms, expected a token-bucket answer',
          );
          // The upper bound only catches a hang: a busy machine runs timers seconds late.
          assert.ok(ms >= 5490 && ms < 15_000, `rejected after "${ms}" ms, expected about 5500`);
        } finally {
          await hung.stop();
        }
      },
    );

    test("createUpstashStore() rejects at the default timeoutMs 1000 when Upstash hangs", async () => {
      const hung = await startUpstashShim({ redisPort: redis.port, hang: true });
      try {
        const store = createUpstashStore({ redis: client(hung) });
        const { error, ms } = await timedRejection(() => store.take("k", RULE));
        assert.ok(error instanceof StoreUnavailableError, String(error));
        assert.equal(
          error.message,
          'Rate-limit store "upstash": no answer within "1000" ms, expected a token-bucket answer',
        );
        assert.ok(ms >= 990 && ms < 10_000, `rejected after "${ms}" ms, expected about 1000`);
      } finally {
        await hung.stop();
      }
    });
  });
}
