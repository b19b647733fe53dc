// createWorker() on every runtime (inside workerd too): how it reads env, answers configuration
// problems with a 500, prepares once per env object, keeps budgets across requests, and hands
// streamed work to waitUntil. Nothing leaves the process: calls reach a scripted upstream.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createWorker, type ExecutionContextLike } from "../../src/adapters/workers.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { toolCallHeaders } from "../_support/downstream.ts";

type TestEnv = Readonly<Record<string, string | undefined>>;

const KEY = "workers-entry-test-state-key-0123456789";

function worker() {
  const seen: { policies: TestEnv[]; handler: TestEnv[] } = { policies: [], handler: [] };
  const entry = createWorker<TestEnv>({
    name: "workers-entry-test",
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
 * Runs `work` with the global `fetch` answering as a small modern upstream: `tools/list` lists
 * nothing; `ask_roots` asks for roots, then answers "rooted"; `progress_once` sends one progress
 * notification for the caller's token, then answers "progressed". The Worker takes no `fetch`
 * option, so the global one is swapped for the test's duration.
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
      ? 'sluice worker: the secret "SLUICE_STATE_KEY" is not set: expected at least "32" bytes of random data, the same on every isolate (`openssl rand -base64 32 | npx wrangler secret put SLUICE_STATE_KEY`)'
      : `sluice worker: "${name}" is set but "${
        name === "UPSTASH_REDIS_REST_URL" ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"
      }" is not: expected both "UPSTASH_REDIS_REST_URL" and "UPSTASH_REDIS_REST_TOKEN" (budgets in Upstash Redis, shared by every isolate) or neither (budgets in memory, per isolate)`,
  },
});

describe("createWorker()", () => {
  test("createWorker() answers 500 naming SLUICE_STATE_KEY when it is missing or empty, and builds nothing", async () => {
    const { entry, seen } = worker();
    for (const env of [{}, { SLUICE_STATE_KEY: "" }, { UPSTREAM_URL: SCRIPTED }]) {
      assert.deepEqual(await get(entry, "/healthz", env), notSet("SLUICE_STATE_KEY"));
    }
    assert.deepEqual(seen, { policies: [], handler: [] });
  });

  test("createWorker() answers 500 with the byte count when SLUICE_STATE_KEY is shorter than 32 bytes", async () => {
    const { entry, seen } = worker();
    assert.deepEqual(await get(entry, "/healthz", { SLUICE_STATE_KEY: "x".repeat(31) }), {
      status: 500,
      type: "application/json",
      body: {
        error:
          'sluice worker: the secret "SLUICE_STATE_KEY" is too short: expected at least "32" bytes of random data, received "31" bytes',
      },
    });
    assert.deepEqual(seen.policies, []);
    // Bytes, not characters: 16 two-byte characters are enough.
    assert.deepEqual(await get(entry, "/healthz", { SLUICE_STATE_KEY: "é".repeat(16) }), {
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
      /^Input request "r" refused by policy: Input request refused: over the budget of 1 per 3600000 ms \(burst 1\); retry in \d+ ms$/,
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

  test("createWorker() throws a TypeError naming the option when policies or handler has the wrong type", () => {
    assert.throws(() => createWorker({ policies: "github" as never }), {
      name: "TypeError",
      message: 'createWorker(): "policies" must be a list or a function of env, received "string"',
    });
    assert.throws(() => createWorker({ policies: [], handler: 5 as never }), {
      name: "TypeError",
      message: 'createWorker(): "handler" must be a handler object or a function of env, received "number"',
    });
  });
});
