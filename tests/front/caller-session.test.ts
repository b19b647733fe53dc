// One legacy caller's session of the front, driven directly (on the wire, its initialize opens
// the upstream side before the caller can send anything else): the upstream side is opened once
// and shared by the caller's requests that need it meanwhile; a request cancelled while it opens
// (here, while the era of an "auto" server is probed) fails alone, with its own cancellation; an
// attempt that failed, or was stopped by its only request's cancellation, is opened again by the
// next request; a request the session's close ends (unlike one the caller withdrew) is answered
// that it was cancelled.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/create-client.ts";
import { clientInternals } from "../../src/client/client-internals.ts";
import type { Decision } from "../../src/chain/decision.ts";
import { CallerSession } from "../../src/front/caller-session.ts";
import { createFrontServer } from "../../src/front/front-server.ts";
import { FrontUpstreams } from "../../src/front/front-upstreams.ts";
import { type Reply, result, scriptedServer, type SeenRequest } from "../_support/scripted-server.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { eventually } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";

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

/** A 2025-11-25 caller's session on an `era: "auto"` server answering with `reply`, with the decision events of its calls. */
function sessionOn(reply: Reply) {
  const server = scriptedServer(reply);
  const time = new FakeTime();
  const client = createClient({
    name: "gate",
    fetch: server.fetch,
    clock: time,
    timers: time,
    policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "auto" }],
  });
  const internals = clientInternals(client)!;
  const decisions: Decision[] = [];
  const session = new CallerSession({
    id: "caller-1",
    server: createFrontServer(internals.policies()[0]!, internals, "gate"),
    version: "2025-11-25",
    capabilities: {},
    upstreams: new FrontUpstreams(internals),
    clock: time,
    timers: time,
    decisions: { listening: true, decide: (decision) => decisions.push(decision) },
    client: "gate",
  });
  return { client, server, session, decisions };
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
