// The Upstash store against a stub client (no network): how answers map to TakeResult, which
// script arguments reach Redis, and that every failure rejects (fail closed). Runs everywhere,
// including workerd. The same store against real Redis is upstash-store.host.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { StoreUnavailableError } from "../../src/limits/rate-limit-store.ts";
import {
  createUpstashStore,
  type UpstashRedis,
  type UpstashStoreOptions,
} from "../../src/limits/upstash-store.ts";

const NOW = 1_000_000;
const clock = { now: () => NOW };
const RULE = { rate: 1, perMs: 1000, burst: 5 };

interface Call {
  readonly command: "eval" | "evalsha";
  readonly keys: string[];
  readonly args: unknown[];
}

/** A client whose evalsha (and eval) answer with `answer`; records every call. */
function stubRedis(answer: (call: Call) => Promise<unknown>): { redis: UpstashRedis; calls: Call[] } {
  const calls: Call[] = [];
  const respond = (command: Call["command"]) => (_script: string, keys: string[], args: unknown[]) => {
    const call = { command, keys, args };
    calls.push(call);
    return answer(call);
  };
  const redis = { eval: respond("eval"), evalsha: respond("evalsha") } as unknown as UpstashRedis;
  return { redis, calls };
}

/** The script arguments without the timestamp (ARGV[4], Date.now() of the caller). */
const withoutNow = (
  call: Call | undefined,
) => [call?.command, call?.keys, call?.args.filter((_, i) => i !== 3)];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("createUpstashStore() with a stub client", () => {
  test("createUpstashStore() maps an allowed answer and sends the token-bucket script its rule", async () => {
    const { redis, calls } = stubRedis(() => Promise.resolve([4, NOW + 700, 5]));
    const store = createUpstashStore({ redis, clock });
    assert.deepEqual(await store.take("github", RULE), { allowed: true, remaining: 4, retryAfterMs: 0 });
    assert.deepEqual(calls.map(withoutNow), [["evalsha", ["sluice:ratelimit:1/1000/5:github"], [
      5,
      1000,
      1,
      1,
    ]]]);
    assert.equal(typeof calls[0]?.args[3], "number");
  });

  test("createUpstashStore() takes an optional option written as undefined as left out: the default prefix, the system clock", async () => {
    const answers = [[4, NOW + 700, 5], [-1, NOW + 700, 5]];
    const { redis, calls } = stubRedis(() => Promise.resolve(answers.shift()));
    const options: UpstashStoreOptions = { redis, prefix: undefined, timeoutMs: undefined, clock: undefined };
    const store = createUpstashStore(options);
    // The system clock is long past NOW + 700: the refusal's wait is the shortest, not 700 ms.
    assert.deepEqual([await store.take("github", RULE), await store.take("github", RULE)], [
      { allowed: true, remaining: 4, retryAfterMs: 0 },
      { allowed: false, remaining: 0, retryAfterMs: 1 },
    ]);
    assert.deepEqual(calls.map((call) => call.keys), [
      ["sluice:ratelimit:1/1000/5:github"],
      ["sluice:ratelimit:1/1000/5:github"],
    ]);
  });

  test("createUpstashStore() maps a refusal to retryAfterMs = reset - now", async () => {
    const { redis } = stubRedis(() => Promise.resolve([-1, NOW + 700, 5]));
    const store = createUpstashStore({ redis, clock, prefix: "p" });
    assert.deepEqual(await store.take("github", RULE), { allowed: false, remaining: 0, retryAfterMs: 700 });
  });

  test("createUpstashStore() clamps retryAfterMs to (0, perMs] when clocks disagree", async () => {
    const resets = [NOW - 50, NOW + 5000];
    const { redis } = stubRedis(() => Promise.resolve([-1, resets.shift(), 5]));
    const store = createUpstashStore({ redis, clock });
    assert.deepEqual(
      [(await store.take("k", RULE)).retryAfterMs, (await store.take("k", RULE)).retryAfterMs],
      [
        1,
        1000,
      ],
    );
  });

  test("createUpstashStore() prefixes keys with its prefix and the rule, one limiter per rule", async () => {
    const { redis, calls } = stubRedis(() => Promise.resolve([0, NOW + 1, 1]));
    const store = createUpstashStore({ redis, clock, prefix: "agent" });
    await store.take("k", RULE);
    await store.take("k", { rate: 2, perMs: 500, burst: 3 });
    await store.take("k", RULE);
    assert.deepEqual(calls.map((call) => call.keys[0]), [
      "agent:1/1000/5:k",
      "agent:2/500/3:k",
      "agent:1/1000/5:k",
    ]);
  });

  test("createUpstashStore() falls back to eval when Redis answers NOSCRIPT", async () => {
    const { redis, calls } = stubRedis((call) =>
      call.command === "evalsha"
        ? Promise.reject(new Error("NOSCRIPT No matching script. Please use EVAL."))
        : Promise.resolve([2, NOW + 1000, 5])
    );
    const store = createUpstashStore({ redis, clock });
    assert.deepEqual(await store.take("k", RULE), { allowed: true, remaining: 2, retryAfterMs: 0 });
    assert.deepEqual(calls.map((call) => call.command), ["evalsha", "eval"]);
  });

  test("createUpstashStore() rejects with StoreUnavailableError when Redis fails", async () => {
    const cause = new Error("fetch failed");
    const { redis } = stubRedis(() => Promise.reject(cause));
    const error = await rejection(createUpstashStore({ redis, clock }).take("k", RULE));
    assert.ok(error instanceof StoreUnavailableError);
    assert.deepEqual([error.name, error.store, error.message, error.cause], [
      "StoreUnavailableError",
      "upstash",
      'Rate-limit store "upstash": Redis request failed with "fetch failed", expected a token-bucket answer',
      cause,
    ]);
  });

  test("createUpstashStore() rejects with StoreUnavailableError when evalsha throws synchronously", async () => {
    const { redis } = stubRedis(() => {
      throw new TypeError("not connected");
    });
    await assert.rejects(createUpstashStore({ redis, clock }).take("k", RULE), {
      name: "StoreUnavailableError",
      message:
        'Rate-limit store "upstash": Redis request failed with "not connected", expected a token-bucket answer',
    });
  });

  test("createUpstashStore() rejects an answer that is not a token-bucket answer", async () => {
    const { redis } = stubRedis(() => Promise.resolve("Aborted"));
    await assert.rejects(createUpstashStore({ redis, clock }).take("k", RULE), {
      name: "StoreUnavailableError",
      message:
        'Rate-limit store "upstash": unexpected answer "{"success":false,"remaining":null,"reset":"b"}", expected a token-bucket answer',
    });
  });

  test("createUpstashStore() rejects at the default timeout of 1000 ms when Redis never answers", async () => {
    const { redis } = stubRedis(() => new Promise(() => {}));
    const started = Date.now();
    await assert.rejects(createUpstashStore({ redis }).take("k", RULE), {
      name: "StoreUnavailableError",
      message: 'Rate-limit store "upstash": no answer within "1000" ms, expected a token-bucket answer',
    });
    const elapsed = Date.now() - started;
    // The message names the default; the time shows it was waited for. The upper bound only
    // catches a hang: a busy machine runs a 1 s timer seconds late.
    assert.ok(elapsed >= 990 && elapsed < 10_000, `rejected after "${elapsed}" ms, expected about 1000`);
  });

  test("createUpstashStore() rejects at timeoutMs 50 even when Redis answers later", async () => {
    const { redis } = stubRedis(() => new Promise((resolve) => setTimeout(() => resolve([4, NOW, 5]), 100)));
    await assert.rejects(createUpstashStore({ redis, timeoutMs: 50 }).take("k", RULE), {
      message: 'Rate-limit store "upstash": no answer within "50" ms, expected a token-bucket answer',
    });
  });

  test("createUpstashStore() refuses timeoutMs 0 and 2^31", () => {
    const { redis } = stubRedis(() => Promise.resolve([]));
    for (const timeoutMs of [0, 2 ** 31]) {
      assert.throws(() => createUpstashStore({ redis, timeoutMs }), {
        name: "RangeError",
        message:
          `createUpstashStore(): "timeoutMs" must be a positive integer of at most "2147483647", received "${timeoutMs}"`,
      });
    }
  });

  test("createUpstashStore() refuses options that are not an object, a misspelt or unknown key, no client, an empty prefix and a clock without now(), naming each", () => {
    const { redis } = stubRedis(() => Promise.resolve([]));
    const messages = [
      null,
      { redis, prefx: "a" },
      { client: redis },
      {},
      { redis: "https://x" },
      {
        redis,
        prefix: "",
      },
      { redis, prefix: 5 },
      { redis, clock: {} },
    ].map((options) => {
      try {
        createUpstashStore(options as unknown as UpstashStoreOptions);
        return "accepted";
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    const keys = 'expected "redis", "prefix", "timeoutMs", "clock"';
    const noClient =
      'TypeError: createUpstashStore(): "redis" must be an @upstash/redis client (with eval, evalsha)';
    assert.deepEqual(messages, [
      "TypeError: createUpstashStore(): the options must be an object { redis, … }, received null",
      `TypeError: createUpstashStore(): "prefx" is not an option (did you mean "prefix"?); ${keys}`,
      `TypeError: createUpstashStore(): "client" is not an option; ${keys}`,
      `${noClient}, received nothing`,
      `${noClient}, received "https://x"`,
      'TypeError: createUpstashStore(): "prefix" must be a string that is not empty, received ""',
      'TypeError: createUpstashStore(): "prefix" must be a string that is not empty, received 5',
      'TypeError: createUpstashStore(): "clock" must be { now() }',
    ]);
  });

  test("UpstashStore.claim() refuses a ttlMs that is not finite before calling Redis, and a failed claim names SET NX", async () => {
    const { redis, calls } = stubRedis(() => Promise.reject(new Error("fetch failed")));
    const store = createUpstashStore({ redis });
    for (const ttlMs of [NaN, Infinity]) {
      await assert.rejects(store.claim("n", ttlMs), {
        name: "RangeError",
        message: `UpstashStore.claim(): "ttlMs" must be a finite number of milliseconds, received "${ttlMs}"`,
      });
    }
    assert.equal(calls.length, 0);
    await assert.rejects(store.claim("n", 1000), {
      name: "StoreUnavailableError",
      message:
        'Rate-limit store "upstash": Redis request failed with "fetch failed", expected an answer to SET NX',
    });
  });

  test("createUpstashStore() refuses an invalid rule before calling Redis", async () => {
    const { redis, calls } = stubRedis(() => Promise.resolve([4, NOW, 5]));
    await assert.rejects(createUpstashStore({ redis }).take("k", { rate: 1, perMs: 0, burst: 5 }), {
      name: "RangeError",
      message: 'Rate limit "perMs" must be a positive safe integer, received "0"',
    });
    assert.equal(calls.length, 0);
  });
});
