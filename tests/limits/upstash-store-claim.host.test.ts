// createUpstashStore().claim() over @upstash/redis, the project's REST shim and a real
// redis-server: SET NX PX under <prefix>:claim:<key>, shared by every instance, expiring after
// ttlMs, given back by release(); fail-closed when Redis is away; and the front's sealed states
// redeemed once across two gateways that share Redis, or given back when the upstream did not
// run the resumed call.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { StoreUnavailableError } from "../../src/limits/rate-limit-store.ts";
import { createUpstashStore } from "../../src/limits/upstash-store.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { SHIM_TIMEOUT_MS, startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";
import { eventually } from "../_support/eventually.ts";
import { LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";

/** The front's answer to a retry whose state claim Redis did not confirm: nothing spent. */
const STORE_UNAVAILABLE = {
  jsonrpc: "2.0",
  id: 1,
  error: {
    code: -32603,
    message:
      "The gateway's state store is unavailable, so these answers were not taken: send the same request again later",
  },
};

/** A client for `shim` that does not retry, so nothing is left running after a test. */
function client(shim: UpstashShim): Redis {
  return new Redis({ url: shim.url, token: shim.token, retry: { retries: 0 }, enableTelemetry: false });
}

if (redisTestsEnabled()) {
  describe("createUpstashStore().claim() over @upstash/redis, the REST shim and redis-server", () => {
    let redis: RedisServer;
    let shim: UpstashShim;

    before(async () => {
      redis = await startRedis();
      shim = await startUpstashShim({ redisPort: redis.port });
    });

    after(async () => {
      await shim?.stop();
      await redis?.stop();
    });

    /** A store over the shim under `prefix`. */
    const storeAt = (prefix: string) =>
      createUpstashStore({ redis: client(shim), prefix, timeoutMs: SHIM_TIMEOUT_MS });

    test("claim() is true the first time and false while held, in Redis under <prefix>:claim:<key> with its ttl", async () => {
      const store = storeAt("c1");
      assert.deepEqual(
        [
          await store.claim("state:n1", 60_000),
          await store.claim("state:n1", 60_000),
          await store.claim("state:n2", 60_000),
        ],
        [true, false, true],
      );
      const direct = client(shim);
      // Read some requests later: a busy machine may take seconds over them.
      const ttl = Number(await direct.exec(["PTTL", "c1:claim:state:n1"]));
      // The claim's own random value, so that a claim can tell its hold from another's.
      const held = String(await direct.exec(["GET", "c1:claim:state:n1"]));
      assert.deepEqual([
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(held),
        ttl > 30_000 && ttl <= 60_000,
      ], [true, true]);
    });

    test("claim() is shared by every store on the same Redis: one instance's claim holds for the others", async () => {
      const first = storeAt("shared");
      const second = storeAt("shared");
      const other = storeAt("other");
      assert.deepEqual(
        [await first.claim("n", 60_000), await second.claim("n", 60_000), await other.claim("n", 60_000)],
        [true, false, true],
      );
    });

    test("claim() rounds ttlMs up to whole milliseconds, at least 1, and claims again once Redis expired it", async () => {
      const store = storeAt("ttl");
      const direct = client(shim);
      assert.equal(await store.claim("fraction", 60_000.2), true);
      const ttl = Number(await direct.exec(["PTTL", "ttl:claim:fraction"]));
      assert.ok(ttl > 30_000 && ttl <= 60_001, `PTTL "${ttl}", expected at most 60001`);
      // PX 0 is an error in Redis: a ttl of 0 claims for 1 ms, which has passed by the next request.
      assert.equal(await store.claim("zero", 0), true);
      assert.equal(
        await eventually(
          "the 1 ms claim to expire",
          async () => (await store.claim("zero", 0)) || undefined,
        ),
        true,
      );
      // A claim held 2 s refuses at once (2 s leaves a busy machine time for the second request),
      // and is claimed again after Redis expired it.
      assert.deepEqual([await store.claim("brief", 2000), await store.claim("brief", 2000)], [true, false]);
      assert.equal(
        await eventually(
          "the 2 s claim to expire",
          async () => (await store.claim("brief", 2000)) || undefined,
        ),
        true,
      );
    });

    test("claim() rejects with StoreUnavailableError when redis-server is away, and claims again once it is back", async () => {
      const store = storeAt("away");
      await redis.stop();
      try {
        await assert.rejects(store.claim("n", 60_000), (error: unknown) => {
          assert.ok(error instanceof StoreUnavailableError, String(error));
          assert.match(
            error.message,
            /^Rate-limit store "upstash": Redis request failed with "ERR redis-server unreachable/,
          );
          return true;
        });
      } finally {
        redis = await startRedis({ port: redis.port });
        await shim.redisReady();
      }
      assert.equal(await store.claim("n", 60_000), true);
    });

    test("release() deletes the claim in Redis: every store on the same Redis claims the key again at once", async () => {
      const [first, second] = [storeAt("given"), storeAt("given")];
      const claimed = [await first.claim("n", 60_000), await second.claim("n", 60_000)];
      await first.release("n");
      const afterRelease = await client(shim).exec(["EXISTS", "given:claim:n"]);
      // A key not held: nothing to delete, and no error.
      await first.release("never-claimed");
      assert.deepEqual([
        claimed,
        afterRelease,
        await second.claim("n", 60_000),
        await first.claim("n", 60_000),
      ], [
        [true, false],
        0,
        true,
        false,
      ]);
    });

    /** A client for the shim that keeps each `eval` of a claim's key it sends, to await their ends. */
    const watched = () => {
      const inner = client(shim);
      const sent: Promise<unknown>[] = [];
      const redis = {
        eval: (...args: Parameters<Redis["eval"]>) => {
          const answer = inner.eval(...args);
          if (args[1].some((key) => key.includes(":claim:"))) sent.push(answer.catch(() => undefined));
          return answer;
        },
        evalsha: inner.evalsha.bind(inner),
      } as unknown as Redis;
      return { redis, sent };
    };

    test("claim() that rejects as too slow gives its claim back once the request lands, so the same claim succeeds after", async () => {
      const { redis: slow, sent } = watched();
      const store = createUpstashStore({ redis: slow, prefix: "late", timeoutMs: 200 });
      shim.delay(600);
      try {
        await assert.rejects(store.claim("n", 60_000), {
          name: "StoreUnavailableError",
          message: 'Rate-limit store "upstash": no answer within "200" ms, expected an answer to SET NX',
        });
      } finally {
        shim.delay(0);
      }
      // The SET lands 600 ms after it was sent: the claim was made, then given back.
      assert.deepEqual(await sent[0], 1);
      await eventually("the claim to be given back", () => sent.length === 2 || undefined);
      assert.deepEqual(await sent[1], 1);
      assert.deepEqual(
        [await client(shim).exec(["GET", "late:claim:n"]), await store.claim("n", 60_000)],
        [null, true],
      );
    });

    test("claim() whose answer came too late is taken over by the same store's next claim of the key, and by no other", async () => {
      // Redis runs each command at once; while `slow`, its answers reach the store 600 ms late.
      const inner = client(shim);
      let slow = true;
      const givenBack: Promise<unknown>[] = [];
      const landed: Promise<unknown>[] = [];
      const redis = {
        eval: (...args: Parameters<Redis["eval"]>) => {
          const answer = inner.eval(...args);
          if (args[0].includes('"DEL"')) givenBack.push(answer.catch(() => undefined));
          if (!slow) return answer;
          landed.push(answer.catch(() => undefined));
          return answer.then((value) => new Promise((resolve) => setTimeout(() => resolve(value), 600)));
        },
        evalsha: inner.evalsha.bind(inner),
      } as unknown as Redis;
      const store = createUpstashStore({ redis, prefix: "takeover", timeoutMs: 200 });
      const other = storeAt("takeover");
      await assert.rejects(store.claim("n", 60_000), { name: "StoreUnavailableError" });
      slow = false;
      // The SET landed (Redis answered it; only the store hears it late): another instance finds
      // the key held; this store's retry takes it over. Awaited, not assumed: on a busy machine the
      // SET can still be on its way when the store gives up at 200 ms, and the other instance's
      // SET, on a connection of its own, would then reach Redis first.
      await Promise.all(landed);
      assert.deepEqual([await other.claim("n", 60_000), await store.claim("n", 60_000)], [false, true]);
      // The late answer's give-back leaves the claim that took over.
      await eventually("the late claim's give-back", () => givenBack.length === 1 || undefined);
      assert.deepEqual(await givenBack[0], 0);
      assert.deepEqual([await other.claim("n", 60_000), await store.claim("n", 60_000)], [false, false]);
    });

    /** A gateway in front of `upstream` whose store is on the shim under `prefix`. */
    const gateway = (
      upstream: ReturnType<typeof toolsUpstream>,
      prefix: string,
      store = storeAt(prefix),
    ) => {
      const gate = createClient({
        name: "gate",
        fetch: upstream.fetch,
        store,
        policies: [{
          server: "files",
          transport: { url: "https://up.example/mcp" },
          era: "modern",
          passDown: ["elicitation", "roots"],
        }],
      });
      return {
        gate,
        app: createFront({ client: gate, stateKey: "upstash-claim-front-state-key-0123456789abcdef" }),
      };
    };
    /** A caller's `tools/call` of the upstream's `ask`, which asks for roots and a form. */
    const ask = (extra: Record<string, unknown> = {}) =>
      modernRequest(`${LOOPBACK}/mcp/files`, "tools/call", {
        name: "ask",
        arguments: {},
        _meta: modernMeta({ roots: {}, elicitation: { form: {} } }),
        ...extra,
      });

    test("the front redeems a sealed state once across two gateways sharing Redis: the replay at the other is refused", async () => {
      const upstream = toolsUpstream();
      const [a, b] = [gateway(upstream, "front"), gateway(upstream, "front")];
      const first = await (await a.app.fetch(ask())).json() as { result: { requestState: string } };
      const retry = {
        inputResponses: { where: { roots: [] }, who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result.requestState,
      };
      const redeemed = await (await a.app.fetch(ask(retry))).json() as { result?: unknown };
      const replayed = await (await b.app.fetch(ask(retry))).json();
      assert.deepEqual([redeemed.result !== undefined, replayed], [true, {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Invalid or expired requestState" },
      }]);
      const retries = upstream.requests.filter((r) => r.body.params?.inputResponses !== undefined);
      assert.equal(retries.length, 1);
      await a.gate.close();
      await b.gate.close();
    });

    test("the front answers a retry whose state it cannot spend while Redis is away with -32603 saying so, and takes the same retry once Redis is back", async () => {
      const upstream = toolsUpstream();
      const { gate, app } = gateway(upstream, "front-away");
      const failures: unknown[] = [];
      gate.onDecision((event) => {
        if (event.type === "call" && event.error !== undefined) failures.push(event.error);
      });
      const first = await (await app.fetch(ask())).json() as { result: { requestState: string } };
      const retry = {
        inputResponses: { where: { roots: [] }, who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result.requestState,
      };
      await redis.stop();
      let away: unknown;
      try {
        away = await (await app.fetch(ask(retry))).json();
      } finally {
        redis = await startRedis({ port: redis.port });
        await shim.redisReady();
      }
      const back = await (await app.fetch(ask(retry))).json() as { result?: { content?: unknown } };
      const upstreamGot = JSON.stringify(retry.inputResponses);
      assert.deepEqual(away, STORE_UNAVAILABLE);
      // The operator's event names the store's failure; the caller is told only its class.
      assert.deepEqual(
        failures.map((failure) => {
          const { kind, message } = failure as { kind: string; message: string };
          return [
            kind,
            /^Rate-limit store "upstash": Redis request failed with "ERR redis-server unreachable/.test(
              message,
            ),
          ];
        }),
        [["internal", true]],
      );
      assert.deepEqual(back.result?.content, [{ type: "text", text: upstreamGot }]);
      const retries = upstream.requests.filter((r) => r.body.params?.inputResponses !== undefined);
      assert.equal(retries.length, 1);
      await gate.close();
    });

    test("the front gives back in Redis the state of a retry whose resumed call the upstream answered 503: the same retry goes through at another gateway", async () => {
      const upstream = toolsUpstream();
      let refused = 0;
      const flaky = {
        requests: upstream.requests,
        fetch: async (url: string, init: RequestInit) => {
          const resumed = String(init.body).includes('"inputResponses"');
          if (resumed && refused++ === 0) return new Response("busy", { status: 503 });
          return await upstream.fetch(url, init);
        },
      };
      const [a, b] = [gateway(flaky, "front-503"), gateway(flaky, "front-503")];
      const first = await (await a.app.fetch(ask())).json() as { result: { requestState: string } };
      const retry = {
        inputResponses: { where: { roots: [] }, who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result.requestState,
      };
      const busy = await (await a.app.fetch(ask(retry))).json();
      const elsewhere = await (await b.app.fetch(ask(retry))).json() as { result?: { content?: unknown } };
      const replayed = await (await a.app.fetch(ask(retry))).json();
      assert.deepEqual([busy, elsewhere.result?.content, replayed], [
        {
          jsonrpc: "2.0",
          id: 1,
          error: {
            code: -32010,
            message: 'Upstream server "files" is unavailable: HTTP error 503',
            data: { serverId: "files", cause: "http_error", status: 503 },
          },
        },
        [{ type: "text", text: JSON.stringify(retry.inputResponses) }],
        { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid or expired requestState" } },
      ]);
      await a.gate.close();
      await b.gate.close();
    });

    test("the front answers a retry whose claim Redis was too slow to confirm -32603, and takes the same retry once the late claim is given back", async () => {
      const upstream = toolsUpstream();
      const { redis: slow, sent } = watched();
      const store = createUpstashStore({ redis: slow, prefix: "front-slow", timeoutMs: 200 });
      const { gate, app } = gateway(upstream, "front-slow", store);
      const first = await (await app.fetch(ask())).json() as { result: { requestState: string } };
      const retry = {
        inputResponses: { where: { roots: [] }, who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result.requestState,
      };
      shim.delay(600);
      let slowAnswer: unknown;
      try {
        slowAnswer = await (await app.fetch(ask(retry))).json();
      } finally {
        shim.delay(0);
      }
      await eventually("the late claim to be given back", () => sent.length === 2 || undefined);
      await sent[1];
      const back = await (await app.fetch(ask(retry))).json() as { result?: { content?: unknown } };
      assert.deepEqual(slowAnswer, STORE_UNAVAILABLE);
      assert.deepEqual(back.result?.content, [{ type: "text", text: JSON.stringify(retry.inputResponses) }]);
      await gate.close();
    });
  });
}
