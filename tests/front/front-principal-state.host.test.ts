// What the front keeps apart per principal, against the real modern peer (a process): a sealed
// requestState opens only for the caller it was sealed for and only once (the memory store's
// claim), input budgets are per caller, ctx.principal reaches the handler (also for a legacy
// upstream's request tied to no call, on the upstream session of one caller's), and a 2025
// caller's session belongs to the principal that opened it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type Handler, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import type { PrincipalInput } from "../../src/front/downstream-auth.ts";
import type { Principal } from "../../src/front/principal.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { initializeMessage, LegacyCaller } from "../_support/legacy-caller.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest } from "../_support/gateway-caller.ts";
import { legacyHandshake, scriptedServer } from "../_support/scripted-server.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

const KEY = "front-principal-state-key-0123456789abcdef";
const NOW = 1_785_000_000_000;
const CALLERS: Record<string, PrincipalInput> = {
  alice: { subject: "alice", scopes: ["files:read"], claims: { team: "ops" } },
  bob: { subject: "bob" },
};

/** A front over the peer whose callers say who they are in `x-user`; its store's clock stands still. */
function front(handler: Handler = {}, policy: Partial<Policy> = {}) {
  const clock = { now: () => NOW };
  const client = createClient({
    name: "gate",
    handler,
    clock,
    store: createMemoryStore({ clock }),
    policies: [{ server: "modern", transport: { url: peer.url }, era: "modern", ...policy }],
  });
  const app = createFront({
    client,
    stateKey: KEY,
    auth: (request) => CALLERS[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 }),
  });
  return { app, client };
}

const ELICITING = modernMeta({ elicitation: { form: {} } });
const PROFILE = { profile: { action: "accept", content: { name: "Grace", age: 85 } } };
const INVALID_STATE = {
  status: 200,
  headers: {},
  body: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid or expired requestState" } },
};

function callAs(user: string, name: string, extra: Record<string, unknown> = {}, meta = ELICITING) {
  return modernRequest(
    `${LOOPBACK}/mcp/modern`,
    "tools/call",
    { name, arguments: {}, _meta: meta, ...extra },
    {
      "x-user": user,
    },
  );
}

/** The peer's tools/call requests since the last clear: the tool, and the keys answered. */
async function upstreamCalls(): Promise<Array<[unknown, string[]]>> {
  return (await peer.requests())
    .map((request) =>
      request.body as { method?: string; params?: { name?: unknown; inputResponses?: object } }
    )
    .filter((body) => body.method === "tools/call")
    .map((body) => [body.params?.name, Object.keys(body.params?.inputResponses ?? {})]);
}

/** A front; alice with a 2025 session of its modern server, and bob holding alice's session id. */
async function aliceAndBob() {
  const { app, client } = front();
  const as = (user: string) => async (url: string, init: RequestInit) =>
    await app.fetch(
      new Request(url, { ...init, headers: { ...init.headers as Record<string, string>, "x-user": user } }),
    );
  const alice = new LegacyCaller(as("alice"), `${LOOPBACK}/mcp/modern`);
  await alice.initialize();
  const bob = new LegacyCaller(as("bob"), `${LOOPBACK}/mcp/modern`);
  bob.session = alice.session;
  return { client, alice, bob };
}

/**
 * A 2025 server over Streamable HTTP, in process: each standalone GET stream (one per upstream
 * session) asks `roots/list` twice at once, tied to no call, and stays open; `answered(count)`
 * resolves once it has read `count` answers, and `answers()` are those, by id.
 */
function untiedRootsServer() {
  const event = (message: unknown) =>
    new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  let nextId = 100;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const answers = () =>
    server.requests.filter((r) => r.body.method === undefined).map((r) => r.body as { id: number })
      .sort((a, b) => a.id - b.id);
  const server = scriptedServer((request) => {
    const read = answers().length;
    for (const wait of waiting) if (read >= wait.count) wait.resolve();
    return legacyHandshake(request.body, "2025-11-25", "read") ?? new Response(null, { status: 202 });
  });
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    if (init.method === "POST") return server.fetch(url, init);
    if (init.method !== "GET") return Promise.resolve(new Response(null, { status: 405 }));
    const asked = [nextId++, nextId++].map((id) => event({ jsonrpc: "2.0", id, method: "roots/list" }));
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => asked.forEach((e) => controller.enqueue(e)),
    });
    return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
  };
  return {
    fetch,
    answers,
    answered: (count: number) =>
      new Promise<void>((resolve) =>
        answers().length >= count ? resolve() : void waiting.push({ count, resolve })
      ),
  };
}

/**
 * A front over {@linkcode untiedRootsServer} ("up", legacy) with an input budget of 1 per hour per
 * caller, whose handler answers roots naming `ctx.principal`: the principals it saw, and the
 * input decision events, sorted (a session's two requests run at once, so their events come in
 * either order).
 */
function untiedFront() {
  const upstream = untiedRootsServer();
  const seen: Array<Principal | undefined> = [];
  const clock = { now: () => NOW };
  const client = createClient({
    name: "gate",
    fetch: upstream.fetch,
    clock,
    store: createMemoryStore({ clock }),
    handler: {
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [{ uri: `file:///srv/${ctx.principal?.subject}` }] };
      },
    },
    policies: [{
      server: "up",
      transport: { url: "https://up.example/mcp" },
      era: "legacy",
      inputRateLimit: { rate: 1, per: "1h", burst: 1 },
    }],
  });
  const events: unknown[] = [];
  client.onDecision((event) => void (event.type === "input" && events.push(event)));
  const app = createFront({
    client,
    stateKey: KEY,
    auth: (request) => CALLERS[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 }),
  });
  const as = (user: string) => async (url: string, init: RequestInit) =>
    await app.fetch(
      new Request(url, { ...init, headers: { ...init.headers as Record<string, string>, "x-user": user } }),
    );
  const inputEvents = () =>
    events.map((event) => JSON.stringify(event)).sort().map((line) => JSON.parse(line));
  return { app, client, upstream, seen, inputEvents, as };
}

/**
 * What {@linkcode untiedFront} gives once alice's upstream session, then bob's, asked roots/list
 * twice tied to no call: each caller's first answered by the handler as that caller, its second
 * over that caller's own budget, each event naming its caller.
 */
function untiedAnsweredPerCaller() {
  const overBudget = {
    code: -32000,
    message:
      "Input request refused: over the policy's inputRateLimit of 1 per 3600000 ms (burst 1); retry in 3600000 ms",
  };
  const rooted = (id: number, user: string) => ({
    jsonrpc: "2.0",
    id,
    result: { roots: [{ uri: `file:///srv/${user}` }] },
  });
  const event = {
    type: "input",
    time: new Date(NOW).toISOString(),
    client: "gate",
    server: "up",
    era: "legacy",
  };
  const answered = (caller: string) => ({
    ...event,
    caller,
    method: "roots/list",
    outcome: "answered",
    changes: [],
    handlerMs: 0,
    durationMs: 0,
  });
  const refused = (caller: string) => ({
    ...event,
    caller,
    method: "roots/list",
    outcome: "policy",
    changes: [],
    refusal: overBudget,
    durationMs: 0,
  });
  return {
    seen: [CALLERS.alice, { subject: "bob", scopes: [], claims: {} }],
    answers: [
      rooted(100, "alice"),
      { jsonrpc: "2.0", id: 101, error: overBudget },
      rooted(102, "bob"),
      { jsonrpc: "2.0", id: 103, error: overBudget },
    ],
    events: [answered("alice"), refused("alice"), answered("bob"), refused("bob")],
  };
}

describe("the front keeps principals apart", () => {
  test("a state sealed for alice and retried by bob is refused with -32602, and nothing reaches upstream", async () => {
    const { app, client } = front({}, { passDown: ["elicitation"] });
    const first = await answerOf(await app.fetch(callAs("alice", "ask_form")));
    const state = (first.body as { result: { requestState: string } }).result.requestState;
    await peer.clearRequests();
    const retried = await answerOf(
      await app.fetch(callAs("bob", "ask_form", { inputResponses: PROFILE, requestState: state })),
    );
    assert.deepEqual([retried, await upstreamCalls()], [INVALID_STATE, []]);
    // The state was not spent by bob's attempt: alice still redeems it.
    const redeemed = await answerOf(
      await app.fetch(callAs("alice", "ask_form", { inputResponses: PROFILE, requestState: state })),
    );
    assert.deepEqual(
      (redeemed.body as { result: { content: unknown } }).result.content,
      [{ type: "text", text: JSON.stringify({ age: 85, name: "Grace", subscribe: false }) }],
    );
    await client.close();
  });

  test("a state redeemed twice is refused the second time, and the upstream ran the approved retry once", async () => {
    const { app, client } = front({}, { passDown: ["elicitation"] });
    const first = await answerOf(await app.fetch(callAs("alice", "ask_form")));
    const state = (first.body as { result: { requestState: string } }).result.requestState;
    await peer.clearRequests();
    const retry = () => callAs("alice", "ask_form", { inputResponses: PROFILE, requestState: state });
    const redeemed = await answerOf(await app.fetch(retry()));
    const replayed = await answerOf(await app.fetch(retry()));
    assert.deepEqual([redeemed.status, replayed, await upstreamCalls()], [200, INVALID_STATE, [["ask_form", [
      "profile",
    ]]]]);
    await client.close();
  });

  test("alice exhausting her input budget does not refuse bob: each caller has its own bucket", async () => {
    const seen: Array<Principal | undefined> = [];
    const { app, client } = front({
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [{ uri: "file:///srv/project" }] };
      },
    }, { inputRateLimit: { rate: 1, per: "1h", burst: 1 } });
    const roots = (user: string) => callAs(user, "ask_roots", {}, modernMeta());
    const answers = [];
    for (const user of ["alice", "alice", "bob", "bob"]) {
      answers.push(await answerOf(await app.fetch(roots(user))));
    }
    const rooted = {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: '["file:///srv/project"]' }],
          resultType: "complete",
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
        },
      },
    };
    const overBudget = {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32000,
          message:
            'Input request "roots" refused by policy: Input request refused: over the policy\'s inputRateLimit of 1 per 3600000 ms (burst 1); retry in 3600000 ms',
        },
      },
    };
    assert.deepEqual(answers, [rooted, overBudget, rooted, overBudget]);
    assert.deepEqual(seen, [
      { subject: "alice", scopes: ["files:read"], claims: { team: "ops" } },
      { subject: "bob", scopes: [], claims: {} },
    ]);
    await client.close();
  });

  test("a legacy upstream's requests tied to no call on a 2025 caller's own session run as that caller, within its own budget", async () => {
    const { client, upstream, seen, inputEvents, as } = untiedFront();
    await new LegacyCaller(as("alice"), `${LOOPBACK}/mcp/up`).initialize();
    await upstream.answered(2);
    await new LegacyCaller(as("bob"), `${LOOPBACK}/mcp/up`).initialize();
    await upstream.answered(4);
    assert.deepEqual({ seen, answers: upstream.answers(), events: inputEvents() }, untiedAnsweredPerCaller());
    await client.close();
  });

  test("a legacy upstream's requests tied to no call on a 2026 caller's pooled session run as that caller, within its own budget", async () => {
    const { app, client, upstream, seen, inputEvents } = untiedFront();
    const list = (user: string) =>
      modernRequest(`${LOOPBACK}/mcp/up`, "tools/list", { _meta: modernMeta() }, { "x-user": user });
    assert.equal((await app.fetch(list("alice"))).status, 200);
    await upstream.answered(2);
    assert.equal((await app.fetch(list("bob"))).status, 200);
    await upstream.answered(4);
    assert.deepEqual({ seen, answers: upstream.answers(), events: inputEvents() }, untiedAnsweredPerCaller());
    await client.close();
  });

  test("a 2025 session opened by alice is not found for bob (POST, GET, DELETE: 404), and stays alice's", async () => {
    const { client, alice, bob } = await aliceAndBob();
    // The POST's answer carries its request's id; a GET or DELETE has none.
    const notFound = (id?: number) => ({
      status: 404,
      headers: {},
      body: {
        jsonrpc: "2.0",
        ...(id === undefined ? {} : { id }),
        error: { code: -32001, message: "Session not found: initialize a new session" },
      },
    });
    const answers = [
      await answerOf(await bob.post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })),
      await answerOf(await bob.listen()),
      await answerOf(await bob.close()),
    ];
    assert.deepEqual(answers, [notFound(1), notFound(), notFound()]);
    const listed = await alice.request(2, "tools/list");
    assert.equal((listed.result as { tools: unknown[] }).tools.length > 0, true);
    assert.equal((await alice.close()).status, 200);
    await client.close();
  });

  test("initialize by bob with the id of alice's 2025 session is answered as with no id: a new session of bob's, alice's untold", async () => {
    const { client, alice, bob } = await aliceAndBob();
    const response = await bob.post(initializeMessage());
    const opened = response.headers.get("mcp-session-id") ?? "";
    assert.deepEqual(await answerOf(response), {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { logging: {}, tools: {}, prompts: {}, resources: {} },
          serverInfo: { name: "sluice-front", title: "sluice: modern", version: "0.1.0" },
        },
      },
    });
    assert.match(opened, /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(opened, alice.session);
    bob.session = opened;
    assert.deepEqual(
      [await bob.request(1, "ping"), await alice.request(1, "ping")],
      [{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", id: 1, result: {} }],
    );
    await client.close();
  });

  test(
    "a task created by alice's call is not bob's to read, answer or cancel",
    async () => {
      const { app, client } = front({}, { passDown: ["elicitation"] });
      const tasks = modernMeta({ elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } });
      const send = async (user: string, method: string, params: Record<string, unknown>) =>
        (await answerOf(
          await app.fetch(
            modernRequest(`${LOOPBACK}/mcp/modern`, method, { ...params, _meta: tasks }, {
              "x-user": user,
              "mcp-name": String(params.name ?? params.taskId),
            }),
          ),
        )).body as { result?: { taskId?: string; status?: string }; error?: unknown };
      const created = await send("alice", "tools/call", { name: "slow_task", arguments: {} });
      const taskId = created.result?.taskId ?? "";
      const seenByBob = await send("bob", "tasks/get", { taskId });
      const cancelledByBob = await send("bob", "tasks/cancel", { taskId });
      const seenByAlice = await send("alice", "tasks/get", { taskId });
      assert.deepEqual(
        [seenByBob.result, cancelledByBob.result, seenByAlice.result?.status === "cancelled"],
        [undefined, undefined, false],
      );
      await client.close();
    },
  );
});
