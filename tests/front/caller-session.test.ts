// One legacy caller's session of the front, driven directly (on the wire, its initialize opens
// the upstream side before the caller can send anything else): the upstream side is opened once
// and shared by the caller's requests that need it meanwhile; a request cancelled while it opens
// (here, while the era of an "auto" server is probed) fails alone, with its own cancellation; an
// attempt that failed, or was stopped by its only request's cancellation, is opened again by the
// next request; a request the session's close ends (unlike one the caller withdrew) is answered
// that it was cancelled. A 2025-06-18 caller is sent only what its version has: sampling messages
// of one block, titled single-selects as enum + enumNames; tools, tool blocks and several blocks
// are refused upstream. A list result sluice's client would refuse, or a completion or a
// 2025-11-25 task result that breaks its schema, is not relayed. The upstream's notifications
// reach the caller's GET stream with their text cleaned, and a call's progress and logs its call
// stream in the order the upstream sent them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/create-client.ts";
import { createClient as createLegacyClient } from "../../src/client/legacy/legacy-client.ts";
import { clientInternals } from "../../src/client/client-internals.ts";
import type { Decision, InputDecision } from "../../src/chain/decision.ts";
import { CallerSession, type CallerSessionInit } from "../../src/front/caller-session.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { createFrontServer } from "../../src/front/front-server.ts";
import { FrontUpstreams } from "../../src/front/front-upstreams.ts";
import {
  initialized,
  legacyTask,
  legacyTaskServer,
  postsOnly,
  type Reply,
  result,
  scriptedServer,
  type SeenRequest,
  sentAfterTask,
  sse,
} from "../_support/scripted-server.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import { eventually } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";
import { EventReader } from "../_support/legacy-caller.ts";
import { progressAndLogs } from "../_support/delivery-order.ts";
import { schemaErrors } from "../protocol/_official-schema.ts";

/** What the server answers: its era (modern) to the probe, and each request's result. */
const answers: Readonly<Record<string, Record<string, unknown>>> = {
  "server/discover": {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {} },
  },
  "tools/list": { resultType: "complete", tools: [] },
  "tools/call": { resultType: "complete", content: [{ type: "text", text: "done" }] },
  "prompts/get": { resultType: "complete", messages: [] },
  "prompts/list": { resultType: "complete", prompts: [] },
};

/** The server's answer to `request`. */
function answer(request: SeenRequest): Response {
  return result(request.body.id, answers[request.body.method] ?? {});
}

/**
 * A caller's session on a server answering with `reply`, with the decision events of its calls:
 * unless told, a 2025-11-25 caller declaring nothing, and an `era: "auto"` server (an
 * `era: "legacy"` one has the legacy adapter's client, its GET and DELETE answered 405).
 */
function sessionOn(
  reply: Reply,
  caller: Partial<Pick<CallerSessionInit, "version" | "capabilities">> = {},
  policy: Partial<Policy> = {},
) {
  const server = scriptedServer(reply);
  const time = new FakeTime();
  const legacy = policy.era === "legacy";
  const client = (legacy ? createLegacyClient : createClient)({
    name: "gate",
    fetch: legacy ? postsOnly(server) : server.fetch,
    clock: time,
    timers: time,
    policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "auto", ...policy }],
  });
  const internals = clientInternals(client)!;
  const decisions: Decision[] = [];
  const session = new CallerSession({
    id: "caller-1",
    server: createFrontServer(internals.policies()[0]!, internals, "gate"),
    version: caller.version ?? "2025-11-25",
    capabilities: caller.capabilities ?? {},
    upstreams: new FrontUpstreams(internals),
    clock: time,
    timers: time,
    decisions: { listening: true, decide: (decision) => decisions.push(decision) },
    client: "gate",
  });
  return { client, server, session, decisions, time };
}

describe("CallerSession", () => {
  test("a request cancelled while the upstream side opens fails alone, with its own cancellation and no response; the other request waiting for it is answered", async () => {
    const held = gate();
    const { client, server, session, decisions } = sessionOn(async (request) => {
      await held.opened;
      return answer(request);
    });
    const first = session.handle({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "greet" } });
    const second = session.handle({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: {} },
    });
    await eventually("the era probe sent", () => server.requests[0]);
    await session.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    // The cancelled request gets no response: an SSE stream of no event.
    const withdrawn = await first;
    assert.deepEqual([withdrawn.status, withdrawn.headers.get("content-type"), await withdrawn.text()], [
      200,
      "text/event-stream",
      "",
    ]);
    held.open();
    assert.deepEqual(await (await second).json(), {
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "done" }] },
    });
    await session.close();
    await client.close();
    const event = { type: "call", time: "1970-01-01T00:00:00.000Z", client: "gate", server: "demo" };
    assert.deepEqual(decisions, [
      {
        ...event,
        method: "prompts/get",
        name: "greet",
        outcome: "failed",
        error: { kind: "cancelled", message: 'Call of prompts/get to server "demo" was cancelled' },
        durationMs: 0,
      },
      { ...event, method: "tools/call", name: "echo", outcome: "completed", durationMs: 0 },
    ]);
    // One probe for both requests, then the second one's tools/list (the tool's headers) and call.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "tools/list",
      "tools/call",
    ]);
  });

  test("a session is last used when a request or a stream connection ends, not when it began: idle time counts from then", async () => {
    const held = gate();
    const { client, session, time } = sessionOn(
      async (request) => {
        if (request.body.method === "tools/call") await held.opened;
        return answer(request);
      },
      {},
      { callTimeout: "10m" },
    );
    await session.start(0, new AbortController().signal);
    const call = session.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: {} },
    });
    await eventually("the call in flight", () => session.busy || undefined);
    // The call takes two minutes (a person answering a form, say).
    await time.advance(120_000);
    held.open();
    await (await call).text();
    await eventually("the call's end", () => !session.busy || undefined);
    const afterCall = session.lastUsed;
    const stream = session.listen(null);
    await time.advance(300_000);
    await stream.body?.cancel();
    await eventually("the stream's end", () => !session.busy || undefined);
    assert.deepEqual([afterCall, session.lastUsed], [120_000, 420_000]);
    await session.close();
    await client.close();
  });

  test("a request made once the upstream side was stopped by its only request's cancellation opens it anew, where it got that side's cancellation", async () => {
    const held = gate();
    const { client, server, session, decisions } = sessionOn(async (request) => {
      await held.opened;
      return answer(request);
    });
    const prompt = (id: number) =>
      session.handle({ jsonrpc: "2.0", id, method: "prompts/get", params: { name: "greet" } });
    const first = prompt(1);
    await eventually("the era probe sent", () => server.requests[0]);
    void session.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    // In the same turn: the stopped upstream side has not settled yet.
    const second = prompt(2);
    held.open();
    // The cancelled request gets no response: an SSE stream of no event.
    const withdrawn = await first;
    assert.deepEqual([withdrawn.status, withdrawn.headers.get("content-type"), await withdrawn.text()], [
      200,
      "text/event-stream",
      "",
    ]);
    assert.deepEqual(await (await second).json(), { jsonrpc: "2.0", id: 2, result: { messages: [] } });
    await session.close();
    await client.close();
    const event = { type: "call", time: "1970-01-01T00:00:00.000Z", client: "gate", server: "demo" };
    const call = { ...event, method: "prompts/get", name: "greet" };
    assert.deepEqual(decisions, [
      {
        ...call,
        outcome: "failed",
        error: { kind: "cancelled", message: 'Call of prompts/get to server "demo" was cancelled' },
        durationMs: 0,
      },
      { ...call, outcome: "completed", durationMs: 0 },
    ]);
    // The stopped side's probe, then the second request's own probe and call.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
      "prompts/get",
    ]);
  });
  // Only a request the caller withdrew goes unanswered: one the session's close ends is told so.
  const closing = [
    {
      what: "a relayed prompts/list",
      request: { jsonrpc: "2.0", id: 1, method: "prompts/list", params: {} },
    },
    {
      what: "a tools/call",
      request: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } },
    },
  ] as const;
  for (const { what, request } of closing) {
    test(`${what} pending upstream when the session closes is answered that it was cancelled`, async () => {
      const held = gate();
      const { client, server, session } = sessionOn(async (seen) => {
        if (seen.body.method === request.method) await held.opened;
        return answer(seen);
      });
      const pending = session.handle(request);
      await eventually(
        `the upstream ${request.method}`,
        () => server.requests.find((seen) => seen.body.method === request.method),
      );
      await session.close();
      const response = await pending;
      held.open();
      assert.deepEqual([response.status, response.headers.get("content-type"), await response.text()], [
        200,
        "application/json",
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The call was cancelled"}}',
      ]);
      await client.close();
    });
  }

  test("an upstream side that failed to open is opened again by the caller's next request", async () => {
    const { client, server, session } = sessionOn((request, index) =>
      index === 0 ? Promise.reject(new TypeError("fetch failed")) : answer(request)
    );
    const prompt = (id: number) =>
      session.handle({ jsonrpc: "2.0", id, method: "prompts/get", params: { name: "greet" } });
    assert.deepEqual(await (await prompt(1)).json(), {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: 'Upstream server "demo" is unavailable: connection failed',
        data: { serverId: "demo", cause: "connection_failed" },
      },
    });
    assert.deepEqual(await (await prompt(2)).json(), { jsonrpc: "2.0", id: 2, result: { messages: [] } });
    await session.close();
    await client.close();
    // The failed probe, then the second request's own probe and call.
    assert.deepEqual(server.requests.map((request) => request.body.method), [
      "server/discover",
      "server/discover",
      "prompts/get",
    ]);
  });
});

describe("CallerSession relays the upstream's notifications", () => {
  for (const era of ["modern", "legacy"] as const) {
    test(`a ${era} upstream's progress and log entries of one SSE read reach the caller's call stream in the order the upstream sent them, before the result`, async () => {
      const { client, session } = sessionOn(
        (request) => {
          const { id, method, params } = request.body;
          if (id === undefined) return new Response(null, { status: 202 });
          if (method === "initialize") return initialized(id, { tools: {} });
          if (method !== "tools/call") return answer(request);
          const token = (params?._meta as { progressToken?: unknown }).progressToken;
          const done = era === "modern" ? { resultType: "complete", content: [] } : { content: [] };
          return sse([...progressAndLogs(token), { jsonrpc: "2.0", id, result: done }]);
        },
        {},
        { era },
      );
      const response = await session.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: {}, _meta: { progressToken: "caller-1" } },
      });
      assert.deepEqual(await new EventReader(response).rest(), [
        ...progressAndLogs("caller-1"),
        { jsonrpc: "2.0", id: 1, result: { content: [] } },
      ]);
      await session.close();
      await client.close();
    });
  }

  test("a resource update and a list change reach the caller's GET stream with their text cleaned as the client's subscribers get it", async () => {
    const forged = "50%\u001b[2J\u202Eevil\nFAKE";
    const { client, session } = sessionOn(
      (request) =>
        request.body.method === "tools/call"
          ? sse([
            {
              jsonrpc: "2.0",
              method: "notifications/resources/updated",
              params: { uri: "file:///a\u202Eb", title: forged },
            },
            {
              jsonrpc: "2.0",
              method: "notifications/tools/list_changed",
              params: { _meta: { note: forged } },
            },
            { jsonrpc: "2.0", id: request.body.id, result: { resultType: "complete", content: [] } },
          ])
          : answer(request),
      {},
      { era: "modern" },
    );
    const stream = new EventReader(session.listen(null));
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: {} },
    } as const;
    assert.deepEqual(await (await session.handle(call)).json(), {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [] },
    });
    assert.deepEqual([await stream.message(), await stream.message()], [
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "file:///ab", title: "50%[2JevilFAKE" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { note: "50%[2JevilFAKE" } },
      },
    ]);
    await session.close();
    await client.close();
  });
});

describe("CallerSession keeps finished call streams for a resumption within a byte bound", () => {
  test("past 8 MiB of finished streams it forgets those that finished first, but the one that finished last stays", async () => {
    const big = "x".repeat(3_000_000);
    const slowAnswer = gate();
    const { client, session } = sessionOn(
      (request) => {
        const { id, method, params } = request.body;
        if (method !== "tools/call") return answer(request);
        const token = (params?._meta as { progressToken?: unknown }).progressToken;
        const progress = {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1 },
        };
        const done = (text: string) => ({
          jsonrpc: "2.0",
          id,
          result: { resultType: "complete", content: [{ type: "text", text }] },
        });
        if ((params as { name?: unknown }).name === "big") return sse([progress, done(big)]);
        // The slow call's progress opens its stream at once; its small answer comes when released.
        const encoder = new TextEncoder();
        const event = (message: unknown) =>
          encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(event(progress));
            await slowAnswer.opened;
            controller.enqueue(event(done("small")));
            controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
      {},
      { era: "modern" },
    );
    const call = (id: number, name: string) =>
      session.handle({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: {}, _meta: { progressToken: `p${id}` } },
      });
    // The slow call's stream is the first made, and finishes last, after three answers of 3 MB.
    const slow = new EventReader(await call(1, "slow"));
    await slow.message();
    for (let id = 2; id <= 4; id++) await new EventReader(await call(id, "big")).rest();
    slowAnswer.open();
    await slow.rest();
    // Streams 2 to 4 hold about 9 MB besides the newest finished (1): the first finished is forgotten.
    const resumed = [];
    for (const key of ["1", "2", "3", "4"]) {
      const replay = await new EventReader(session.listen(`${key}_1`)).rest();
      resumed.push(
        replay.map((
          message,
        ) => [message.id, (message.result as { content: { text: string }[] }).content[0]?.text.length]),
      );
    }
    assert.deepEqual(resumed, [[[1, 5]], [], [[3, 3_000_000]], [[4, 3_000_000]]]);
    await session.close();
    await client.close();
  });
});

describe("CallerSession relays only the notifications its caller's version has", () => {
  for (
    const [version, expected] of [
      ["2025-06-18", ["notifications/tools/list_changed"]],
      ["2025-11-25", ["notifications/elicitation/complete", "notifications/tools/list_changed"]],
    ] as const
  ) {
    test(`a ${version} host's GET stream gets ${expected.join(" and ")} of what the upstream sent, no vendor's own`, async () => {
      const notification = (method: string, params: Record<string, unknown> = {}) => ({
        jsonrpc: "2.0",
        method,
        params,
      });
      const { client, session } = sessionOn(
        (request) =>
          request.body.method === "tools/call"
            ? sse([
              notification("notifications/elicitation/complete", { elicitationId: "e1" }),
              notification("notifications/vendor/thing", { a: 1 }),
              notification("notifications/tools/list_changed"),
              { jsonrpc: "2.0", id: request.body.id, result: { resultType: "complete", content: [] } },
            ])
            : answer(request),
        { version },
        { era: "modern" },
      );
      const stream = new EventReader(session.listen(null));
      await session.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: {} },
      });
      await session.close();
      const methods = (await stream.rest()).map((message) => message.method);
      assert.deepEqual(methods, expected);
      await client.close();
    });
  }
});

describe("CallerSession and a host's task param", () => {
  test("a 2025 host's tools/call with task params goes upstream without them when the upstream does not take tools/call as a task", async () => {
    const { client, server, session } = sessionOn(
      ({ body: { id, method } }) => {
        if (id === undefined) return new Response(null, { status: 202 });
        if (method === "initialize") return initialized(id, { tools: {} });
        if (method === "tools/list") {
          return result(id, {
            tools: [{ name: "echo", inputSchema: { type: "object" } }],
          });
        }
        return result(id, { content: [{ type: "text", text: "done" }] });
      },
      {},
      { era: "legacy" },
    );
    const answered = await session.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: {}, task: { ttl: 60_000 } },
    });
    assert.deepEqual(await answered.json(), {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "done" }] },
    });
    await session.close();
    await client.close();
    assert.deepEqual(
      server.requests.filter((r) => r.body.method === "tools/call").map((r) => r.body.params),
      [
        { name: "echo", arguments: {} },
      ],
    );
  });
});

describe("CallerSession and a task its 2025-11-25 caller holds", () => {
  test("the upstream's progress for the task reaches the caller's GET stream under the caller's token, until the task ended", async () => {
    let token: unknown;
    const polls: string[] = [];
    const tick = (n: number) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: n },
    });
    const upstream = legacyTaskServer(() => new Promise<Response>(() => {}));
    const { client, session } = sessionOn(
      (request, index) => {
        const { id, method, params } = request.body;
        if (method === "tools/call") token = (params?._meta as { progressToken?: unknown }).progressToken;
        if (method !== "tasks/get") return upstream(request, index);
        // working with a tick, then completed, then a stray tick of the ended task.
        const status = polls.length === 0 ? "working" : "completed";
        polls.push(status);
        const ticks = polls.length === 1 ? [tick(5)] : polls.length === 3 ? [tick(7)] : [];
        return sse([...ticks, { jsonrpc: "2.0", id, result: legacyTask(status) }]);
      },
      {},
      { era: "legacy" },
    );
    const stream = new EventReader(session.listen(null));
    const called = await session.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "deploy", arguments: {}, task: { ttl: 60_000 }, _meta: { progressToken: "tp" } },
    });
    assert.equal(
      ((await called.json()) as { result: { task: { status: string } } }).result.task.status,
      "working",
    );
    for (let id = 2; id <= 4; id++) {
      await (await session.handle({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: "t-1" } }))
        .json();
    }
    await session.close();
    await client.close();
    assert.deepEqual([typeof token, polls, await stream.rest()], [
      "string",
      ["working", "completed", "completed"],
      [{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tp", progress: 5 } }],
    ]);
  });
});

/** A 2025-11-25 upstream whose tool `deploy` becomes a task whose `tasks/result` never comes. */
const taskUpstream = legacyTaskServer(() => new Promise<Response>(() => {}));

describe("CallerSession awaiting an upstream task its caller did not ask for", () => {
  const deploy = {
    jsonrpc: "2.0" as const,
    id: 1,
    method: "tools/call",
    params: { name: "deploy", arguments: {} },
  };
  const upstreamSent = [
    [
      { jsonrpc: "2.0", id: 4, method: "tasks/result", params: { taskId: "t-1" } },
      { jsonrpc: "2.0", id: 5, method: "tasks/cancel", params: { taskId: "t-1" } },
    ],
    [["notifications/cancelled", { requestId: 4, reason: "cancelled by the client" }]],
  ];

  test("cancels the task upstream (tasks/cancel) when the caller cancels the call", async () => {
    const { client, server, session } = sessionOn(taskUpstream, {}, { era: "legacy" });
    const pending = session.handle(deploy);
    await eventually("the upstream tasks/result", () => server.requests[4]);
    await session.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    const withdrawn = await pending;
    assert.deepEqual([withdrawn.status, withdrawn.headers.get("content-type"), await withdrawn.text()], [
      200,
      "text/event-stream",
      "",
    ]);
    await session.close();
    await client.close();
    assert.deepEqual(sentAfterTask(server.requests), upstreamSent);
  });

  test("cancels the task upstream (tasks/cancel) when the caller ends its session", async () => {
    const { client, server, session } = sessionOn(taskUpstream, {}, { era: "legacy" });
    const pending = session.handle(deploy);
    await eventually("the upstream tasks/result", () => server.requests[4]);
    await session.close();
    const ended = await pending;
    const answer = [ended.status, ended.headers.get("content-type"), await ended.text()];
    await client.close();
    assert.deepEqual(sentAfterTask(server.requests), upstreamSent);
    assert.deepEqual(answer, [
      200,
      "application/json",
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The call was cancelled"}}',
    ]);
  });

  test("cancels the task upstream (tasks/cancel) when maxTotalTimeout passes", async () => {
    const { client, server, session, time } = sessionOn(taskUpstream, {}, {
      era: "legacy",
      maxTotalTimeout: "1200ms",
    });
    const answered = drive(time, session.handle(deploy).then((response) => response.json()));
    assert.deepEqual(await answered, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: 'Upstream server "demo" is unavailable: timed out',
        data: { serverId: "demo", cause: "timed_out" },
      },
    });
    await session.close();
    await client.close();
    assert.deepEqual(sentAfterTask(server.requests), upstreamSent);
  });
});

/**
 * A 2025-06-18 caller's session (declaring sampling and elicitation) on a modern server whose tool
 * `ask` asks `asked` once (input request "k"), then answers "done".
 */
function askedOf20250618(asked: Record<string, unknown>) {
  const reply: Reply = ({ body }) => {
    if (body.method === "tools/list") {
      return result(body.id, {
        resultType: "complete",
        tools: [{ name: "ask", inputSchema: { type: "object" } }],
      });
    }
    if (body.params?.inputResponses === undefined) {
      return result(body.id, { resultType: "input_required", inputRequests: { k: asked } });
    }
    return result(body.id, { resultType: "complete", content: [{ type: "text", text: "done" }] });
  };
  const { client, server, session } = sessionOn(reply, {
    version: "2025-06-18",
    capabilities: { sampling: {}, elicitation: {} },
  }, { era: "modern", passDown: ["sampling", "elicitation"], sampling: { tools: true } });
  const call = () =>
    session.handle({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask", arguments: {} } });
  /** What the server got for "k" in its second round, if there was one. */
  const answered = () =>
    (server.requests.find((request) => request.body.params?.inputResponses !== undefined)?.body.params
      ?.inputResponses as Record<string, unknown> | undefined)?.k;
  const close = async () => {
    await session.close();
    await client.close();
  };
  return { client, session, call, answered, close };
}

describe("CallerSession with a 2025-06-18 caller", () => {
  const text = (value: string) => ({ type: "text", text: value });
  const done = { jsonrpc: "2.0", id: 7, result: { content: [text("done")] } };

  /**
   * Has the server ask `asked`, expects the caller to be sent exactly `sent` (params), valid as
   * the 2025-06-18 `definition`, answers `reply`, and expects it upstream and the call done.
   */
  async function passedDown(
    asked: { method: string; params: unknown },
    expected: { sent: unknown; definition: string; reply: Record<string, unknown> },
  ) {
    const { session, call, answered, close } = askedOf20250618(asked);
    const events = new EventReader(await call());
    const request = await events.message();
    assert.deepEqual(request, {
      jsonrpc: "2.0",
      id: "sluice-1",
      method: asked.method,
      params: expected.sent,
    });
    assert.deepEqual(schemaErrors("2025-06-18", expected.definition, request), []);
    await session.handle({ jsonrpc: "2.0", id: "sluice-1", result: expected.reply });
    assert.deepEqual(await events.rest(), [done]);
    assert.deepEqual(answered(), expected.reply);
    await close();
  }

  test("a sampling message of one block in an array reaches it as that block, fitting its schema, and its answer goes upstream", async () => {
    const messages = [{ role: "user", content: [text("a")] }, { role: "user", content: text("b") }];
    await passedDown({ method: "sampling/createMessage", params: { messages, maxTokens: 5 } }, {
      sent: {
        messages: [{ role: "user", content: text("a") }, { role: "user", content: text("b") }],
        maxTokens: 5,
      },
      definition: "CreateMessageRequest",
      reply: { role: "assistant", content: text("ok"), model: "m" },
    });
  });

  const one = "whose sampling messages hold one text, image or audio block each, and";
  const unfit = [
    {
      what: "several blocks in a message",
      params: { messages: [{ role: "user", content: [text("a"), text("b")] }], maxTokens: 5 },
      why: `${one} messages[0] holds 2 blocks`,
    },
    {
      what: "a tool_use block",
      params: {
        messages: [
          { role: "user", content: text("a") },
          { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "t", input: {} }] },
          { role: "user", content: [{ type: "tool_result", toolUseId: "u1", content: [text("r")] }] },
        ],
        maxTokens: 5,
      },
      why: `${one} messages[1] holds a "tool_use" block`,
    },
    {
      what: "tools",
      params: {
        messages: [{ role: "user", content: text("a") }],
        maxTokens: 5,
        tools: [{ name: "t", inputSchema: { type: "object" } }],
      },
      why: 'whose sampling has no tools, and the request has "tools"',
    },
    {
      what: "toolChoice",
      params: {
        messages: [{ role: "user", content: text("a") }],
        maxTokens: 5,
        toolChoice: { mode: "auto" },
      },
      why: 'whose sampling has no tools, and the request has "toolChoice"',
    },
  ];
  for (const { what, params, why } of unfit) {
    test(`sampling with ${what} is not sent to it: refused upstream -32602, naming what 2025-06-18 cannot carry, in the request's second decision event too`, async () => {
      const { client, call, answered, close } = askedOf20250618({ method: "sampling/createMessage", params });
      const inputs: InputDecision[] = [];
      client.onDecision((event) => void (event.type === "input" && inputs.push(event)));
      const response = await call();
      assert.deepEqual([response.status, response.headers.get("content-type"), await response.json()], [
        200,
        "application/json",
        {
          jsonrpc: "2.0",
          id: 7,
          error: {
            code: -32602,
            message:
              `Input request "k" (sampling/createMessage) from server "demo" refused by policy: Invalid params: the caller speaks 2025-06-18, ${why}`,
          },
        },
      ]);
      assert.equal(answered(), undefined);
      await close();
      assert.deepEqual(inputs.map((event) => [event.outcome, event.refusal]), [
        ["deferred", undefined],
        ["policy", { code: -32602, message: `Invalid params: the caller speaks 2025-06-18, ${why}` }],
      ]);
    });
  }

  test("a URL elicitation is not sent to it: refused upstream -32602, naming the mode its version lacks", async () => {
    const { call, answered, close } = askedOf20250618({
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://login.example.com/start" },
    });
    const response = await call();
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32602,
        message:
          'Input request "k" (elicitation/create) from server "demo" refused by policy: Invalid params: the caller speaks 2025-06-18, whose elicitation has no URL mode',
      },
    });
    assert.equal(answered(), undefined);
    await close();
  });

  test("a titled single-select (oneOf) reaches it as enum + enumNames, fitting its schema, and its choice passes the post-check", async () => {
    const oneOf = [{ const: "r", title: "Red" }, { const: "g", title: "Green" }];
    const size = { type: "string", enum: ["s", "l"] };
    const form = (color: Record<string, unknown>) => ({
      type: "object",
      properties: { color: { type: "string", title: "Colour", ...color }, size },
      required: ["color"],
    });
    await passedDown({
      method: "elicitation/create",
      params: { mode: "form", message: "Pick", requestedSchema: form({ oneOf }) },
    }, {
      sent: { message: "Pick", requestedSchema: form({ enum: ["r", "g"], enumNames: ["Red", "Green"] }) },
      definition: "ElicitRequest",
      reply: { action: "accept", content: { color: "g" } },
    });
  });
});

/**
 * Has a session relay `method` twice, its server answering it `broken`, then `fitting` (anything
 * else as {@linkcode answer} does, or, `legacy`, as a 2025-11-25 server): the caller must be
 * answered -32010 (the upstream broke the protocol), then `relayed`.
 */
async function relaysOnlyFitting(
  method: string,
  params: Record<string, unknown>,
  results: {
    readonly broken: Record<string, unknown>;
    readonly fitting: Record<string, unknown>;
    readonly relayed: Record<string, unknown>;
    readonly legacy?: boolean;
  },
) {
  let fits = false;
  const { client, session } = sessionOn(
    ({ body }) => {
      if (body.method === method) return result(body.id, fits ? results.fitting : results.broken);
      if (results.legacy !== true) return answer({ headers: {}, body });
      if (body.id === undefined) return new Response(null, { status: 202 });
      return body.method === "initialize" ? initialized(body.id, { tools: {} }) : result(body.id, {});
    },
    {},
    results.legacy === true ? { era: "legacy" } : {},
  );
  const relay = async (id: number) =>
    await (await session.handle({ jsonrpc: "2.0", id, method, params })).json();
  const refused = await relay(1);
  fits = true;
  assert.deepEqual([refused, await relay(2)], [
    {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: 'Upstream server "demo" is unavailable: it broke the protocol',
        data: { serverId: "demo", cause: "protocol" },
      },
    },
    { jsonrpc: "2.0", id: 2, result: results.relayed },
  ]);
  await session.close();
  await client.close();
}

describe("CallerSession relays a list only as the client takes it", () => {
  const lists = [
    ["tools/list", "tools"],
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
    ["prompts/list", "prompts"],
  ] as const;
  for (const [method, key] of lists) {
    test(`${method} without "${key}" is answered -32010 (the upstream broke the protocol); with it, relayed in the legacy shape`, async () => {
      await relaysOnlyFitting(method, {}, {
        broken: { resultType: "complete" },
        fitting: { resultType: "complete", [key]: [] },
        relayed: { [key]: [] },
      });
    });
  }
});

/** An answer that breaks `completion/complete`'s result, and what is wrong with it. */
const BROKEN_COMPLETIONS = [
  ["no completion", {}],
  ["a value that is not a string", { completion: { values: ["a", 1] } }],
  ["101 values", { completion: { values: Array.from({ length: 101 }, (_, i) => `v${i}`) } }],
  ["a total that is not an integer", { completion: { values: [], total: 1.5 } }],
  ["a hasMore that is not a boolean", { completion: { values: [], hasMore: "yes" } }],
] as const;

describe("CallerSession relays a completion only as its schema has it", () => {
  const completion = { values: ["a"], total: 1, hasMore: false };
  for (const [what, broken] of BROKEN_COMPLETIONS) {
    test(`completion/complete answered with ${what} is answered -32010 (the upstream broke the protocol); a fitting one is relayed in the legacy shape`, async () => {
      const params = { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "n", value: "" } };
      await relaysOnlyFitting("completion/complete", params, {
        broken: { resultType: "complete", ...broken },
        fitting: { resultType: "complete", completion },
        relayed: { completion },
      });
    });
  }
});

describe("CallerSession relays a legacy upstream's tasks only as the 2025-11-25 schema has them", () => {
  const task = {
    taskId: "t1",
    status: "working",
    createdAt: "2026-12-01T12:00:00Z",
    lastUpdatedAt: "2026-12-01T12:00:00Z",
    ttl: null,
  };
  const { status: _status, ...statusless } = task;
  const cases = [
    ["tasks/get", { taskId: "t1" }, statusless, task],
    ["tasks/cancel", { taskId: "t1" }, statusless, { ...task, status: "cancelled" }],
    ["tasks/list", {}, { tasks: [statusless] }, { tasks: [task] }],
  ] as const;
  for (const [method, params, broken, fitting] of cases) {
    test(`${method} answered without a task's status is answered -32010 (the upstream broke the protocol); a fitting answer is relayed`, async () => {
      await relaysOnlyFitting(method, params, { broken, fitting, relayed: fitting, legacy: true });
    });
  }
});
