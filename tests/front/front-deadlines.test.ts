// The front's deadlines against a scripted upstream that never answers: an upstream leg that
// runs out of callTimeout ends the downstream call with a JSON-RPC error, and leaves no timer;
// and a call whose round the gateway's handler never answers: its maxTotalTimeout is told as the
// same error, while its caller leaving is told as a cancellation.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { result, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { eventually } from "../_support/eventually.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import { gate } from "../_support/gate.ts";
import type { Decision } from "../../src/chain/decision.ts";
import {
  askScriptedFront,
  modernMeta,
  modernRequest,
  SCRIPTED_FRONT_URL,
  scriptedFront,
} from "../_support/gateway-caller.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/** The answer to call `id` past a deadline of server "up", wherever the call waits. */
function timedOut(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32010,
      message: 'Upstream server "up" is unavailable: timed out',
      data: { serverId: "up", cause: "timed_out" },
    },
  };
}

describe("the front's deadlines", () => {
  test("an upstream leg past callTimeout answers -32010 timed_out at that moment, and no timer is left", async () => {
    const time = new FakeTime();
    const upstream = scriptedServer((req) =>
      req.body.method === "tools/list" ? toolsList(req.body.id, []) : new Promise<Response>(() => {})
    );
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      timers: time,
      policies: [{
        server: "up",
        transport: { url: "https://up.example/mcp" },
        era: "modern",
        callTimeout: "2s",
      }],
    });
    const app = createFront({
      client,
      stateKey: "front-deadline-state-key-0123456789abcdef",
      allowedHosts: ["gate.example"],
      auth: "none",
    });
    const pending = Promise.resolve(app.fetch(
      new Request("https://gate.example/mcp/up", {
        method: "POST",
        headers: toolCallHeaders("echo"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "echo", arguments: {}, _meta: META },
        }),
      }),
    ));
    // The front reaches upstream after real work (on workerd, its state key's import).
    await eventually("the upstream tools/call", () => Promise.resolve(upstream.requests[1]));
    let answered = false;
    void pending.then(() => (answered = true));
    await time.advance(1999);
    // Not past callTimeout yet: its timer still waits, due at 2000, whatever turns an answer takes.
    assert.deepEqual([upstream.requests.map((r) => r.body.method), answered, time.nextDue()], [
      ["tools/list", "tools/call"],
      false,
      2000,
    ]);
    await time.advance(1);
    const response = await pending;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), timedOut(9));
    assert.equal(time.pending, 0);
    await client.close();
  });

  test("a modern caller's call past maxTotalTimeout while the gateway's handler answers its round answers -32010 timed_out, as one waiting on the upstream does", async () => {
    const { time, pending, client, calls } = await roundHeldByHandler(new AbortController());
    let answered = false;
    void pending.then(() => (answered = true));
    await time.advance(3999);
    // Not past maxTotalTimeout yet: its timer still waits, due at 5000 (the call began at 0).
    assert.deepEqual([answered, time.nextDue()], [false, 5000]);
    await time.advance(1);
    const response = await pending;
    assert.deepEqual([response.status, await response.json()], [200, timedOut(1)]);
    // The operator's event tells the timeout, as for a call that times out upstream.
    assert.deepEqual(calls, [
      callEvent(5000, {
        kind: "timeout",
        message: 'Server "up": the call did not finish within 5000 ms (maxTotalTimeout)',
      }),
    ]);
    assert.equal(time.pending, 0);
    await client.close();
  });

  test("a modern caller that leaves while the gateway's handler answers its round is told the call was cancelled", async () => {
    const caller = new AbortController();
    const { time, pending, client, calls } = await roundHeldByHandler(caller);
    caller.abort();
    const response = await pending;
    assert.deepEqual([response.status, await response.json()], [200, {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "The call was cancelled" },
    }]);
    assert.deepEqual(calls, [
      callEvent(1000, { kind: "cancelled", message: 'Call of tools/call to server "up" was cancelled' }),
    ]);
    assert.equal(time.pending, 0);
    await client.close();
  });

  test("a modern caller's retry that leaves its input requests unanswered gets them again under the first state's expiry: with stateTtl 1s, the state of a retry at 700 ms is expired at 1400 ms", async () => {
    const time = new FakeTime();
    const who = {
      method: "elicitation/create",
      params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: {} } },
    };
    const front = scriptedFront(
      (req) =>
        req.body.method === "tools/list"
          ? toolsList(req.body.id, [{ name: "ask", inputSchema: { type: "object" } }])
          : result(req.body.id, {
            resultType: "input_required",
            inputRequests: { who },
            requestState: "upstream-state",
          }),
      { policy: { passDown: ["elicitation"], stateTtl: "1s" }, clock: time },
    );
    const ask = async (extra: Record<string, unknown> = {}) => {
      const params = { name: "ask", arguments: {}, ...extra };
      const answer = await askScriptedFront(front, "tools/call", params, {
        capabilities: { elicitation: { form: {} } },
      });
      return answer.body as { result?: Record<string, unknown>; error?: unknown };
    };
    const first = (await ask()).result ?? {};
    await time.advance(700);
    const again = (await ask({ requestState: first.requestState, inputResponses: {} })).result ?? {};
    assert.deepEqual([again.resultType, again.inputRequests], ["input_required", { who }]);
    await time.advance(700);
    const late = await ask({ requestState: again.requestState, inputResponses: {} });
    assert.deepEqual(late.error, { code: -32602, message: "Invalid or expired requestState" });
    assert.deepEqual(front.upstream.requests.map((r) => r.body.method), ["tools/list", "tools/call"]);
    await front.client.close();
  });
});

/**
 * A modern caller's `tools/call` through a front whose upstream asks one elicitation, which the
 * gateway's handler never answers; `maxTotalTimeout` is 5s, and the round starts 1s into the
 * call (so the handler's own time limit, shortened to 5s, falls after the call's).
 *
 * @param caller Ends the caller's request (the caller leaving).
 * @returns The fake time (at 1s, the handler asked), the caller's pending response and the front's client.
 */
async function roundHeldByHandler(caller: AbortController) {
  const time = new FakeTime();
  const toolsListed = gate();
  const asked = gate();
  const { app, client, upstream } = scriptedFront(async (req) => {
    if (req.body.method === "tools/list") {
      await toolsListed.opened;
      return toolsList(req.body.id, [{ name: "ask", inputSchema: { type: "object" } }]);
    }
    return result(req.body.id, {
      resultType: "input_required",
      inputRequests: {
        who: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Your name?",
            requestedSchema: { type: "object", properties: {} },
          },
        },
      },
      requestState: "upstream-state",
    });
  }, {
    policy: { maxTotalTimeout: "5s" },
    handler: { elicitation: () => (asked.open(), new Promise<never>(() => {})) },
    timers: time,
    clock: time,
  });
  const calls: Decision[] = [];
  client.onDecision((event) => void (event.type === "call" && calls.push(event)));
  const request = modernRequest(SCRIPTED_FRONT_URL, "tools/call", {
    name: "ask",
    arguments: {},
    _meta: modernMeta(),
  });
  const pending = Promise.resolve(app.fetch(new Request(request, { signal: caller.signal })));
  await eventually("the upstream tools/list", () => Promise.resolve(upstream.requests[0]));
  await time.advance(1000);
  toolsListed.open();
  await asked.opened;
  return { time, pending, client, calls };
}

/** The call event of the held round's call, ended at `endedAt` ms with `error`. */
function callEvent(endedAt: number, error: { kind: string; message: string }) {
  return {
    type: "call",
    time: new Date(endedAt).toISOString(),
    client: "gate",
    server: "up",
    method: "tools/call",
    name: "ask",
    outcome: "failed",
    error,
    durationMs: endedAt,
  };
}
