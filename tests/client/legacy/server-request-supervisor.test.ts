import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createChain } from "../../../src/chain/chain.ts";
import { compilePolicy } from "../../../src/policy/compile-policy.ts";
import { createMemoryStore } from "../../../src/limits/memory-store.ts";
import type { Handler, Principal } from "../../../src/handler/handler.ts";
import {
  type CallRecord,
  idKey,
  ServerRequestSupervisor,
} from "../../../src/client/legacy/server-request-supervisor.ts";
import { PausableDeadline } from "../../../src/client/legacy/pausable-deadline.ts";
import type {
  JsonRpcErrorResponse,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from "../../../src/protocol/jsonrpc.ts";
import type { Decision } from "../../../src/chain/decision.ts";
import type { LegacyProtocolVersion } from "../../../src/protocol/versions.ts";
import { FakeTime, settle } from "../../_support/fake-time.ts";
import { refusedEvent } from "../../_support/refused-event.ts";

type Sent = JsonRpcResultResponse | JsonRpcErrorResponse;

function setup(
  handler: Handler,
  options: {
    tieToOnlyCall?: boolean;
    time?: FakeTime;
    policy?: Record<string, unknown>;
    maxServerRequests?: number;
    principal?: Principal;
    version?: LegacyProtocolVersion;
  } = {},
) {
  const time = options.time ?? new FakeTime();
  const events: Decision[] = [];
  const chain = createChain({
    policy: compilePolicy({ server: "legacy", transport: { command: "server" }, ...options.policy }),
    handler,
    client: "agent",
    store: createMemoryStore({ clock: time }),
    timers: time,
    clock: time,
    decisions: { listening: true, decide: (event) => void events.push(event) },
  });
  const sent: Sent[] = [];
  const calls = new Map<string, CallRecord>();
  const supervisor = new ServerRequestSupervisor({
    chain,
    version: options.version ?? "2025-11-25",
    maxServerRequests: options.maxServerRequests ?? 8,
    assigns: { who: "client" },
    principal: options.principal,
    tieToOnlyCall: options.tieToOnlyCall ?? true,
    calls,
    respond: (message) => (sent.push(message), Promise.resolve()),
  });
  return { supervisor, sent, calls, time, events };
}

const elicit = (id: number | string): JsonRpcRequest => ({
  jsonrpc: "2.0",
  id,
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
});
const sampling = (id: number): JsonRpcRequest => ({
  jsonrpc: "2.0",
  id,
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 10 },
});

/** Who the supervisor's decision events are about, and when (the fake clock's start). */
const AGENT = { time: "1970-01-01T00:00:00.000Z", client: "agent", server: "legacy" };

describe("ServerRequestSupervisor", () => {
  test("answers the ninth concurrent request -32000 at once, while eight run", async () => {
    const releases: Array<() => void> = [];
    const { supervisor, sent } = setup({
      elicitation: () => new Promise((resolve) => releases.push(() => resolve({ action: "decline" }))),
    });
    for (let id = 1; id <= 9; id++) supervisor.handle(elicit(id), undefined);
    await settle();
    assert.deepEqual([supervisor.active, sent], [8, [{
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32000, message: "Busy: 8 server requests are already being answered" },
    }]]);
    for (const release of releases) release();
    await settle();
    assert.deepEqual(sent.slice(1).map((m) => [m.id, "result" in m ? m.result : m.error]), [
      [1, { action: "decline" }],
      [2, { action: "decline" }],
      [3, { action: "decline" }],
      [4, { action: "decline" }],
      [5, { action: "decline" }],
      [6, { action: "decline" }],
      [7, { action: "decline" }],
      [8, { action: "decline" }],
    ]);
  });

  test("answers a request passed down that nobody can take -32601 as a client without it, and its second event says so", async () => {
    // A session the front pools for 2026 calls, with no call in flight: no caller to ask.
    const { supervisor, sent, events } = setup({ elicitation: (_params, ctx) => ctx.defer() });
    supervisor.handle(elicit(1), undefined);
    await settle();
    const refusal = {
      code: -32601,
      message:
        "Method not found: the handler deferred elicitation/create to a caller, and no caller with a call in flight here can take it",
    };
    assert.deepEqual(sent, [{ jsonrpc: "2.0", id: 1, error: refusal }]);
    assert.deepEqual(
      events.map((event) => [event.type, "era" in event && event.era, "outcome" in event && event.outcome]),
      [["input", "legacy", "deferred"], ["input", "legacy", "policy"]],
    );
    assert.deepEqual((events[1] as { refusal?: unknown }).refusal, refusal);
  });

  test("sends a handler's { error } with its data, a JSON copy, and without data that is not JSON", async () => {
    const data = { retryAfter: 5, when: new Date(Date.UTC(2026, 0, 1)) };
    const { supervisor, sent } = setup({
      sampling: () => ({ error: { code: -32001, message: "busy", data } }),
      elicitation: () => ({ error: { code: -32002, message: "no", data: 10n } }),
    }, { policy: { sampling: { allowIdle: true } } });
    supervisor.handle(sampling(1), undefined);
    supervisor.handle(elicit(2), undefined);
    await settle();
    assert.deepEqual(sent, [
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32001, message: "busy", data: { retryAfter: 5, when: "2026-01-01T00:00:00.000Z" } },
      },
      { jsonrpc: "2.0", id: 2, error: { code: -32002, message: "no" } },
    ]);
  });

  test("answers a hung handler -32603 at its timeout (fake clock) and aborts its signal", async () => {
    let signal: AbortSignal | undefined;
    const { supervisor, sent, time } = setup({
      sampling: (_p, ctx) => (signal = ctx.signal, new Promise(() => {})),
    }, {
      policy: { sampling: { allowIdle: true } },
    });
    supervisor.handle(sampling(3), undefined);
    await time.advance(59_999);
    assert.deepEqual(sent, []);
    await time.advance(1);
    assert.deepEqual(sent, [{
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "Handler timed out after 1m (handlerTimeout.default)" },
    }]);
    assert.equal(signal?.aborted, true);
  });

  test("answers a roots/list whose answer throws when read -32603 and frees its slot for the next request", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const answers: unknown[] = [
      proxy,
      {
        get roots() {
          throw new Error("secret detail");
        },
      },
      { roots: [{ uri: "file:///srv/project" }] },
    ];
    const { supervisor, sent } = setup({ roots: () => answers.shift() as never }, { maxServerRequests: 1 });
    const rootsList = (id: number): JsonRpcRequest => ({
      jsonrpc: "2.0",
      id,
      method: "roots/list",
      params: {},
    });
    for (const id of [1, 2, 3]) {
      supervisor.handle(rootsList(id), undefined);
      await settle();
    }
    assert.deepEqual([sent, supervisor.active], [[
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32603, message: "Internal error while answering the input request" },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32603, message: "Roots answer refused: expected plain JSON, reading it threw Error" },
      },
      { jsonrpc: "2.0", id: 3, result: { roots: [{ uri: "file:///srv/project" }] } },
    ], 0]);
  });

  test("aborts a request the server cancels and sends nothing for it", async () => {
    let signal: AbortSignal | undefined;
    const { supervisor, sent } = setup({
      elicitation: (_p, ctx) => (signal = ctx.signal, new Promise(() => {})),
    });
    supervisor.handle(elicit("e-1"), undefined);
    await settle();
    supervisor.cancel("e-1", "user went away");
    supervisor.cancel(99);
    await settle();
    assert.deepEqual([sent, signal?.aborted, signal?.reason, supervisor.active], [
      [],
      true,
      "user went away",
      0,
    ]);
  });

  test('gives the handler a server\'s cancellation reason cleaned of control and bidi characters, and one that is no string as "cancelled by the server"', async () => {
    const reasons: unknown[] = [];
    const { supervisor } = setup({
      elicitation: (
        _p,
        ctx,
      ) => (ctx.signal.addEventListener("abort", () => reasons.push(ctx.signal.reason)),
        new Promise(() => {})),
    });
    supervisor.handle(elicit("e-1"), undefined);
    supervisor.handle(elicit("e-2"), undefined);
    await settle();
    supervisor.cancel("e-1", "\u001b]0;owned\u0007\u001b[31m\u202egnirts\u2028FAKE LOG LINE");
    supervisor.cancel("e-2", { evil: "\u001b[2J" });
    await settle();
    assert.deepEqual(reasons, ["]0;owned[31mgnirtsFAKE LOG LINE", "cancelled by the server"]);
  });

  test("answers -32603 a request whose call ended before it was answered, and aborts its handler; nothing once the connection ended", async () => {
    let signal: AbortSignal | undefined;
    const { supervisor, sent, calls } = setup({
      elicitation: (_p, ctx) => (signal = ctx.signal, new Promise(() => {})),
    });
    const call = new AbortController();
    calls.set(idKey(7), { id: 7, assigns: {}, signal: call.signal });
    supervisor.handle(elicit("e-1"), 7);
    await settle();
    call.abort("cancelled by the caller");
    await settle();
    supervisor.handle(elicit("e-2"), 7);
    const other = new AbortController();
    calls.set(idKey(8), { id: 8, assigns: {}, signal: other.signal });
    supervisor.handle(elicit("e-3"), 8);
    await settle();
    supervisor.abortAll("connection closed");
    await settle();
    assert.deepEqual([sent, signal?.aborted, supervisor.active], [
      [
        {
          jsonrpc: "2.0",
          id: "e-1",
          error: { code: -32603, message: "The request was not answered: the call it belongs to has ended" },
        },
        {
          jsonrpc: "2.0",
          id: "e-2",
          error: { code: -32603, message: "The request was not answered: the call it belongs to has ended" },
        },
      ],
      true,
      0,
    ]);
  });

  test("refuses undeclared kinds -32601, unknown methods -32601, and bad params -32602, before any handler", async () => {
    const { supervisor, sent } = setup({ elicitation: () => ({ action: "cancel" }) });
    supervisor.handle(sampling(1), undefined);
    supervisor.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: {} }, undefined);
    supervisor.handle(
      { jsonrpc: "2.0", id: 3, method: "elicitation/create", params: { message: 5 } },
      undefined,
    );
    await settle();
    assert.deepEqual(sent, [
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: 'Method not found: "tools/call"' } },
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32602, message: "Invalid params: $.params.message: expected string, received 5" },
      },
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32601,
          message: "Input request refused: this client did not declare the sampling capability",
        },
      },
    ]);
  });

  test("refuses a 2025-06-18 server's URL-mode elicitation -32602 naming the mode that version lacks, before any handler", async () => {
    const asked: unknown[] = [];
    const { supervisor, sent } = setup(
      {
        elicitationModes: ["form", "url"],
        elicitation: (params) => (asked.push(params), { action: "accept" }),
      },
      { version: "2025-06-18" },
    );
    const params = {
      mode: "url",
      message: "Sign in",
      url: "https://login.example.com/",
      elicitationId: "e1",
    };
    supervisor.handle({ jsonrpc: "2.0", id: 1, method: "elicitation/create", params }, undefined);
    await settle();
    assert.deepEqual(sent, [{
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message:
          'Invalid params: $.params.mode: expected form mode only (URL mode came with "2025-11-25"), received "url"',
      },
    }]);
    assert.deepEqual(asked, []);
  });

  test("refuses idle sampling with the rejection code, and ties a stdio request to the one call in flight", async () => {
    const seen: unknown[] = [];
    const { supervisor, sent, calls, time } = setup({
      sampling: (
        _p,
        ctx,
      ) => (seen.push([ctx.relatedRequestId, ctx.assigns]),
        { role: "assistant", content: { type: "text", text: "a" }, model: "m" }),
    });
    supervisor.handle(sampling(1), undefined);
    await settle();
    const deadline = new PausableDeadline(60_000, {
      timers: time,
      now: () => time.now(),
      onExpire: () => {},
    });
    calls.set(idKey(7), { id: 7, assigns: { who: "call 7" }, deadline });
    supervisor.handle(sampling(2), undefined);
    await settle();
    deadline.clear();
    assert.deepEqual(sent, [
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -1, message: "Sampling request refused: no call to this server is in flight" },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        result: { role: "assistant", content: { type: "text", text: "a" }, model: "m" },
      },
    ]);
    assert.deepEqual(seen, [[7, { who: "call 7" }]]);
  });

  test("pauses the related call's deadline while the job runs, and resumes it after", async () => {
    const time = new FakeTime();
    let release: () => void = () => {};
    let expired = false;
    const { supervisor, calls } = setup({
      elicitation: () => new Promise((resolve) => (release = () => resolve({ action: "decline" }))),
    }, { tieToOnlyCall: false, time });
    const deadline = new PausableDeadline(1000, {
      timers: time,
      now: () => time.now(),
      onExpire: () => (expired = true),
    });
    calls.set(idKey(5), { id: 5, assigns: {}, deadline });
    await time.advance(400);
    supervisor.handle(elicit(1), 5);
    await time.advance(120_000);
    assert.deepEqual([expired, deadline.paused], [false, true]);
    release();
    await time.advance(599);
    assert.equal(expired, false);
    await time.advance(1);
    assert.equal(expired, true);
  });

  test("echoes io.modelcontextprotocol/related-task on the answer to a task's request", async () => {
    const { supervisor, sent } = setup({ elicitation: () => ({ action: "decline" }) });
    const request = elicit(4);
    supervisor.handle({
      ...request,
      params: { ...request.params, _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-9" } } },
    }, undefined);
    await settle();
    assert.deepEqual(sent, [{
      jsonrpc: "2.0",
      id: 4,
      result: { action: "decline", _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-9" } } },
    }]);
  });

  test("hands a deferred request to the call's onDeferred, deadline paused, and sends what it resolves with", async () => {
    const time = new FakeTime();
    let answer: (value: { ok: true; answer: { action: "accept"; content: { name: string } } }) => void =
      () => {};
    const deferred: unknown[] = [];
    const { supervisor, sent, calls } = setup({ elicitation: (_params, ctx) => ctx.defer() }, { time });
    const deadline = new PausableDeadline(1000, { timers: time, now: () => time.now(), onExpire: () => {} });
    calls.set(idKey(3), {
      id: 3,
      assigns: {},
      deadline,
      onDeferred: (request) => {
        deferred.push(request.method);
        return new Promise((resolve) => (answer = resolve));
      },
    });
    supervisor.handle(elicit(11), 3);
    await settle();
    assert.deepEqual([deferred, sent, deadline.paused], [["elicitation/create"], [], true]);
    answer({ ok: true, answer: { action: "accept", content: { name: "Ada" } } });
    await settle();
    assert.deepEqual([sent, deadline.paused], [
      [{ jsonrpc: "2.0", id: 11, result: { action: "accept", content: { name: "Ada" } } }],
      false,
    ]);
    deadline.clear();
  });

  test("refuses a deferred request tied to no call as a client without it, and hides an onDeferred that rejects", async () => {
    const { supervisor, sent, calls } = setup({ elicitation: (_params, ctx) => ctx.defer() }, {
      tieToOnlyCall: false,
    });
    supervisor.handle(elicit(1), undefined);
    calls.set(idKey(2), { id: 2, assigns: {}, onDeferred: () => Promise.reject(new Error("secret detail")) });
    supervisor.handle(elicit(2), 2);
    await settle();
    assert.deepEqual(sent.map((m) => [m.id, "error" in m ? m.error.code : undefined]), [[1, -32601], [
      2,
      -32603,
    ]]);
    assert.deepEqual(
      (sent[1] as JsonRpcErrorResponse).error.message,
      "Internal error while answering the input request",
    );
  });

  test("a request refused busy gives its input decision event, outcome policy with the -32000 refusal, naming the call's caller", async () => {
    const release: Array<() => void> = [];
    const { supervisor, sent, calls, events } = setup({
      elicitation: () => new Promise((resolve) => release.push(() => resolve({ action: "decline" }))),
    }, { tieToOnlyCall: false, maxServerRequests: 1 });
    calls.set(idKey(7), { id: 7, assigns: {}, principal: { subject: "alice", scopes: [], claims: {} } });
    supervisor.handle(elicit(1), 7);
    supervisor.handle(elicit(2), 7);
    supervisor.handle(elicit(1), undefined);
    await settle();
    const [full, same] = [
      { code: -32000, message: "Busy: 1 server requests are already being answered" },
      { code: -32000, message: "Busy: a request with this id is already being answered" },
    ];
    assert.deepEqual(events, [
      refusedEvent(full, { ...AGENT, caller: "alice", method: "elicitation/create", mode: "form" }),
      refusedEvent(same, { ...AGENT, method: "elicitation/create", mode: "form" }),
    ]);
    assert.deepEqual(sent, [{ jsonrpc: "2.0", id: 2, error: full }, { jsonrpc: "2.0", id: 1, error: same }]);
    release.forEach((answer) => answer());
    await settle();
    assert.deepEqual(
      events.slice(2).map((event) => event.type === "input" && [event.outcome, event.caller]),
      [
        ["answered", "alice"],
      ],
    );
    assert.deepEqual(sent.slice(2), [{ jsonrpc: "2.0", id: 1, result: { action: "decline" } }]);
  });

  test("runs a request tied to no call as the session's principal and one tied to a call as the call's, each event naming that caller", async () => {
    // The session was opened with alice's token; her call carries the token she holds now.
    const opened: Principal = { subject: "alice", scopes: ["files:write"], claims: {} };
    const now: Principal = { subject: "alice", scopes: ["files:read"], claims: {} };
    const seen: Array<[unknown, Principal | undefined]> = [];
    const { supervisor, sent, calls, events } = setup({
      roots: (ctx) => (seen.push([ctx.relatedRequestId, ctx.principal]), { roots: [] }),
    }, {
      tieToOnlyCall: false,
      principal: opened,
      policy: { inputRateLimit: { rate: 1, per: "1h", burst: 2 } },
    });
    calls.set(idKey(7), { id: 7, assigns: {}, principal: now });
    const roots = (id: number): JsonRpcRequest => ({ jsonrpc: "2.0", id, method: "roots/list", params: {} });
    supervisor.handle(roots(1), undefined);
    await settle();
    supervisor.handle(roots(2), 7);
    await settle();
    supervisor.handle(roots(3), undefined);
    supervisor.handle(
      { jsonrpc: "2.0", id: 4, method: "elicitation/create", params: { message: 5 } },
      undefined,
    );
    await settle();
    const answered = {
      type: "input",
      ...AGENT,
      caller: "alice",
      era: "legacy",
      method: "roots/list",
      outcome: "answered",
      changes: [],
      handlerMs: 0,
      durationMs: 0,
    };
    const overBudget = {
      code: -32000,
      message:
        "Input request refused: over the policy's inputRateLimit of 1 per 3600000 ms (burst 2); retry in 3600000 ms",
    };
    const badParams = {
      code: -32602,
      message: "Invalid params: $.params.message: expected string, received 5",
    };
    assert.deepEqual(seen, [[null, opened], [7, now]]);
    // Both spent alice's budget of 2, so the third is over it. The bad params are refused before
    // the chain runs: their event comes before the budget's.
    assert.deepEqual(events, [
      answered,
      answered,
      refusedEvent(badParams, { ...AGENT, caller: "alice", method: "elicitation/create", mode: "form" }),
      refusedEvent(overBudget, { ...AGENT, caller: "alice", method: "roots/list" }),
    ]);
    assert.deepEqual(sent, [
      { jsonrpc: "2.0", id: 1, result: { roots: [] } },
      { jsonrpc: "2.0", id: 2, result: { roots: [] } },
      { jsonrpc: "2.0", id: 4, error: badParams },
      { jsonrpc: "2.0", id: 3, error: overBudget },
    ]);
  });

  test("a request whose params fail to decode gives its input decision event, outcome policy with the -32602 refusal; an unknown method gives none", async () => {
    const { supervisor, sent, events } = setup({
      elicitation: () => ({ action: "cancel" }),
      sampling: () => ({ role: "assistant", content: { type: "text", text: "a" }, model: "m" }),
    });
    supervisor.handle(
      { jsonrpc: "2.0", id: 1, method: "elicitation/create", params: { message: 5 } },
      undefined,
    );
    supervisor.handle(
      { jsonrpc: "2.0", id: 2, method: "elicitation/create", params: { mode: "nope" } },
      undefined,
    );
    supervisor.handle(
      { jsonrpc: "2.0", id: 3, method: "sampling/createMessage", params: { maxTokens: 10 } },
      undefined,
    );
    supervisor.handle({ jsonrpc: "2.0", id: 4, method: "tools/call", params: {} }, undefined);
    await settle();
    const refused = (method: string, message: string, mode?: string) =>
      refusedEvent({ code: -32602, message }, { ...AGENT, method, mode });
    const messages = [
      "Invalid params: $.params.message: expected string, received 5",
      'Invalid params: $.params.mode: expected ("form" | "url"), received "nope"',
      "Invalid params: $.params.messages: expected a value (required), received undefined",
    ];
    assert.deepEqual(events, [
      refused("elicitation/create", messages[0] as string, "form"),
      refused("elicitation/create", messages[1] as string),
      refused("sampling/createMessage", messages[2] as string),
    ]);
    assert.deepEqual(sent, [
      ...messages.map((message, i) => ({ jsonrpc: "2.0", id: i + 1, error: { code: -32602, message } })),
      { jsonrpc: "2.0", id: 4, error: { code: -32601, message: 'Method not found: "tools/call"' } },
    ]);
  });
});
