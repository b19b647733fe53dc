// createUpstashTokenStore() over @upstash/redis, the project's REST shim and a real redis-server:
// the token store contract; what lands in Redis (ciphertext only, bound to its key, under the
// documented names and ttls); values that do not open read as absent; fail-closed when Redis is
// away or slow; and the refusal of weak keys.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { codecs } from "../../src/_internal/encoding.ts";
import {
  createUpstashTokenStore,
  type UpstashTokenRedis,
  type UpstashTokenStoreOptions,
} from "../../src/auth/upstash-token-store.ts";
import { StoreUnavailableError } from "../../src/limits/rate-limit-store.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { SHIM_TIMEOUT_MS, startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";
import { describeTokenStoreContract } from "./token-store-contract.ts";
import { eventually } from "../_support/eventually.ts";

const KEY = "upstash-token-store-test-key-0123456789abcdef";
const OTHER_KEY = "another-token-store-test-key-fedcba9876543210";
/** A stored value: v1, a 96-bit IV and the ciphertext with its tag, base64url. */
const SEALED = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/;

/** A client for `shim` that does not retry, so nothing is left running after a test. */
function client(shim: UpstashShim): Redis {
  return new Redis({ url: shim.url, token: shim.token, retry: { retries: 0 }, enableTelemetry: false });
}

/** Opens a stored value the way the store's documentation says it is sealed, independently of it. */
async function openByHand(stored: string, secret: string, redisKey: string): Promise<string> {
  const encoder = new TextEncoder();
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("sluice token store v1") },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["decrypt"],
  );
  const [, iv, ciphertext] = stored.split(".");
  const plain = await crypto.subtle.decrypt(
    {
      name: "AES-GCM",
      iv: new Uint8Array(codecs.fromBase64Url(iv ?? "")!),
      additionalData: encoder.encode(redisKey),
    },
    key,
    new Uint8Array(codecs.fromBase64Url(ciphertext ?? "")!),
  );
  return new TextDecoder().decode(plain);
}

describe("createUpstashTokenStore() options", () => {
  const redis = new Redis({
    url: "http://127.0.0.1:9",
    token: "t",
    retry: { retries: 0 },
    enableTelemetry: false,
  });

  test("createUpstashTokenStore() refuses a key shorter than 32 bytes, a patterned key and a missing key, naming the fix", () => {
    const messages = ["short", "ab".repeat(20), undefined].map((key) => {
      try {
        createUpstashTokenStore({ redis, key: key as string });
        return "accepted";
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    assert.deepEqual(messages, [
      'TypeError: createUpstashTokenStore(): "key" must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`',
      'TypeError: createUpstashTokenStore(): "key" repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`',
      'TypeError: createUpstashTokenStore(): "key" must be a string, received "undefined": make one with `openssl rand -base64 32`',
    ]);
  });

  test("createUpstashTokenStore() refuses a misspelt key, no client and an empty prefix, naming each", () => {
    const messages = [{ redis, key: KEY, timeout: 50 }, { key: KEY }, { redis: {}, key: KEY }, {
      redis,
      key: KEY,
      prefix: "",
    }].map((options) => {
      try {
        createUpstashTokenStore(options as unknown as UpstashTokenStoreOptions);
        return "accepted";
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    const noClient =
      'TypeError: createUpstashTokenStore(): "redis" must be an @upstash/redis client (with get, set, del)';
    assert.deepEqual(messages, [
      'TypeError: createUpstashTokenStore(): "timeout" is not an option (did you mean "timeoutMs"?); expected "redis", "key", "prefix", "timeoutMs"',
      `${noClient}, received nothing`,
      `${noClient}, received an object`,
      'TypeError: createUpstashTokenStore(): "prefix" must be a string that is not empty, received ""',
    ]);
  });

  test("createUpstashTokenStore() takes prefix and timeoutMs written as undefined as left out: keys under sluice:oauth", async () => {
    const calls: unknown[][] = [];
    const stub = {
      get: (...args: unknown[]) => (calls.push(["get", ...args]), Promise.resolve(null)),
      set: (...args: unknown[]) => (calls.push(["set", ...args]), Promise.resolve("OK")),
      del: (...args: unknown[]) => (calls.push(["del", ...args]), Promise.resolve(1)),
    } as unknown as UpstashTokenRedis;
    const options: UpstashTokenStoreOptions = {
      redis: stub,
      key: KEY,
      prefix: undefined,
      timeoutMs: undefined,
    };
    const store = createUpstashTokenStore(options);
    assert.deepEqual([await store.claim("c", 1000), await store.delete("k")], [true, undefined]);
    // A claim sets a random value of its own.
    const claimed = calls[0]?.[2];
    assert.deepEqual(calls, [["set", "sluice:oauth:claim:c", claimed, { nx: true, px: 1000 }], [
      "del",
      "sluice:oauth:v:k",
    ]]);
    assert.match(String(claimed), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test("createUpstashTokenStore() refuses a timeoutMs of 0 with a RangeError naming it", () => {
    assert.throws(() => createUpstashTokenStore({ redis, key: KEY, timeoutMs: 0 }), {
      name: "RangeError",
      message:
        'createUpstashTokenStore(): "timeoutMs" must be a positive integer of at most "2147483647", received "0"',
    });
  });
});

if (redisTestsEnabled()) {
  describe("createUpstashTokenStore() over @upstash/redis, the REST shim and redis-server", () => {
    let redis: RedisServer;
    let shim: UpstashShim;
    let stores = 0;

    before(async () => {
      redis = await startRedis();
      shim = await startUpstashShim({ redisPort: redis.port });
    });

    after(async () => {
      await shim?.stop();
      await redis?.stop();
    });

    /** A store over the shim under `prefix`, sealing with `key`. */
    const storeAt = (prefix: string, key = KEY) =>
      createUpstashTokenStore({ redis: client(shim), key, prefix, timeoutMs: SHIM_TIMEOUT_MS });

    // A fresh prefix per test: every test starts with no values and no claims.
    describeTokenStoreContract("createUpstashTokenStore()", () => ({
      store: storeAt(`t${++stores}`),
    }));

    test("createUpstashTokenStore() stores v1.<iv>.<ciphertext> under <prefix>:v:<key>, never the value, with its ttl", async () => {
      const store = storeAt("raw");
      const direct = client(shim);
      const value = JSON.stringify({ access_token: "secret-access-token-1" });
      await store.set("token:github:alice", value, 60_000);
      await store.set("registration:github", value);
      const stored = String(await direct.exec(["GET", "raw:v:token:github:alice"]));
      const ttl = Number(await direct.exec(["PTTL", "raw:v:token:github:alice"]));
      assert.deepEqual(
        [
          SEALED.test(stored),
          stored.includes("secret-access-token"),
          ttl > 59_000 && ttl <= 60_000,
          await direct.exec(["PTTL", "raw:v:registration:github"]),
          await openByHand(stored, KEY, "raw:v:token:github:alice"),
        ],
        [true, false, true, -1, value],
      );
    });

    test("createUpstashTokenStore() seals the same value twice with different IVs", async () => {
      const store = storeAt("iv");
      const direct = client(shim);
      await store.set("a", "same");
      const first = String(await direct.exec(["GET", "iv:v:a"]));
      await store.set("a", "same");
      const second = String(await direct.exec(["GET", "iv:v:a"]));
      assert.deepEqual([SEALED.test(first), SEALED.test(second), first === second], [true, true, false]);
    });

    test("createUpstashTokenStore() claims under <prefix>:claim:<key> with SET NX PX, apart from the values", async () => {
      const store = storeAt("cl");
      const direct = client(shim);
      assert.deepEqual([await store.claim("state:n1", 600_000), await store.claim("state:n1", 600_000)], [
        true,
        false,
      ]);
      const ttl = Number(await direct.exec(["PTTL", "cl:claim:state:n1"]));
      // The claim's own random value, so that its give-back can tell its hold from another's.
      const held = String(await direct.exec(["GET", "cl:claim:state:n1"]));
      assert.deepEqual(
        [
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(held),
          ttl > 599_000 && ttl <= 600_000,
          await direct.exec([
            "EXISTS",
            "cl:v:state:n1",
          ]),
        ],
        [true, true, 0],
      );
    });

    test("createUpstashTokenStore() reads a value copied to another key as absent: the Redis key is authenticated", async () => {
      const store = storeAt("moved");
      const direct = client(shim);
      await store.set("token:github:alice", "alice's token");
      const stored = String(await direct.exec(["GET", "moved:v:token:github:alice"]));
      await direct.exec(["SET", "moved:v:token:github:mallory", stored]);
      assert.deepEqual(
        [await store.get("token:github:mallory"), await store.get("token:github:alice")],
        [undefined, "alice's token"],
      );
    });

    test("createUpstashTokenStore() reads values sealed under another key as absent, and the same key reads them", async () => {
      const prefix = "rotated";
      await storeAt(prefix).set("k", "v");
      const rotated = storeAt(prefix, OTHER_KEY);
      const same = storeAt(prefix);
      assert.deepEqual([await rotated.get("k"), await same.get("k")], [undefined, "v"]);
    });

    test("createUpstashTokenStore() reads tampered, truncated and foreign values as absent", async () => {
      const store = storeAt("tamper");
      const direct = client(shim);
      await store.set("k", "value");
      const stored = String(await direct.exec(["GET", "tamper:v:k"]));
      const last = stored.at(-1) === "A" ? "B" : "A";
      const forged = [
        stored.slice(0, -1) + last,
        stored.slice(0, -4),
        stored.replace(/^v1\./, "v2."),
        `${stored}.extra`,
        "v1..",
        "value",
        "42",
      ];
      const read = [];
      for (const text of forged) {
        await direct.exec(["SET", "tamper:v:k", text]);
        read.push(await store.get("k"));
      }
      assert.deepEqual(read, forged.map(() => undefined));
    });

    test("createUpstashTokenStore() rejects every operation with StoreUnavailableError when redis-server is away", async () => {
      // SHIM_TIMEOUT_MS: only the failure, not the deadline, may end an operation.
      const store = storeAt("away");
      await store.set("k", "v");
      await redis.stop();
      const failures: string[] = [];
      try {
        const operations: Array<[string, () => Promise<unknown>]> = [
          ["GET", () => store.get("k")],
          ["SET", () => store.set("k", "w", 1000)],
          ["DEL", () => store.delete("k")],
          ["SET NX", () => store.claim("c", 1000)],
        ];
        for (const [command, operation] of operations) {
          await assert.rejects(operation(), (error: unknown) => {
            assert.ok(error instanceof StoreUnavailableError, String(error));
            // After "unreachable" come the connection's state, which varies, and the command sent.
            const [, reason, expected] =
              /^Token store "upstash": Redis request failed with "(ERR redis-server unreachable) .*", (expected .*)$/
                .exec(error.message) ?? ["", error.message];
            failures.push(`${command}: ${error.store}, ${reason}, ${expected}`);
            return true;
          });
        }
      } finally {
        redis = await startRedis({ port: redis.port });
        await shim.redisReady();
      }
      assert.deepEqual(failures, [
        "GET: upstash, ERR redis-server unreachable, expected an answer to GET",
        "SET: upstash, ERR redis-server unreachable, expected an answer to SET",
        "DEL: upstash, ERR redis-server unreachable, expected an answer to DEL",
        "SET NX: upstash, ERR redis-server unreachable, expected an answer to SET NX",
      ]);
      // A new redis-server holds nothing.
      assert.deepEqual([await store.get("k"), await store.claim("c", 1000)], [undefined, true]);
    });

    test("createUpstashTokenStore() gives back a claim that rejected as too slow once Redis says it was made, so the same claim succeeds after", async () => {
      // A client that keeps each DEL it sends, to await it.
      const inner = client(shim);
      const deleted: Promise<unknown>[] = [];
      const redis = {
        get: inner.get.bind(inner),
        set: inner.set.bind(inner),
        del: (...keys: string[]) => {
          const answer = inner.del(...keys);
          deleted.push(answer);
          return answer;
        },
      } as unknown as Redis;
      const store = createUpstashTokenStore({ redis, key: KEY, prefix: "late", timeoutMs: 200 });
      shim.delay(600);
      try {
        await assert.rejects(store.claim("flow:s1", 600_000), {
          name: "StoreUnavailableError",
          message: 'Token store "upstash": no answer within "200" ms, expected an answer to SET NX',
        });
      } finally {
        shim.delay(0);
      }
      // The SET lands 600 ms after it was sent, and its answer ("OK") brings the DEL of that key.
      await eventually("the claim to be given back", () => deleted.length === 1 || undefined);
      assert.deepEqual([
        await deleted[0],
        await store.claim("flow:s1", 600_000),
        await store.claim("flow:s1", 600_000),
      ], [
        1,
        true,
        false,
      ]);
    });

    test("createUpstashTokenStore() gives back a late claim only while the key holds it: a claim made after it expired stays", async () => {
      // Redis runs the first SET at once; its answer reaches the store 1.5 s late, after the
      // claim (300 ms) has expired and another instance has claimed the key.
      const inner = client(shim);
      let first = true;
      let answered: Promise<unknown> | undefined;
      const redis = {
        get: inner.get.bind(inner),
        del: inner.del.bind(inner),
        set: (...args: Parameters<Redis["set"]>) => {
          const answer = inner.set(...args);
          if (!first) return answer;
          first = false;
          answered = answer.then((value) => new Promise((resolve) => setTimeout(() => resolve(value), 1500)));
          return answered;
        },
      } as unknown as Redis;
      const late = createUpstashTokenStore({ redis, key: KEY, prefix: "expired", timeoutMs: 200 });
      const other = storeAt("expired");
      await assert.rejects(late.claim("refresh", 300), { name: "StoreUnavailableError" });
      const otherClaimed = await eventually(
        "the late claim to expire",
        async () => (await other.claim("refresh", 600_000)) || undefined,
      );
      await answered;
      // The give-back's GET and DEL come just after the late answer.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual([otherClaimed, await other.claim("refresh", 600_000)], [true, false]);
    });

    test("createUpstashTokenStore() counts the client's own retry of a claim that landed, its answer lost, as that claim", async () => {
      // As @upstash/redis retries a request whose answer was lost: the first SET ran in Redis,
      // and the retry finds the key taken (null).
      const inner = client(shim);
      let lost = true;
      const redis = {
        get: inner.get.bind(inner),
        del: inner.del.bind(inner),
        set: async (...args: Parameters<Redis["set"]>) => {
          if (!lost) return await inner.set(...args);
          lost = false;
          await inner.set(...args);
          return await inner.set(...args);
        },
      } as unknown as Redis;
      const store = createUpstashTokenStore({
        redis,
        key: KEY,
        prefix: "retried",
        timeoutMs: SHIM_TIMEOUT_MS,
      });
      const other = storeAt("retried");
      assert.deepEqual([await store.claim("flow:s2", 600_000), await other.claim("flow:s2", 600_000)], [
        true,
        false,
      ]);
    });

    test("createUpstashTokenStore() rejects with StoreUnavailableError at timeoutMs when Upstash hangs", async () => {
      const hung = await startUpstashShim({ redisPort: redis.port, hang: true });
      try {
        const store = createUpstashTokenStore({ redis: client(hung), key: KEY, timeoutMs: 200 });
        await assert.rejects(store.get("k"), {
          name: "StoreUnavailableError",
          message: 'Token store "upstash": no answer within "200" ms, expected an answer to GET',
        });
      } finally {
        await hung.stop();
      }
    });
  });
}
