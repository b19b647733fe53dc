// examples/worker end to end: bundled by wrangler as a deploy would (scripts/build-worker.ts), run
// in workerd (Miniflare) with the compatibility date of its wrangler.jsonc and no compatibility
// flags, in front of the real modern peer over loopback. One workerd runs the example six times
// with different bindings (its secrets too, as `wrangler secret put` sets them), routed by host
// name; "gate" has the sessions' Durable Object binding of wrangler.jsonc, "modern-only" has
// none and a second token (GATEWAY_TOKEN_NEXT) as while rotating. Callers send GATEWAY_TOKEN.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { Redis as RedisClient } from "ioredis";
import { buildWorkerExample, WORKER_EXAMPLE_DIR, type WorkerBuild } from "../../scripts/build-worker.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { PROFILE_SCHEMA } from "../_support/profile-form.ts";
import { freePort, type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import { EventReader, type Fetch, initializeMessage, legacyHeaders } from "../_support/legacy-caller.ts";
import { within as withinMs } from "../_support/eventually.ts";

const KEY = "worker-example-test-state-key-0123456789";
/** The secret GATEWAY_TOKEN: callers send it as `Authorization: Bearer …`. */
const TOKEN = "worker-example-gateway-token-5e0f8a7c19d2b364";
/** The secret GATEWAY_TOKEN_NEXT of "modern-only": the token callers move to while rotating. */
const NEXT_TOKEN = "worker-example-next-token-b7a19c3e5f20d846";
/** What every step may take, at most. */
const STEP_MS = 20_000;
const FLAGS: string[] = [];
/** Whether redis-server is here for the Upstash case (under CI=true its absence fails the run). */
const withRedis = redisTestsEnabled();

/** Settles like `work`, or rejects naming `what` after `ms` (a step's bound unless told). */
const within = <T>(what: string, work: Promise<T>, ms = STEP_MS): Promise<T> => withinMs(what, work, ms);

/** Parses JSONC: drops comments outside strings and trailing commas. */
function parseJsonc(text: string): Record<string, unknown> {
  const json = text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string) => string ?? "")
    .replace(/,(\s*[}\]])/g, "$1");
  return JSON.parse(json);
}

const config = parseJsonc(readFileSync(join(WORKER_EXAMPLE_DIR, "wrangler.jsonc"), "utf8"));
/** The Durable Object bindings of wrangler.jsonc, as Miniflare takes them. */
const durableObjects = Object.fromEntries(
  (config.durable_objects as { bindings: { name: string; class_name: string }[] }).bindings
    .map((binding) => [binding.name, { className: binding.class_name, useSQLite: true }]),
);

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};
const PROFILE = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Tell us about you",
    requestedSchema: PROFILE_SCHEMA,
  },
};
const ANSWER = { profile: { action: "accept", content: { name: "Grace", age: 85, color: "green" } } };
const COMPLETE = {
  content: [{
    type: "text",
    text: JSON.stringify({ age: 85, color: "green", name: "Grace", subscribe: false }),
  }],
  resultType: "complete",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
};
const STATE = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

let peer: ModernPeer;
let outdir: string;
let built: WorkerBuild;
let miniflare: Miniflare | undefined;
let redis: RedisServer | undefined;
let shim: UpstashShim | undefined;

/** One downstream `tools/call` of `ask_form` through the Worker at `host`, with extra params. */
function callAskForm(host: string, params: Record<string, unknown> = {}, token: string | null = TOKEN) {
  return call(host, "ask_form", params, { token });
}

/**
 * One downstream `tools/call` of the tool `name` through the Worker at `host`, sending `token`
 * as the bearer token (`null`: no Authorization header).
 */
async function call(
  host: string,
  name: string,
  params: Record<string, unknown>,
  { accept = "application/json", token = TOKEN }: { accept?: string; token?: string | null } = {},
) {
  const response = await within(
    `POST ${host}`,
    (miniflare as Miniflare).dispatchFetch(`http://${host}/mcp/upstream`, {
      method: "POST",
      headers: {
        ...toolCallHeaders(name, accept),
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: {}, _meta: META, ...params },
      }),
    }),
  );
  const text = await within(`body of POST ${host}`, response.text());
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    challenge: response.headers.get("www-authenticate"),
    text,
  };
}

/** A Durable Object namespace as Miniflare hands it to Node (its stubs' `fetch` takes a URL and init). */
interface Objects {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch: Fetch };
}

/**
 * Sends to the Worker as a legacy host does, with GATEWAY_TOKEN on every request (Miniflare's
 * Response is the Fetch standard's).
 */
function legacyFetch(): Fetch {
  return (url, init) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${TOKEN}`);
    return (miniflare as Miniflare).dispatchFetch(url, { ...init, headers } as never) as unknown as Promise<
      Response
    >;
  };
}

// deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON-RPC responses
const body = (answer: { text: string }): Record<string, any> => JSON.parse(answer.text);

describe("examples/worker in workerd", { timeout: 120_000 }, () => {
  before(async () => {
    peer = await within("startModernPeer()", startModernPeer());
    outdir = mkdtempSync(join(tmpdir(), "sluice-worker-example-"));
    built = await within("buildWorkerExample()", buildWorkerExample(outdir), 60_000);
    const upstash: Record<string, string> = {};
    if (withRedis) {
      redis = await within("startRedis()", startRedis());
      shim = await within("startUpstashShim()", startUpstashShim({ redisPort: redis.port }));
      upstash.UPSTASH_REDIS_REST_URL = shim.url;
      upstash.UPSTASH_REDIS_REST_TOKEN = shim.token;
    }
    const worker = (name: string, bindings: Record<string, string>, sessions = false) => ({
      name,
      modules: true,
      scriptPath: built.path,
      modulesRoot: outdir,
      compatibilityDate: config.compatibility_date as string,
      compatibilityFlags: FLAGS,
      routes: [`${name}.test/*`],
      bindings,
      ...(sessions ? { durableObjects } : {}),
    });
    miniflare = new Miniflare({
      cf: false,
      workers: [
        worker("gate", { SLUICE_STATE_KEY: KEY, GATEWAY_TOKEN: TOKEN, UPSTREAM_URL: peer.url }, true),
        worker("modern-only", {
          SLUICE_STATE_KEY: KEY,
          GATEWAY_TOKEN: TOKEN,
          GATEWAY_TOKEN_NEXT: NEXT_TOKEN,
          UPSTREAM_URL: peer.url,
        }),
        worker("nokey", { GATEWAY_TOKEN: TOKEN, UPSTREAM_URL: peer.url }),
        worker("notoken", { SLUICE_STATE_KEY: KEY, UPSTREAM_URL: peer.url }),
        worker("upstash", {
          SLUICE_STATE_KEY: KEY,
          GATEWAY_TOKEN: TOKEN,
          UPSTREAM_URL: peer.url,
          ...upstash,
        }),
        worker("upstash-down", {
          SLUICE_STATE_KEY: KEY,
          GATEWAY_TOKEN: TOKEN,
          UPSTREAM_URL: peer.url,
          UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${await freePort()}`,
          UPSTASH_REDIS_REST_TOKEN: "nobody-listens",
        }),
      ],
    });
    await within("Miniflare start", miniflare.ready);
  });

  after(async () => {
    // Each one bounded and each one tried, so one that fails or hangs does not keep the others.
    const stops = [
      within("Miniflare dispose", miniflare?.dispose() ?? Promise.resolve()),
      within("shim.stop()", shim?.stop() ?? Promise.resolve()),
      within("redis.stop()", redis?.stop() ?? Promise.resolve()),
      within("peer.stop()", peer?.stop() ?? Promise.resolve()),
    ];
    if (outdir !== undefined) rmSync(outdir, { recursive: true, force: true });
    const failed = (await Promise.allSettled(stops)).filter((s) => s.status === "rejected");
    assert.deepEqual(failed, []);
  });

  test("the bundle imports no node:* module, and wrangler.jsonc asks for no compatibility flag", () => {
    const code = readFileSync(built.path, "utf8");
    assert.deepEqual(
      code.match(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']node:[^"']*["']/g),
      null,
    );
    assert.deepEqual([config.main, config.compatibility_flags, FLAGS], ["src/index.ts", undefined, []]);
    assert.deepEqual([config.durable_objects, config.migrations], [
      { bindings: [{ name: "SLUICE_SESSIONS", class_name: "SluiceSessions" }] },
      [{ tag: "v1", new_sqlite_classes: ["SluiceSessions"] }],
    ]);
    // At or before the pinned workerd release (1.20260426), so it asks for nothing that workerd lacks.
    const date = String(config.compatibility_date);
    assert.ok(/^\d{4}-\d{2}-\d{2}$/.test(date) && date <= "2026-04-26", date);
    assert.ok(built.bytes > 0 && built.gzipBytes > 0 && built.gzipBytes < built.bytes, JSON.stringify(built));
  });

  test('GET /healthz answers exactly {"ok":true}', async () => {
    const response = await within(
      "GET /healthz",
      (miniflare as Miniflare).dispatchFetch("http://gate.test/healthz"),
    );
    assert.deepEqual(
      [response.status, response.headers.get("content-type"), await response.text()],
      [200, "application/json", '{"ok":true}'],
    );
  });

  test("a call without the token is 401 with WWW-Authenticate: Bearer, and the peer hears nothing of it", async () => {
    const before = (await within("peer.requests()", peer.requests())).length;
    const refused = await callAskForm("gate.test", {}, null);
    assert.deepEqual(refused, {
      status: 401,
      type: "application/json",
      challenge: "Bearer",
      text: JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <secret>" },
      }),
    });
    const servers = await within(
      "GET /servers",
      (miniflare as Miniflare).dispatchFetch("http://gate.test/servers"),
    );
    assert.deepEqual([servers.status, servers.headers.get("www-authenticate"), await servers.json()], [
      401,
      "Bearer",
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <secret>" },
      },
    ]);
    assert.equal((await within("peer.requests()", peer.requests())).length, before);
  });

  test("a wrong token is 401 invalid_token; while rotating, GATEWAY_TOKEN and GATEWAY_TOKEN_NEXT both open", async () => {
    const wrong = await callAskForm("modern-only.test", {}, "worker-example-wrong-token-3c8e1a9f0b7d2645");
    assert.deepEqual(wrong, {
      status: 401,
      type: "application/json",
      challenge:
        'Bearer error="invalid_token", error_description="The token is not one this gateway accepts"',
      text: JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Unauthorized: the bearer token is not one this gateway accepts" },
      }),
    });
    // The "gate" Worker has no GATEWAY_TOKEN_NEXT: the next token opens nothing there yet.
    assert.equal((await callAskForm("gate.test", {}, NEXT_TOKEN)).status, 401);
    for (const token of [TOKEN, NEXT_TOKEN]) {
      const first = await callAskForm("modern-only.test", {}, token);
      assert.deepEqual([first.status, body(first).result.resultType], [200, "input_required"]);
    }
  });

  test("ask_form: input_required with exactly the profile form and a sealed state, then the retry completes", async () => {
    const first = await callAskForm("gate.test");
    const { requestState, ...rest } = body(first).result;
    assert.deepEqual([first.status, first.type, rest], [200, "application/json", {
      resultType: "input_required",
      inputRequests: { profile: PROFILE },
    }]);
    assert.match(requestState, STATE);
    const second = await callAskForm("gate.test", { inputResponses: ANSWER, requestState });
    assert.deepEqual(body(second), { jsonrpc: "2.0", id: 1, result: COMPLETE });
  });

  test("a call the upstream reports progress on streams to an SSE caller: each notification, then the result", async () => {
    const streamed = await call("gate.test", "progress_twice", {
      _meta: { ...META, progressToken: "caller-7" },
    }, {
      accept: "application/json, text/event-stream",
    });
    assert.deepEqual([streamed.status, streamed.type], [200, "text/event-stream"]);
    const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    const progress = (n: number) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "caller-7", progress: n, total: 2 },
    });
    assert.equal(
      streamed.text,
      event(progress(1)) + event(progress(2)) + event({
        jsonrpc: "2.0",
        id: 1,
        result: { ...COMPLETE, content: [{ type: "text", text: "progressed twice" }] },
      }),
    );
  });

  test("a state with one character changed is refused with -32602, and the peer hears nothing of it", async () => {
    const { requestState } = body(await callAskForm("gate.test")).result;
    const at = requestState.length - 3;
    const flipped = requestState.slice(0, at) + (requestState[at] === "A" ? "B" : "A") +
      requestState.slice(at + 1);
    const before = (await within("peer.requests()", peer.requests())).length;
    const refused = await callAskForm("gate.test", { inputResponses: ANSWER, requestState: flipped });
    assert.deepEqual([refused.status, body(refused)], [200, {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Invalid or expired requestState" },
    }]);
    assert.equal((await within("peer.requests()", peer.requests())).length, before);
  });

  test("a caller that did not declare elicitation gets -32021 with the capability it needs", async () => {
    const refused = await callAskForm("gate.test", {
      _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": {} },
    });
    // The example has no elicitation handler, only `passDown`: the front declares elicitation
    // upstream only for callers that declared it, so here the upstream refuses the call itself
    // and the front relays its -32021 (code, sanitized message and requiredCapabilities).
    assert.deepEqual(body(refused), {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32021,
        message:
          "Cannot request input 'profile' (elicitation/create): the request's client capabilities do not declare the required capability",
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      },
    });
  });

  test("a 2025-11-25 host's session lives in a Durable Object: initialize, a form passed down and answered, the result, DELETE, then 404", async () => {
    const fetch = legacyFetch();
    const url = "http://gate.test/mcp/upstream";
    const opened = await within(
      "initialize",
      fetch(url, {
        method: "POST",
        headers: legacyHeaders(),
        body: JSON.stringify(initializeMessage("2025-11-25", { elicitation: { form: {} } })),
      }),
    );
    const session = opened.headers.get("mcp-session-id") ?? "";
    assert.match(session, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual([opened.status, opened.headers.get("content-type"), await opened.json()], [
      200,
      "application/json",
      {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { logging: {}, tools: {}, prompts: {}, resources: {} },
          serverInfo: { name: "sluice-front", title: "sluice: upstream", version: "0.1.0" },
        },
      },
    ]);
    const post = (message: object) =>
      within(
        `POST ${JSON.stringify(message).slice(0, 60)}`,
        fetch(url, {
          method: "POST",
          headers: legacyHeaders(session, "2025-11-25"),
          body: JSON.stringify(message),
        }),
      );
    const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.deepEqual([initialized.status, await initialized.text()], [202, ""]);
    const called = await post({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "ask_form", arguments: {} },
    });
    assert.deepEqual([called.status, called.headers.get("content-type")], [200, "text/event-stream"]);
    const events = new EventReader(called);
    assert.deepEqual(await within("the priming event", events.next()), {
      id: "1_0",
      event: undefined,
      data: "",
    });
    assert.deepEqual(await within("the elicitation", events.message()), {
      jsonrpc: "2.0",
      id: "sluice-1",
      method: "elicitation/create",
      params: PROFILE.params,
    });
    const answered = await post({
      jsonrpc: "2.0",
      id: "sluice-1",
      result: { action: "accept", content: { name: "Grace", age: 85, color: "green" } },
    });
    assert.deepEqual([answered.status, await answered.text()], [202, ""]);
    // The legacy shape (no resultType); the form's default for "subscribe" filled in after the
    // caller's fields (a 2026 caller's answer comes back from the sealed state, keys sorted).
    assert.deepEqual(await within("the result", events.rest()), [{
      jsonrpc: "2.0",
      id: 7,
      result: {
        content: [{ type: "text", text: '{"name":"Grace","age":85,"subscribe":false,"color":"green"}' }],
        _meta: COMPLETE._meta,
      },
    }]);
    // The session is in the object named by its id, and only there. The object trusts the edge,
    // which forwards the server and the caller's principal in internal headers: sent as the edge
    // sends them for GATEWAY_TOKEN's subject (the session's owner).
    const principal = encodeURIComponent(
      JSON.stringify({ subject: "gateway-client", scopes: [], claims: {} }),
    );
    const objects = await within(
      "getDurableObjectNamespace()",
      (miniflare as Miniflare).getDurableObjectNamespace("SLUICE_SESSIONS", "gate"),
    ) as unknown as Objects;
    const pingObject = async (name: string) => {
      const response = await within(
        `ping the object ${name}`,
        objects.get(objects.idFromName(name)).fetch(url, {
          method: "POST",
          headers: {
            ...legacyHeaders(session, "2025-11-25"),
            "x-sluice-internal-server": "upstream",
            "x-sluice-internal-principal": principal,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
        }),
      );
      return [response.status, await response.json()];
    };
    assert.deepEqual(await pingObject(session), [200, { jsonrpc: "2.0", id: 9, result: {} }]);
    assert.deepEqual(await pingObject(`${session.slice(1)}x`), [404, {
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32001, message: "Session not found: initialize a new session" },
    }]);
    const deleted = await within(
      "DELETE",
      fetch(url, { method: "DELETE", headers: { "mcp-session-id": session } }),
    );
    assert.deepEqual([deleted.status, await deleted.text()], [200, ""]);
    const gone = await post({ jsonrpc: "2.0", id: 8, method: "ping" });
    assert.deepEqual([gone.status, await gone.json()], [404, {
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32001, message: "Session not found: initialize a new session" },
    }]);
  });

  test("a 2025 host's request without Mcp-Session-Id is 400 at the edge, as the in-process front answers it", async () => {
    const refused = await within(
      "POST without a session",
      legacyFetch()("http://gate.test/mcp/upstream", {
        method: "POST",
        headers: legacyHeaders(),
        body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }),
      }),
    );
    assert.deepEqual([refused.status, await refused.json()], [400, {
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32000,
        message: "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
      },
    }]);
  });

  test("without the SLUICE_SESSIONS binding, a 2025 host's initialize is 400 -32022 naming it, and 2026 callers still work", async () => {
    const refused = await within(
      "initialize",
      legacyFetch()("http://modern-only.test/mcp/upstream", {
        method: "POST",
        headers: legacyHeaders(),
        body: JSON.stringify(initializeMessage("2025-06-18")),
      }),
    );
    assert.deepEqual([refused.status, refused.headers.get("mcp-session-id"), await refused.json()], [
      400,
      null,
      {
        jsonrpc: "2.0",
        id: 0,
        error: {
          code: -32022,
          message:
            'Unsupported protocol version: this Worker serves only MCP "2026-07-28"; "2025-11-25" and "2025-06-18" hosts need the Durable Object binding "SLUICE_SESSIONS" (the class createWorker() returns as "Sessions"), which it does not have',
          data: { supported: ["2026-07-28"], requested: "2025-06-18" },
        },
      },
    ]);
    const first = await callAskForm("modern-only.test");
    assert.deepEqual([first.status, body(first).result.resultType], [200, "input_required"]);
  });

  test("without the SLUICE_SESSIONS binding, a 2025 host's GET and DELETE are 405 and a POST with a session id is -32022 naming it", async () => {
    const session = { "mcp-session-id": "AAAAAAAAAAAAAAAAAAAAAA", "mcp-protocol-version": "2025-11-25" };
    const send = async (method: string, headers: Record<string, string>, message?: object) => {
      const response = await within(
        `${method} without the binding`,
        legacyFetch()("http://modern-only.test/mcp/upstream", {
          method,
          headers,
          ...(message === undefined ? {} : { body: JSON.stringify(message) }),
        }),
      );
      return [response.status, response.headers.get("allow"), await response.json()];
    };
    const notAllowed = [405, "POST", {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Method Not Allowed: MCP-Protocol-Version 2026-07-28 has no GET stream and no session to DELETE; POST each request",
      },
    }];
    assert.deepEqual([
      await send("GET", { accept: "text/event-stream", ...session }),
      await send("DELETE", session),
      await send("POST", { ...legacyHeaders(), ...session }, { jsonrpc: "2.0", id: 3, method: "ping" }),
    ], [notAllowed, notAllowed, [400, null, {
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32022,
        message:
          'Unsupported protocol version: this Worker serves only MCP "2026-07-28"; "2025-11-25" and "2025-06-18" hosts need the Durable Object binding "SLUICE_SESSIONS" (the class createWorker() returns as "Sessions"), which it does not have',
        data: { supported: ["2026-07-28"], requested: "2025-11-25" },
      },
    }]]);
  });

  test("without SLUICE_STATE_KEY every request answers 500 naming it", async () => {
    const expected = JSON.stringify({
      error:
        'sluice: "SLUICE_STATE_KEY" is not set: expected at least 32 bytes of random data, the same on every instance, make one with `openssl rand -base64 32`',
    });
    const health = await within(
      "GET /healthz",
      (miniflare as Miniflare).dispatchFetch("http://nokey.test/healthz"),
    );
    assert.deepEqual([health.status, health.headers.get("content-type"), await health.text()], [
      500,
      "application/json",
      expected,
    ]);
    const call = await callAskForm("nokey.test");
    assert.deepEqual([call.status, call.text], [500, expected]);
  });

  test('without GATEWAY_TOKEN every request answers 500 naming "auth", and nothing runs open', async () => {
    const expected = JSON.stringify({
      error:
        'sluice worker: "auth" is not set: a Worker is on the internet, so say who may call it: { bearer: [{ secret, subject }] } with a secret from env, { jwt: { issuer, jwks } }, a function (request) => principal | Response, or "none" to let anyone in',
    });
    const health = await within(
      "GET /healthz",
      (miniflare as Miniflare).dispatchFetch("http://notoken.test/healthz"),
    );
    assert.deepEqual([health.status, health.headers.get("content-type"), await health.text()], [
      500,
      "application/json",
      expected,
    ]);
    for (const token of [TOKEN, null]) {
      const call = await callAskForm("notoken.test", {}, token);
      assert.deepEqual([call.status, call.text], [500, expected]);
    }
  });

  test(
    "with Upstash Redis set, the budget lives in Redis (one token taken) and the two-round flow completes",
    { skip: !withRedis },
    async () => {
      const first = await callAskForm("upstash.test");
      const { requestState } = body(first).result;
      assert.match(requestState, STATE);
      const second = await callAskForm("upstash.test", { inputResponses: ANSWER, requestState });
      assert.deepEqual(body(second).result, COMPLETE);
      // The state's nonce was spent in Redis: the same retry again is refused, on any isolate.
      const again = await callAskForm("upstash.test", { inputResponses: ANSWER, requestState });
      assert.deepEqual(body(again), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Invalid or expired requestState" },
      });
      // The state's payload is its canonical JSON, base64url (the nonce is readable, not secret).
      const { nonce } = JSON.parse(Buffer.from(requestState.split(".")[1], "base64url").toString("utf8"));
      const client = new RedisClient({
        host: "127.0.0.1",
        port: (redis as RedisServer).port,
        lazyConnect: true,
      });
      try {
        await within("redis connect", client.connect());
        const keys = await within("KEYS", client.keys("sluice:ratelimit:*"));
        // The caller's budget (GATEWAY_TOKEN's subject) and the spent nonce of the state.
        const budget = "sluice:ratelimit:5/1000/10:input:upstream@gateway-client";
        assert.deepEqual(keys.sort(), [budget, `sluice:ratelimit:claim:state:${nonce}`]);
        // One input request (the form) took one token of the example's burst of 10.
        assert.equal(await within("HGET", client.hget(budget, "tokens")), "9");
      } finally {
        client.disconnect();
      }
    },
  );

  test("with Upstash Redis unreachable, input is refused (fail closed) and the worker stays up", async () => {
    const refused = await callAskForm("upstash-down.test");
    assert.deepEqual(body(refused), {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message:
          'Input request "profile" refused by policy: Input request refused: the rate-limit store is unavailable',
      },
    });
    const health = await within(
      "GET /healthz",
      (miniflare as Miniflare).dispatchFetch("http://upstash-down.test/healthz"),
    );
    assert.equal(health.status, 200);
  });
});
