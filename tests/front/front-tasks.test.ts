// Tasks through the front against a scripted modern upstream, on every runtime: a task's
// input_required status is held to the server's maxInputRequests as a call's round is, before
// any of the gateway's handlers runs. The real peers' tasks: front-tasks.host.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { result, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { toolCallHeaders } from "../_support/downstream.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};
const GO = {
  method: "elicitation/create",
  params: { mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } },
};
const TASK = {
  taskId: "up-1",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  ttlMs: null,
};

/**
 * A gateway in front of an upstream whose task asks `entries` inputs at once, under a policy of
 * `maxInputRequests: 2`; the gateway's handler answers every form and counts them.
 */
function gatewayAsking(entries: number) {
  const inputRequests = Object.fromEntries(Array.from({ length: entries }, (_, i) => [`k${i}`, GO]));
  const upstream = scriptedServer((req) => {
    switch (req.body.method) {
      case "tools/list":
        return toolsList(req.body.id, []);
      case "tools/call":
        return result(req.body.id, { resultType: "task", status: "working", ...TASK });
      case "tasks/get":
        return result(req.body.id, {
          resultType: "complete",
          status: "input_required",
          ...TASK,
          inputRequests,
        });
      default:
        return result(req.body.id, { resultType: "complete" });
    }
  });
  const gate = { asked: 0 };
  const client = createClient({
    name: "gate",
    fetch: upstream.fetch,
    handler: { elicitation: () => (gate.asked++, { action: "accept", content: {} }) },
    policies: [{
      server: "up",
      transport: { url: "https://up.example/mcp" },
      era: "modern",
      maxInputRequests: 2,
    }],
  });
  const app = createFront({
    client,
    stateKey: "front-tasks-state-key-0123456789abcdef0123",
    allowedHosts: ["gate.example"],
    auth: "none",
  });
  const send = async (method: string, params: Record<string, unknown>) => {
    const response = await app.fetch(
      new Request("https://gate.example/mcp/up", {
        method: "POST",
        headers: { ...toolCallHeaders(String(params.name ?? params.taskId)), "mcp-method": method },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
      }),
    );
    return { status: response.status, body: await response.json() };
  };
  return { client, upstream, gate, send };
}

describe("the front's tasks/get and maxInputRequests", () => {
  test("a task status of 3 input requests under maxInputRequests 2 fails the poll before any handler runs, and cancels the task", async () => {
    const { client, upstream, gate, send } = gatewayAsking(3);
    const taskId = (await send("tools/call", { name: "slow", arguments: {} })).body.result.taskId;
    assert.deepEqual(await send("tasks/get", { taskId }), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32603,
          message: 'Server "up" sent 3 input requests in one round, expected at most 2 (maxInputRequests)',
        },
      },
    });
    assert.deepEqual([gate.asked, upstream.requests.map((r) => [r.body.method, r.body.params?.taskId])], [0, [
      ["tools/list", undefined],
      ["tools/call", undefined],
      ["tasks/get", "up-1"],
      ["tasks/cancel", "up-1"],
    ]]);
    await client.close();
  });

  test("a task status of exactly maxInputRequests 2 is answered by the handler, and the caller sees working", async () => {
    const { client, upstream, gate, send } = gatewayAsking(2);
    const taskId = (await send("tools/call", { name: "slow", arguments: {} })).body.result.taskId;
    assert.deepEqual(await send("tasks/get", { taskId }), {
      status: 200,
      body: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", status: "working", ...TASK, taskId } },
    });
    const update = upstream.requests.at(-1)?.body;
    assert.deepEqual([gate.asked, update?.method, update?.params?.taskId, update?.params?.inputResponses], [
      2,
      "tasks/update",
      "up-1",
      { k0: { action: "accept", content: {} }, k1: { action: "accept", content: {} } },
    ]);
    await client.close();
  });
});
