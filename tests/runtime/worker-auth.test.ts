// createWorker()'s `auth` on every runtime (inside workerd too): without it every request is
// answered 500 naming it; "none" and a function of env work; the Worker answers every Host by
// default ("routed"); a 2025 caller's session in its Durable Object (a namespace in memory here)
// belongs to the principal that opened it, and a forged principal header is stripped at the edge.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createWorker,
  type ExecutionContextLike,
  type SessionsBinding,
  type SessionsClass,
  type SessionsObject,
  type WorkerOptions,
} from "../../src/adapters/workers.ts";
import type { PrincipalInput } from "../../src/front/downstream-auth.ts";
import { type Fetch, LegacyCaller } from "../_support/legacy-caller.ts";
import { answerOf, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";

const KEY = "worker-auth-test-state-key-0123456789abcdef";
const TOKEN = "worker-ci-token-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9S";
const BASE = "https://my-worker.example.workers.dev";

type Env = Readonly<Record<string, unknown>>;

function worker(options: Partial<WorkerOptions<Env>> = {}) {
  return createWorker<Env>({
    name: "worker-auth",
    policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    ...options,
  });
}

function context(): ExecutionContextLike {
  return { waitUntil: () => {} };
}

/** Runs `work` with the global `fetch` answering as the scripted upstream (the Worker takes no `fetch`). */
async function withUpstream<T>(work: () => Promise<T>): Promise<T> {
  const upstream = toolsUpstream();
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    return await upstream.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
    });
  };
  try {
    return await work();
  } finally {
    globalThis.fetch = original;
  }
}

/** Silences console.error for `work` (the Worker logs what it cannot build); returns what it logged. */
async function quietly<T>(work: () => Promise<T>): Promise<{ result: T; logged: unknown[][] }> {
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    return { result: await work(), logged };
  } finally {
    console.error = original;
  }
}

const problem = (error: string) => ({
  status: 500,
  headers: { "content-type": "application/json" },
  body: { error },
});

describe("createWorker() and auth", () => {
  test("createWorker() without auth answers every request 500 with the exact { error }", async () => {
    const entry = worker();
    const answers = [];
    for (const path of ["/healthz", "/servers", "/mcp/files"]) {
      answers.push(
        await answerOf(
          await entry.fetch(new Request(`${BASE}${path}`), { SLUICE_STATE_KEY: KEY }, context()),
          [
            "content-type",
          ],
        ),
      );
    }
    const expected = problem(
      'sluice worker: "auth" is not set: a Worker is on the internet, so say who may call it: { bearer: [{ secret, subject }] } with a secret from env, { jwt: { issuer, jwks } }, a function (request) => principal | Response, or "none" to let anyone in',
    );
    assert.deepEqual(answers, [expected, expected, expected]);
  });

  test('createWorker() with auth "none" answers every Host by default ("routed") and serves calls', async () => {
    const entry = worker({ auth: "none" });
    const env = { SLUICE_STATE_KEY: KEY };
    const health = await answerOf(await entry.fetch(new Request(`${BASE}/healthz`), env, context()));
    const called = await withUpstream(async () =>
      await answerOf(
        await entry.fetch(
          modernRequest(`${BASE}/mcp/files`, "tools/call", {
            name: "read",
            arguments: {},
            _meta: modernMeta(),
          }),
          env,
          context(),
        ),
      )
    );
    assert.deepEqual([health, called], [{ status: 200, headers: {}, body: { ok: true } }, {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", content: [{ type: "text", text: "called read" }] },
      },
    }]);
  });

  test("createWorker() with allowedHosts answers those names only", async () => {
    const entry = worker({ auth: "none", allowedHosts: ["gate.example.com"] });
    const env = { SLUICE_STATE_KEY: KEY };
    const statuses = [];
    for (const base of ["https://gate.example.com", BASE]) {
      const response = await entry.fetch(new Request(`${base}/servers`), env, context());
      await response.body?.cancel();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 403]);
  });

  test("createWorker() with bearer secrets from env: 401 without the token, 200 with it", async () => {
    const entry = worker({
      auth: (env) => ({ bearer: [{ secret: String(env.GATEWAY_TOKEN), subject: "ci" }] }),
    });
    const env = { SLUICE_STATE_KEY: KEY, GATEWAY_TOKEN: TOKEN };
    const without = await answerOf(await entry.fetch(new Request(`${BASE}/servers`), env, context()), [
      "www-authenticate",
    ]);
    const withToken = await entry.fetch(
      new Request(`${BASE}/servers`, { headers: { authorization: `Bearer ${TOKEN}` } }),
      env,
      context(),
    );
    await withToken.body?.cancel();
    assert.deepEqual([without, withToken.status], [{
      status: 401,
      headers: { "www-authenticate": "Bearer" },
      body: {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <secret>" },
      },
    }, 200]);
  });

  test("createWorker() answers 500 naming the problem when auth from env is weak, throws or returns nothing", async () => {
    const env = { SLUICE_STATE_KEY: KEY, GATEWAY_TOKEN: "short" };
    const weak = worker({ auth: (e) => ({ bearer: [{ secret: String(e.GATEWAY_TOKEN), subject: "ci" }] }) });
    const throwing = worker({
      auth: () => {
        throw new Error(`no ${TOKEN}`);
      },
    });
    const nothing = worker({ auth: () => undefined });
    const { result, logged } = await quietly(async () => [
      await answerOf(await weak.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
      await answerOf(await throwing.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
      await answerOf(await nothing.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
    ]);
    assert.deepEqual(result, [
      problem(
        'sluice worker: "auth.bearer[0].secret" must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`',
      ),
      problem('sluice worker: "auth" could not be made from env (the Worker\'s logs name the problem)'),
      problem(
        'sluice worker: "auth" is not set: a Worker is on the internet, so say who may call it: { bearer: [{ secret, subject }] } with a secret from env, { jwt: { issuer, jwks } }, a function (request) => principal | Response, or "none" to let anyone in',
      ),
    ]);
    // The error's message (here holding the token) reaches the logs only, never the caller.
    assert.deepEqual(logged.map((args) => args[0]), ['sluice worker: "auth" could not be made from env']);
  });

  test('createWorker() makes "signInUser" from env, and answers 500 naming it when it throws or comes with auth "none"', async () => {
    const env = {
      SLUICE_STATE_KEY: KEY,
      GATEWAY_TOKEN: TOKEN,
      SSO_HEADER: "cf-access-authenticated-user-email",
    };
    const made: unknown[] = [];
    const signInUser = (e: Env) => {
      made.push(e);
      return (request: Request) => request.headers.get(String(e.SSO_HEADER)) ?? undefined;
    };
    const auth = (e: Env) => ({ bearer: [{ secret: String(e.GATEWAY_TOKEN), subject: "ci" }] });
    const serving = worker({ auth, signInUser });
    const anonymous = worker({ auth: "none", signInUser });
    const throwing = worker({
      auth,
      signInUser: () => {
        throw new Error(`no ${TOKEN}`);
      },
    });
    const { result, logged } = await quietly(async () => [
      await answerOf(await serving.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
      await answerOf(await anonymous.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
      await answerOf(await throwing.fetch(new Request(`${BASE}/healthz`), env, context()), ["content-type"]),
    ]);
    assert.deepEqual([result, made], [[
      { status: 200, headers: { "content-type": "application/json" }, body: { ok: true } },
      problem(
        'sluice worker: "signInUser" needs "auth": with auth "none" callers have no subject to compare a browser\'s user with, expected bearer secrets, JWT settings or a function',
      ),
      problem('sluice worker: "signInUser" could not be made from env (the Worker\'s logs name the problem)'),
    ], [env, env]]);
    assert.deepEqual(logged.map((args) => args[0]), [
      'sluice worker: "signInUser" could not be made from env',
    ]);
  });

  test("createWorker() answers 500 naming a patterned SLUICE_STATE_KEY", async () => {
    const entry = worker({ auth: "none" });
    assert.deepEqual(
      await answerOf(
        await entry.fetch(new Request(`${BASE}/healthz`), {
          SLUICE_STATE_KEY: "0123456789abcdef0123456789abcdef",
        }, context()),
        ["content-type"],
      ),
      problem(
        'sluice worker: the secret "SLUICE_STATE_KEY" repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`',
      ),
    );
  });
});

/** A Durable Object namespace in memory: `idFromName` names an object, built on its first request. */
function objectsOf(Sessions: SessionsClass<Env>, env: () => Env): SessionsBinding {
  const objects = new Map<string, SessionsObject>();
  return {
    idFromName: (name) => `id:${name}`,
    get: (id) => ({
      fetch: (request) => {
        let object = objects.get(id as string);
        if (object === undefined) {
          object = new Sessions({}, env());
          objects.set(id as string, object);
        }
        return object.fetch(request);
      },
    }),
  };
}

describe("createWorker(): 2025 sessions and principals", () => {
  const CALLERS: Record<string, PrincipalInput> = { alice: { subject: "alice" }, bob: { subject: "bob" } };
  const NOT_FOUND = {
    status: 404,
    headers: {},
    body: {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32001, message: "Session not found: initialize a new session" },
    },
  };

  test("createWorker() keeps a session opened by alice hers: bob gets 404, even forging the internal principal header", async () => {
    const entry = worker({
      auth: () => (request) =>
        CALLERS[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 }),
    });
    const env: Env = {
      SLUICE_STATE_KEY: KEY,
      SLUICE_SESSIONS: objectsOf(entry.Sessions, () => env),
    };
    const as = (user: string, extra: Record<string, string> = {}): Fetch => (url, init) =>
      entry.fetch(
        new Request(url, {
          ...init,
          headers: { ...init.headers as Record<string, string>, "x-user": user, ...extra },
        }),
        env,
        context(),
      );
    const answers = await withUpstream(async () => {
      const alice = new LegacyCaller(as("alice"), `${BASE}/mcp/files`);
      await alice.initialize();
      const forged = encodeURIComponent(JSON.stringify({ subject: "alice", scopes: [], claims: {} }));
      const out = [];
      for (const fetch of [as("bob"), as("bob", { "x-sluice-internal-principal": forged })]) {
        const bob = new LegacyCaller(fetch, `${BASE}/mcp/files`);
        bob.session = alice.session;
        out.push(await answerOf(await bob.post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })));
      }
      const own = await alice.request(2, "tools/list");
      out.push((own.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name));
      return out;
    });
    assert.deepEqual(answers, [NOT_FOUND, NOT_FOUND, ["read", "write", "delete"]]);
  });
});
