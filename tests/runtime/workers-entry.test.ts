// createWorker() on every runtime (inside workerd too): how it reads env, answers configuration
// problems with a 500, prepares once per env object, keeps budgets across requests, hands
// streamed work to waitUntil, and sends 2025 hosts' sessions to their Durable Objects (here a
// namespace in memory that constructs the objects as the runtime does; the example Worker's
// test runs them in workerd's own). Nothing leaves the process: calls reach a scripted upstream.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createWorker,
  type ExecutionContextLike,
  type SessionsBinding,
  type SessionsClass,
  type SessionsObject,
  type WorkerEntry,
  type WorkerOptions,
} from "../../src/adapters/workers.ts";
import type { Decision } from "../../src/chain/decision.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { type CompiledPolicy, compilePolicy } from "../../src/policy/compile-policy.ts";
import { placeholders } from "../_support/decision-lines.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import {
  EventReader,
  type Fetch,
  initializeMessage,
  LegacyCaller,
  legacyHeaders,
} from "../_support/legacy-caller.ts";

type TestEnv = Readonly<Record<string, string | undefined>>;

const KEY = "workers-entry-test-state-key-0123456789";

function worker() {
  const seen: { policies: TestEnv[]; handler: TestEnv[] } = { policies: [], handler: [] };
  const entry = createWorker<TestEnv>({
    name: "workers-entry-test",
    auth: "none",
    policies: (env) => {
      seen.policies.push(env);
      const policy: Policy = {
        server: "upstream",
        transport: { url: env.UPSTREAM_URL ?? SCRIPTED },
        era: "modern",
        passDown: ["elicitation"],
        stateTtl: "5m",
      };
      return [policy];
    },
    handler: (env) => {
      seen.handler.push(env);
      return { roots: () => ({ roots: [{ uri: "file:///workspace" }] }) };
    },
  });
  return { entry, seen };
}

/** The URL of the scripted upstream (no request leaves the process: `fetch` is swapped). */
const SCRIPTED = "https://upstream.example/mcp";

/**
 * Runs `work` with the global `fetch` answering as a small modern upstream: `server/discover`
 * offers tools; `tools/list` lists nothing; `ask_roots` asks for roots, then answers "rooted";
 * `ask_name` asks for a form with a name, then answers "hello <name>"; `progress_once` sends one
 * progress notification for the caller's token, then answers "progressed". The Worker takes no
 * `fetch` option, so the global one is swapped for the test's duration.
 */
async function withScriptedUpstream<T>(work: () => Promise<T>): Promise<{ seen: string[]; answer: T }> {
  const seen: string[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    assert.equal(request.url, SCRIPTED);
    // deno-lint-ignore no-explicit-any -- a JSON-RPC request
    const message: any = await request.json();
    seen.push(message.method);
    const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: message.id, result });
    if (message.method === "tools/list") return reply({ resultType: "complete", tools: [] });
    if (message.method === "server/discover") {
      return reply({
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
      });
    }
    if (message.params.name === "ask_name") {
      const answer = message.params.inputResponses?.name;
      return reply(
        answer === undefined
          ? { resultType: "input_required", inputRequests: { name: NAME_FORM } }
          : { resultType: "complete", content: [{ type: "text", text: `hello ${answer.content.name}` }] },
      );
    }
    if (message.params.name === "ask_roots") {
      return reply(
        message.params.inputResponses === undefined
          ? { resultType: "input_required", inputRequests: { r: { method: "roots/list", params: {} } } }
          : { resultType: "complete", content: [{ type: "text", text: "rooted" }] },
      );
    }
    const progressToken = message.params._meta?.progressToken;
    const events = [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: 1 } },
      {
        jsonrpc: "2.0",
        id: message.id,
        result: { resultType: "complete", content: [{ type: "text", text: "progressed" }] },
      },
    ];
    return new Response(events.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join(""), {
      headers: { "content-type": "text/event-stream" },
    });
  };
  try {
    return { seen, answer: await work() };
  } finally {
    globalThis.fetch = original;
  }
}

/** The form `ask_name` asks for. */
const NAME_FORM = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
};

/** The env of the sessions' tests: the state key, and the Durable Object binding when there is one. */
type SessionsEnv = { readonly SLUICE_STATE_KEY: string; readonly SLUICE_SESSIONS?: unknown };

/**
 * A Durable Object namespace in memory, as the Workers runtime gives one: `idFromName` names an
 * object, whose first request constructs it with `(state, env)`; `evict()` drops every object.
 */
function objectsOf(Sessions: SessionsClass<SessionsEnv>) {
  const named: string[] = [];
  const objects = new Map<string, SessionsObject>();
  const binding: SessionsBinding = {
    idFromName: (name) => {
      named.push(name);
      return `id:${name}`;
    },
    get: (id) => ({
      fetch: (request) => {
        let object = objects.get(id as string);
        if (object === undefined) {
          object = new Sessions({}, env);
          objects.set(id as string, object);
        }
        return object.fetch(request);
      },
    }),
  };
  const env: SessionsEnv = { SLUICE_STATE_KEY: KEY, SLUICE_SESSIONS: binding };
  return { named, objects, env, evict: () => objects.clear() };
}

/** A Worker in front of the scripted upstream passing elicitation down, as a host's `fetch`. */
function sessionsWorker() {
  const worker = createWorker<SessionsEnv>({
    auth: "none",
    policies: [{
      server: "upstream",
      transport: { url: SCRIPTED },
      era: "modern",
      passDown: ["elicitation"],
    }],
  });
  const fetchWith = (env: SessionsEnv): Fetch => (url, init) =>
    worker.fetch(new Request(url, init), env, context());
  return { worker, fetchWith };
}

const INITIALIZE = initializeMessage();

/** A downstream `tools/call` of `name`, with `_meta` extras and an `Accept` header. */
function callRequest(name: string, meta: Record<string, unknown> = {}, accept = "application/json"): Request {
  return new Request("https://gate.example/mcp/upstream", {
    method: "POST",
    headers: toolCallHeaders(name, accept),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          ...meta,
        },
      },
    }),
  });
}

function context(): ExecutionContextLike & { readonly waited: Promise<unknown>[] } {
  const waited: Promise<unknown>[] = [];
  return { waited, waitUntil: (promise) => void waited.push(promise) };
}

async function get(entry: ReturnType<typeof worker>["entry"], path: string, env: TestEnv) {
  const response = await entry.fetch(new Request(`https://gate.example${path}`), env, context());
  return { status: response.status, type: response.headers.get("content-type"), body: await response.json() };
}

const notSet = (name: string) => ({
  status: 500,
  type: "application/json",
  body: {
    error: name === "SLUICE_STATE_KEY"
      ? 'sluice: "SLUICE_STATE_KEY" is not set: expected at least 32 bytes of random data, the same on every instance, make one with `openssl rand -base64 32`'
      : `sluice worker: "${name}" is set but "${
        name === "UPSTASH_REDIS_REST_URL" ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"
      }" is not: expected both "UPSTASH_REDIS_REST_URL" and "UPSTASH_REDIS_REST_TOKEN" (budgets in Upstash Redis, shared by every isolate) or neither (budgets in memory, per isolate)`,
  },
});

describe("createWorker()", () => {
  test("createWorker() answers 500 when a policy signs in with transport.auth.oauth and Upstash Redis is not set", async () => {
    const entry = createWorker<TestEnv>({
      auth: "none",
      policies: [{ server: "github", transport: { url: SCRIPTED, auth: { oauth: { scopes: ["repo"] } } } }],
    });
    assert.deepEqual(await get(entry, "/healthz", { SLUICE_STATE_KEY: KEY }), {
      status: 500,
      type: "application/json",
      body: {
        error:
          'sluice worker: the policy of "github" signs in with "transport.auth.oauth", which needs "UPSTASH_REDIS_REST_URL" and "UPSTASH_REDIS_REST_TOKEN": callers\' sign-ins and tokens must be shared by every isolate',
      },
    });
  });

  test("createWorker() answers 500 naming a policy that does not say era modern or has a stdio command, on every route", async () => {
    const refused = (says: string) => ({
      status: 500,
      type: "application/json",
      body: {
        error:
          `sluice worker: the policy of "demo" says ${says}: expected "era": "modern" and a "transport" with a "url", since a Worker speaks only MCP "2026-07-28" upstream, over HTTP (a legacy or stdio server needs a self-hosted entry: @sluice/mcp/node, /deno or /bun)`,
      },
    });
    const cases: Array<[Policy | CompiledPolicy, string]> = [
      [
        { server: "demo", transport: { url: SCRIPTED }, era: "legacy" },
        '"era": "legacy" and a "transport" with a "url"',
      ],
      [
        { server: "demo", transport: { url: SCRIPTED }, era: "auto" },
        '"era": "auto" and a "transport" with a "url"',
      ],
      [
        { server: "demo", transport: { url: SCRIPTED } },
        'no "era" (so "auto") and a "transport" with a "url"',
      ],
      [
        { server: "demo", transport: { command: "npx", args: ["demo-server"] }, era: "modern" },
        '"era": "modern" and a "transport" with a "command"',
      ],
      // A `command` written as undefined is left out: the transport is HTTP.
      [
        { server: "demo", transport: { url: SCRIPTED, command: undefined }, era: "legacy" },
        '"era": "legacy" and a "transport" with a "url"',
      ],
      // Compiled policies too: their transport says its kind.
      [
        compilePolicy({ server: "demo", transport: { command: "npx" }, era: "legacy" }),
        '"era": "legacy" and a "transport" with a "command"',
      ],
    ];
    const answers = [];
    for (const [policy] of cases) {
      const entry = createWorker<TestEnv>({
        auth: "none",
        policies: [{ server: "files", transport: { url: SCRIPTED }, era: "modern" }, policy],
      });
      const env = { SLUICE_STATE_KEY: KEY };
      const call = await entry.fetch(callRequest("ask_roots"), env, context());
      answers.push([
        await get(entry, "/healthz", env),
        await get(entry, "/servers", env),
        { status: call.status, type: call.headers.get("content-type"), body: await call.json() },
      ]);
    }
    assert.deepEqual(answers, cases.map(([, says]) => [refused(says), refused(says), refused(says)]));
  });

  test("createWorker() answers 500 naming SLUICE_STATE_KEY when it is missing or empty, and builds nothing", async () => {
    const { entry, seen } = worker();
    for (const env of [{}, { SLUICE_STATE_KEY: "" }, { UPSTREAM_URL: SCRIPTED }]) {
      assert.deepEqual(await get(entry, "/healthz", env), notSet("SLUICE_STATE_KEY"));
    }
    assert.deepEqual(seen, { policies: [], handler: [] });
  });

  test("createWorker() answers 500 naming the problem when SLUICE_STATE_KEY is short, patterned or of few distinct bytes", async () => {
    const { entry, seen } = worker();
    const refused = (problem: string) => ({
      status: 500,
      type: "application/json",
      body: {
        error:
          `sluice worker: the secret "SLUICE_STATE_KEY" ${problem} make one with \`openssl rand -base64 32\``,
      },
    });
    const cases: Array<[string, string]> = [
      ["x".repeat(31), "must be at least 32 bytes of random data, received 31:"],
      ["é".repeat(16), "repeats a pattern: expected random bytes,"],
      ["0123456789abcdef0123456789abcdef", "repeats a pattern: expected random bytes,"],
      ["aaaaaaaabbbbbbbbccccccccdddddddde", 'has fewer than "8" distinct bytes: expected random bytes,'],
    ];
    for (const [key, problem] of cases) {
      assert.deepEqual(await get(entry, "/healthz", { SLUICE_STATE_KEY: key }), refused(problem));
    }
    assert.deepEqual(seen.policies, []);
    // Bytes, not characters: 16 two-byte characters are enough.
    assert.deepEqual(await get(entry, "/healthz", { SLUICE_STATE_KEY: "éèêëàâäîïôöùûüçñ" }), {
      status: 200,
      type: "application/json",
      body: { ok: true },
    });
  });

  test("createWorker() answers 500 naming both Upstash variables when only one of them is set", async () => {
    const { entry, seen } = worker();
    const url = "https://eu1-example.upstash.io";
    assert.deepEqual(
      await get(entry, "/healthz", { SLUICE_STATE_KEY: KEY, UPSTASH_REDIS_REST_URL: url }),
      notSet("UPSTASH_REDIS_REST_URL"),
    );
    assert.deepEqual(
      await get(entry, "/healthz", { SLUICE_STATE_KEY: KEY, UPSTASH_REDIS_REST_TOKEN: "t" }),
      notSet("UPSTASH_REDIS_REST_TOKEN"),
    );
    assert.deepEqual(seen.policies, []);
    const both = { SLUICE_STATE_KEY: KEY, UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: "t" };
    assert.deepEqual((await get(entry, "/healthz", both)).body, { ok: true });
    assert.deepEqual(seen.policies, [both]);
  });

  test("createWorker() calls the env functions once per env object, and again for another env object", async () => {
    const { entry, seen } = worker();
    const env = { SLUICE_STATE_KEY: KEY, UPSTREAM_URL: "http://127.0.0.1:9/mcp" };
    assert.deepEqual(await get(entry, "/healthz", env), {
      status: 200,
      type: "application/json",
      body: { ok: true },
    });
    assert.deepEqual((await get(entry, "/healthz", env)).body, { ok: true });
    assert.deepEqual(await get(entry, "/servers", env), {
      status: 200,
      type: "application/json",
      body: {
        servers: [{
          id: "upstream",
          era: "modern",
          transport: "http",
          // From env.UPSTREAM_URL, through the policies function.
          elicitationOrigin: "http://127.0.0.1:9",
          capabilities: { roots: {}, elicitation: { form: {}, url: {} } },
          passDown: ["elicitation"],
          limits: {
            inputRateLimit: { rate: 10, perMs: 1000, burst: 20 },
            maxRounds: 10,
            callTimeoutMs: 60000,
            maxTotalTimeoutMs: 600000,
            stateTtlMs: 300000,
            maxMessageBytes: 4194304,
            maxEventBytes: 4194304,
            maxJsonDepth: 64,
            maxInputRequests: 16,
            sampling: { maxTokens: 4096 },
          },
        }],
      },
    });
    assert.equal(seen.policies.length, 1);
    assert.equal(seen.policies[0], env);
    assert.equal(seen.handler[0], env);
    // Another env object (another deployment's bindings) gets its own gateway.
    const other = { ...env };
    assert.deepEqual((await get(entry, "/healthz", other)).body, { ok: true });
    assert.deepEqual([seen.policies.length, seen.handler.length, seen.policies[1] === other], [2, 2, true]);
  });

  test("createWorker() answers 500 without the policy's text, and logs it, when the policies do not compile", async () => {
    const entry = createWorker<TestEnv>({
      auth: "none",
      policies: (env) => [{ server: "bad id!", transport: { url: env.UPSTREAM_URL ?? "" }, era: "modern" }],
    });
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const env = { SLUICE_STATE_KEY: KEY, UPSTREAM_URL: "https://secret-host.example/mcp" };
      const first = await get(entry, "/healthz", env);
      assert.deepEqual(first, {
        status: 500,
        type: "application/json",
        body: {
          error:
            `sluice worker: the gateway could not be built from "policies" and "handler": expected policies that compile (the Worker's logs name the problem)`,
        },
      });
      assert.deepEqual((await get(entry, "/servers", env)).body, first.body);
    } finally {
      console.error = original;
    }
    assert.deepEqual(logged.map((args) => [args[0], (args[1] as Error).name]), [
      ["sluice worker: the gateway could not be built", "PolicyError"],
    ]);
  });

  test("createWorker() keeps one gateway per env: input budgets and the learned tool list hold across requests", async () => {
    const { seen, answer } = await withScriptedUpstream(async () => {
      const entry = createWorker<TestEnv>({
        auth: "none",
        policies: [{
          server: "upstream",
          transport: { url: SCRIPTED },
          era: "modern",
          inputRateLimit: { rate: 1, per: "1h", burst: 1 },
        }],
        handler: { roots: () => ({ roots: [{ uri: "file:///workspace" }] }) },
      });
      const env = { SLUICE_STATE_KEY: KEY };
      const first = await entry.fetch(callRequest("ask_roots"), env, context());
      const second = await entry.fetch(callRequest("ask_roots"), env, context());
      // deno-lint-ignore no-explicit-any -- JSON-RPC responses
      return [await first.json(), await second.json()] as any[];
    });
    const [first, second] = answer;
    assert.deepEqual(first, {
      jsonrpc: "2.0",
      id: 7,
      result: { resultType: "complete", content: [{ type: "text", text: "rooted" }] },
    });
    const { message, ...rest } = second.error;
    assert.deepEqual([second.jsonrpc, second.id, rest], ["2.0", 7, { code: -32000 }]);
    assert.match(
      message,
      /^Input request "r" refused by policy: Input request refused: over the policy's inputRateLimit of 1 per 3600000 ms \(burst 1\); retry in \d+ ms$/,
    );
    // One gateway per env serves both requests: the tool list is learned once.
    assert.deepEqual(seen, ["tools/list", "tools/call", "tools/call", "tools/call"]);
  });

  test("createWorker() hands a call that streams (an upstream notification) to ctx.waitUntil", async () => {
    const ctx = context();
    const { answer } = await withScriptedUpstream(async () => {
      const { entry } = worker();
      const response = await entry.fetch(
        callRequest("progress_once", { progressToken: "p-1" }, "application/json, text/event-stream"),
        { SLUICE_STATE_KEY: KEY, UPSTREAM_URL: SCRIPTED },
        ctx,
      );
      return [response.status, response.headers.get("content-type"), await response.text()];
    });
    assert.deepEqual(answer, [
      200,
      "text/event-stream",
      [
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p-1", progress: 1 } },
        {
          jsonrpc: "2.0",
          id: 7,
          result: { resultType: "complete", content: [{ type: "text", text: "progressed" }] },
        },
      ].map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join(""),
    ]);
    assert.equal(ctx.waited.length, 1);
    assert.deepEqual((await Promise.allSettled(ctx.waited)).map((s) => s.status), ["fulfilled"]);
  });

  test("createWorker() answers a 2025 host's initialize with 400 -32022 naming SLUICE_SESSIONS when the Worker has no such binding", async () => {
    const { fetchWith } = sessionsWorker();
    const fetch = fetchWith({ SLUICE_STATE_KEY: KEY });
    const response = await fetch("https://gate.example/mcp/upstream", {
      method: "POST",
      headers: legacyHeaders(),
      body: JSON.stringify(INITIALIZE),
    });
    assert.deepEqual([response.status, response.headers.get("mcp-session-id"), await response.json()], [
      400,
      null,
      {
        jsonrpc: "2.0",
        id: 0,
        error: {
          code: -32022,
          message:
            'Unsupported protocol version: this Worker serves only MCP "2026-07-28"; "2025-11-25" and "2025-06-18" hosts need the Durable Object binding "SLUICE_SESSIONS" (the class createWorker() returns as "Sessions"), which it does not have',
          data: { supported: ["2026-07-28"], requested: "2025-11-25" },
        },
      },
    ]);
  });

  test("createWorker() without SLUICE_SESSIONS answers a 2025 host's GET and DELETE 405 and its other POSTs -32022 naming the binding", async () => {
    const { fetchWith } = sessionsWorker();
    const host = new LegacyCaller(fetchWith({ SLUICE_STATE_KEY: KEY }), "https://gate.example/mcp/upstream");
    const answer = async (response: Response) => ({
      status: response.status,
      allow: response.headers.get("allow"),
      type: response.headers.get("content-type"),
      body: await response.json(),
    });
    const notAllowed = {
      status: 405,
      allow: "POST",
      type: "application/json",
      body: {
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message:
            "Method Not Allowed: MCP-Protocol-Version 2026-07-28 has no GET stream and no session to DELETE; POST each request",
        },
      },
    };
    const unsupported = (id: number | undefined, requested: string) => ({
      status: 400,
      allow: null,
      type: "application/json",
      body: {
        jsonrpc: "2.0",
        ...(id === undefined ? {} : { id }),
        error: {
          code: -32022,
          message:
            'Unsupported protocol version: this Worker serves only MCP "2026-07-28"; "2025-11-25" and "2025-06-18" hosts need the Durable Object binding "SLUICE_SESSIONS" (the class createWorker() returns as "Sessions"), which it does not have',
          data: { supported: ["2026-07-28"], requested },
        },
      },
    });
    const answers = [await answer(await host.listen()), await answer(await host.close())];
    // With a session id (one the Worker would have minted, or any other), the same answers.
    for (const session of ["AAAAAAAAAAAAAAAAAAAAAA", "not-one-of-ours"]) {
      host.session = session;
      answers.push(
        await answer(await host.listen()),
        await answer(await host.close()),
        await answer(await host.post({ jsonrpc: "2.0", id: 1, method: "ping" })),
        await answer(await host.post({ jsonrpc: "2.0", method: "notifications/initialized" })),
      );
    }
    host.session = undefined;
    answers.push(await answer(await host.post({ jsonrpc: "2.0", id: 2, method: "tools/list" })));
    const withSession = [
      notAllowed,
      notAllowed,
      unsupported(1, "2025-11-25"),
      unsupported(undefined, "2025-11-25"),
    ];
    assert.deepEqual(answers, [
      notAllowed,
      notAllowed,
      ...withSession,
      ...withSession,
      unsupported(2, "2025-11-25"),
    ]);
  });

  test("createWorker() answers 500 naming SLUICE_SESSIONS when it is not a Durable Object namespace", async () => {
    const { worker } = sessionsWorker();
    const response = await worker.fetch(
      new Request("https://gate.example/healthz"),
      { SLUICE_STATE_KEY: KEY, SLUICE_SESSIONS: "SluiceSessions" },
      context(),
    );
    assert.deepEqual([response.status, await response.json()], [500, {
      error:
        'sluice worker: the binding "SLUICE_SESSIONS" is not a Durable Object namespace: expected a "durable_objects" binding of the class createWorker() returns as "Sessions"',
    }]);
  });

  test("createWorker() keeps a 2025 host's session in the Durable Object named by its id: a form passed down and answered, DELETE, then 404", async () => {
    const { seen, answer } = await withScriptedUpstream(async () => {
      const { worker, fetchWith } = sessionsWorker();
      const objects = objectsOf(worker.Sessions);
      const host = new LegacyCaller(fetchWith(objects.env), "https://gate.example/mcp/upstream");
      const opened = await host.initialize({ elicitation: { form: {} } });
      const session = host.session ?? "";
      const called = await host.post({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "ask_name", arguments: {} },
      });
      const stream = [called.status, called.headers.get("content-type")];
      const events = new EventReader(called);
      const priming = await events.next();
      const asked = await events.message();
      const answered = await host.post({
        jsonrpc: "2.0",
        id: "sluice-1",
        result: { action: "accept", content: { name: "Ada" } },
      });
      const rest = await events.rest();
      const deleted = await host.close();
      const gone = await host.post({ jsonrpc: "2.0", id: 8, method: "ping" });
      return {
        session,
        opened,
        stream,
        priming,
        asked,
        answered: [answered.status, await answered.text()],
        rest,
        deleted: [deleted.status, await deleted.text()],
        gone: [gone.status, await gone.json()],
        named: objects.named,
        objects: objects.objects.size,
      };
    });
    assert.match(answer.session, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(answer, {
      session: answer.session,
      opened: {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { logging: {}, tools: {} },
          serverInfo: { name: "sluice-front", title: "sluice: upstream", version: "0.1.0" },
        },
      },
      stream: [200, "text/event-stream"],
      priming: { id: "1_0", event: undefined, data: "" },
      asked: { jsonrpc: "2.0", id: "sluice-1", method: "elicitation/create", params: NAME_FORM.params },
      answered: [202, ""],
      rest: [{ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "hello Ada" }] } }],
      deleted: [200, ""],
      gone: [404, {
        jsonrpc: "2.0",
        id: 8,
        error: { code: -32001, message: "Session not found: initialize a new session" },
      }],
      // initialize, notifications/initialized, the call, the answer, DELETE, the ping: one object.
      named: Array(6).fill(answer.session),
      objects: 1,
    });
    assert.deepEqual(seen, ["server/discover", "tools/list", "tools/call", "tools/call"]);
  });

  test("createWorker() answers a 2025 host's request without Mcp-Session-Id at the edge (400), and an id it never minted with 404, naming no object", async () => {
    const { worker, fetchWith } = sessionsWorker();
    const objects = objectsOf(worker.Sessions);
    const host = new LegacyCaller(fetchWith(objects.env), "https://gate.example/mcp/upstream");
    const none = await host.post({ jsonrpc: "2.0", id: 5, method: "ping" });
    assert.deepEqual([none.status, await none.json()], [400, {
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32000,
        message: "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
      },
    }]);
    host.session = "no-such-session";
    const unknown = await host.post({ jsonrpc: "2.0", id: 6, method: "ping" });
    assert.deepEqual([unknown.status, (await unknown.json()).error], [404, {
      code: -32001,
      message: "Session not found: initialize a new session",
    }]);
    assert.deepEqual([objects.named, objects.objects.size], [[], 0]);
  });

  test("createWorker() drops the internal headers a caller sends: a forged session id is not the one minted", async () => {
    const { answer } = await withScriptedUpstream(async () => {
      const { worker, fetchWith } = sessionsWorker();
      const objects = objectsOf(worker.Sessions);
      const forged = "forgedforgedforgedforg";
      const response = await fetchWith(objects.env)("https://gate.example/mcp/upstream", {
        method: "POST",
        headers: {
          ...legacyHeaders(),
          "x-sluice-internal-new-session": forged,
          "x-sluice-internal-server": "elsewhere",
        },
        body: JSON.stringify(INITIALIZE),
      });
      const session = response.headers.get("mcp-session-id");
      return { status: response.status, session, forged: session === forged, named: objects.named };
    });
    assert.equal(answer.status, 200);
    assert.match(answer.session ?? "", /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual([answer.forged, answer.named], [false, [answer.session]]);
  });

  test("createWorker() loses a session whose Durable Object was evicted: the host gets 404 and initializes again", async () => {
    const { answer } = await withScriptedUpstream(async () => {
      const { worker, fetchWith } = sessionsWorker();
      const objects = objectsOf(worker.Sessions);
      const host = new LegacyCaller(fetchWith(objects.env), "https://gate.example/mcp/upstream");
      await host.initialize();
      const first = host.session;
      const before = await host.request(1, "ping");
      objects.evict();
      const lost = await host.post({ jsonrpc: "2.0", id: 2, method: "ping" });
      const status = lost.status;
      await lost.body?.cancel();
      await host.initialize();
      const after = await host.request(3, "ping");
      return { before, status, after, again: host.session !== first && host.session !== undefined };
    });
    assert.deepEqual(answer, {
      before: { jsonrpc: "2.0", id: 1, result: {} },
      status: 404,
      after: { jsonrpc: "2.0", id: 3, result: {} },
      again: true,
    });
  });

  test("createWorker() writes the decision events where decisions says: to its listener (env beside the event), nowhere (false), as text or as JSON (the default) with console.log", async () => {
    const heard: string[] = [];
    const choices: WorkerOptions<TestEnv>["decisions"][] = [
      (decision, env) => void heard.push(`${env.TAG} ${JSON.stringify(decision)}`),
      false,
      "text",
      undefined,
    ];
    const logged: string[][] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void logged.at(-1)?.push(args.join(" "));
    try {
      await withScriptedUpstream(async () => {
        for (const decisions of choices) {
          logged.push([]);
          const entry = createWorker<TestEnv>({
            auth: "none",
            policies: [{ server: "upstream", transport: { url: SCRIPTED }, era: "modern" }],
            handler: { roots: () => ({ roots: [{ uri: "file:///workspace" }] }) },
            ...(decisions === undefined ? {} : { decisions }),
          });
          const env = { SLUICE_STATE_KEY: KEY, TAG: "audit" };
          assert.equal((await entry.fetch(callRequest("ask_roots"), env, context())).status, 200);
        }
      });
    } finally {
      console.log = original;
    }
    const input = {
      type: "input",
      time: "<time>",
      client: "sluice",
      server: "upstream",
      era: "modern",
      method: "roots/list",
      outcome: "answered",
      changes: [],
      handlerMs: "<ms>",
      durationMs: "<ms>",
    };
    const call = {
      type: "call",
      time: "<time>",
      client: "sluice",
      server: "upstream",
      method: "tools/call",
      name: "ask_roots",
      outcome: "completed",
      rounds: 2,
      durationMs: "<ms>",
    };
    assert.deepEqual(
      [
        heard.map((line) => line.split(" ", 1)[0]),
        placeholders(heard.map((line) => line.slice(6)).join("\n")),
      ],
      [["audit", "audit"], [input, call]],
    );
    assert.deepEqual(logged.map((lines) => lines.length === 0 ? [] : placeholders(lines.join("\n"))), [
      [],
      [],
      [
        "sluice input upstream roots/list answered <ms> ms",
        "sluice call upstream tools/call ask_roots completed in 2 rounds <ms> ms",
      ],
      [input, call],
    ]);
  });

  test("createWorker() calls a decisions listener with the event, env only beside it: one of the event alone, as createGateway takes it, never gets env in its place, and what a listener throws is ignored", async () => {
    const heard: unknown[][] = [];
    // As GatewayOptions.decisions takes a listener, and as JavaScript may pass one: of the event alone.
    const ofEvent: (decision: Decision) => unknown = (decision) =>
      void heard.push(["ofEvent", decision.type]);
    const withEnv = (...args: [Decision, TestEnv]) => {
      heard.push(["withEnv", args.length, args[0].type, args[1]]);
      throw new Error("the audit queue is down");
    };
    const env = { SLUICE_STATE_KEY: KEY, TAG: "audit" };
    const { answer } = await withScriptedUpstream(async () => {
      const statuses: number[] = [];
      for (const decisions of [ofEvent, withEnv]) {
        const entry = createWorker<TestEnv>({
          auth: "none",
          policies: [{ server: "upstream", transport: { url: SCRIPTED }, era: "modern" }],
          handler: { roots: () => ({ roots: [{ uri: "file:///workspace" }] }) },
          decisions,
        });
        statuses.push((await get(entry, "/healthz", env)).status);
        statuses.push((await entry.fetch(callRequest("ask_roots"), env, context())).status);
      }
      return statuses;
    });
    assert.deepEqual([answer, heard], [[200, 200, 200, 200], [
      ["ofEvent", "input"],
      ["ofEvent", "call"],
      ["withEnv", 2, "input", env],
      ["withEnv", 2, "call", env],
    ]]);
  });

  test("createWorker() throws a TypeError naming the option when policies, handler or decisions has the wrong type, or an option is misspelt", () => {
    assert.throws(() => createWorker({ policies: "github" as never }), {
      name: "TypeError",
      message: 'createWorker(): "policies" must be a list or a function of env, received "string"',
    });
    assert.throws(() => createWorker({ policies: [], handler: 5 as never }), {
      name: "TypeError",
      message: 'createWorker(): "handler" must be a handler object or a function of env, received "number"',
    });
    assert.throws(() => createWorker({ policies: [], decisions: "yaml" as never }), {
      name: "TypeError",
      message: 'createWorker(): "decisions" must be "json", "text", false or a function, received "yaml"',
    });
    // A misspelt auth would leave the Worker without one: refused at once, the option meant named.
    assert.throws(() => createWorker({ policies: [], Auth: "none" } as never), {
      name: "TypeError",
      message:
        'createWorker(): "Auth" is not an option (did you mean "auth"?); expected "policies", "handler", "name", "assigns", "auth", "allowedHosts", "allowedOrigins", "heartbeat", "signInUser", "decisions"',
    });
  });

  test("createWorker() takes an optional option written as undefined as left out: routed hosts, and without auth the 500 naming it", async () => {
    const policies: Policy[] = [{ server: "files", transport: { url: SCRIPTED }, era: "modern" }];
    const unset = (auth: WorkerOptions<TestEnv>["auth"]): WorkerOptions<TestEnv> => ({
      policies,
      handler: undefined,
      name: undefined,
      assigns: undefined,
      auth,
      allowedHosts: undefined,
      allowedOrigins: undefined,
      heartbeat: undefined,
      signInUser: undefined,
      decisions: undefined,
    });
    const env = { SLUICE_STATE_KEY: KEY };
    const answers = async (entry: WorkerEntry<TestEnv>) => [
      await get(entry, "/healthz", env),
      await get(entry, "/servers", env),
    ];
    const noAuth = {
      status: 500,
      type: "application/json",
      body: {
        error:
          'sluice worker: "auth" is not set: a Worker is on the internet, so say who may call it: { bearer: [{ secret, subject }] } with a secret from env, { jwt: { issuer, jwks } }, a function (request) => principal | Response, or "none" to let anyone in',
      },
    };
    // A Host of gate.example is answered: "routed" is the default of allowedHosts.
    const leftOut = await answers(createWorker({ policies, auth: "none" }));
    assert.deepEqual(leftOut.map((answer) => answer.status), [200, 200]);
    assert.deepEqual(
      [await answers(createWorker(unset("none"))), await answers(createWorker(unset(undefined)))],
      [leftOut, [noAuth, noAuth]],
    );
  });
});
