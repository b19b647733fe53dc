// Tasks through the front: a modern caller that declared the io.modelcontextprotocol/tasks
// extension gets a modern upstream's task (the modern peer's slow_task) and drives it with
// tasks/get, tasks/update and tasks/cancel, the task's input requests held to the policy; a
// 2025-11-25 caller drives a legacy upstream's task (server-everything's simulate-research-query)
// with tasks/get and tasks/result, its elicitation passed down on the tasks/result stream.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type Handler } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { everythingStdioCommand } from "../_support/everything.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { EventReader, type Fetch, LegacyCaller } from "../_support/legacy-caller.ts";
import { eventually } from "../_support/eventually.ts";

const KEY = "front-tasks-test-key-0123456789abcdef012";
const TASKS = "io.modelcontextprotocol/tasks";

let peer: ModernPeer | undefined;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

function gateway(handler?: Handler) {
  const client = createClient({
    name: "gate",
    ...(handler === undefined ? {} : { handler }),
    policies: [
      { server: "modern", transport: { url: peer?.url ?? "" }, era: "modern", passDown: ["elicitation"] },
      { server: "everything", transport: everythingStdioCommand(), era: "legacy", passDown: ["elicitation"] },
    ],
  });
  const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.test"], auth: "none" });
  const fetch: Fetch = async (url, init) => await app.fetch(new Request(url, init));
  return { client, fetch };
}

/** A modern request to the front; resolves with the HTTP status and the parsed body. */
async function modern(
  fetch: Fetch,
  method: string,
  params: Record<string, unknown>,
  declared: Record<string, unknown> = { elicitation: {}, extensions: { [TASKS]: {} } },
) {
  const name = method === "tools/call" ? String(params.name) : String(params.taskId);
  const response = await fetch("http://gate.test/mcp/modern", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": declared,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });
  // deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON results
  return { status: response.status, body: await response.json() as Record<string, any> };
}

const CONFIRM = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Continue the slow task?",
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
  },
};

/** Polls tasks/get until the task leaves the given status (the peer finishes within its workMs). */
function pollWhile(fetch: Fetch, taskId: string, status: string) {
  return eventually(`task ${taskId} leaving ${status}`, async () => {
    const { body } = await modern(fetch, "tasks/get", { taskId });
    return body.result?.status !== status ? body : undefined;
  });
}

describe("the front relays a modern upstream's tasks to a modern caller", () => {
  test("the caller gets the task, sees its form as the policy left it, answers it, and gets the result", async () => {
    const { client, fetch } = gateway();
    const created = await modern(fetch, "tools/call", { name: "slow_task", arguments: {} });
    assert.equal(created.status, 200);
    const task = created.body.result;
    assert.equal(task.resultType, "task");
    assert.equal(task.status, "working");
    const asked = await modern(fetch, "tasks/get", { taskId: task.taskId });
    assert.equal(asked.body.result.status, "input_required");
    assert.deepEqual(asked.body.result.inputRequests, { confirm: CONFIRM });
    const updated = await modern(fetch, "tasks/update", {
      taskId: task.taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    assert.deepEqual(updated.body, { jsonrpc: "2.0", id: 1, result: { resultType: "complete" } });
    const done = await pollWhile(fetch, task.taskId, "working");
    assert.equal(done.result.status, "completed");
    assert.deepEqual(done.result.result, {
      content: [{ type: "text", text: '{"confirm":true}' }],
      isError: false,
    });
    await client.close();
  });

  test("an answer that breaks the form is refused and not sent: the task still waits for one", async () => {
    const { client, fetch } = gateway();
    const task = (await modern(fetch, "tools/call", { name: "slow_task", arguments: {} })).body.result;
    await modern(fetch, "tasks/get", { taskId: task.taskId });
    const refused = await modern(fetch, "tasks/update", {
      taskId: task.taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: "yes" } } },
    });
    assert.deepEqual(refused.body, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message:
          'Answer to input request "confirm" refused: Elicitation answer refused: field "confirm" expected a boolean, received a string',
      },
    });
    assert.equal(
      (await modern(fetch, "tasks/get", { taskId: task.taskId })).body.result.status,
      "input_required",
    );
    const cancelled = await modern(fetch, "tasks/cancel", { taskId: task.taskId });
    assert.deepEqual(cancelled.body, { jsonrpc: "2.0", id: 1, result: { resultType: "complete" } });
    assert.equal((await modern(fetch, "tasks/get", { taskId: task.taskId })).body.result.status, "cancelled");
    await client.close();
  });

  test("what the gateway's handler answers goes upstream from the gateway, once; the caller sees working", async () => {
    let asked = 0;
    const { client, fetch } = gateway({
      elicitation: () => (asked++, { action: "accept", content: { confirm: false } }),
    });
    const task = (await modern(fetch, "tools/call", { name: "slow_task", arguments: {} })).body.result;
    const first = await modern(fetch, "tasks/get", { taskId: task.taskId });
    assert.equal(first.body.result.status, "working");
    assert.equal(first.body.result.inputRequests, undefined);
    const done = await pollWhile(fetch, task.taskId, "working");
    assert.deepEqual(done.result.result, {
      content: [{ type: "text", text: '{"confirm":false}' }],
      isError: false,
    });
    assert.equal(asked, 1);
    await client.close();
  });

  test("a caller that did not declare the extension gets the server's -32021 for a tool that runs only as a task", async () => {
    const { client, fetch } = gateway();
    const refused = await modern(fetch, "tools/call", { name: "slow_task", arguments: {} }, {
      elicitation: {},
    });
    assert.deepEqual(refused.body.error, {
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    await client.close();
  });
});

describe("the front relays a legacy upstream's tasks to a 2025-11-25 caller, and to no 2025-06-18 one", () => {
  test("the caller gets server-everything's task, and its clarification form on the tasks/result stream", async () => {
    const { client, fetch } = gateway();
    const calls: unknown[] = [];
    client.onDecision((event) => {
      if (event.type === "call") calls.push([event.method, event.name, event.outcome, event.task]);
    });
    const host = new LegacyCaller(fetch, "http://gate.test/mcp/everything");
    const init = await host.initialize({ elicitation: {}, tasks: { list: {}, cancel: {} } });
    assert.deepEqual((init.result as { capabilities: { tasks: unknown } }).capabilities.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const created = await host.request(1, "tools/call", {
      name: "simulate-research-query",
      arguments: { topic: "otters", ambiguous: true },
      task: { ttl: 60_000 },
    });
    const task = (created.result as { task: { taskId: string; status: string } }).task;
    assert.equal(task.status, "working");
    // Offered the upstream's tasks, it is told which tools need one.
    const listed = await host.request(9, "tools/list", {});
    const research = (listed.result as { tools: Array<{ name: string; execution?: unknown }> }).tools
      .find((tool) => tool.name === "simulate-research-query");
    assert.deepEqual(research?.execution, { taskSupport: "required" });
    const got = await host.request(2, "tasks/get", { taskId: task.taskId });
    assert.equal((got.result as { taskId: string }).taskId, task.taskId);
    // A tasks/result that names no task is the gateway's to refuse, not the upstream's to look up.
    assert.deepEqual(await host.request(8, "tasks/result", {}), {
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32602, message: 'Invalid params: "taskId" must be a string' },
    });
    const events = new EventReader(
      await host.post({
        jsonrpc: "2.0",
        id: 3,
        method: "tasks/result",
        params: { taskId: task.taskId },
      }),
    );
    const clarify = await events.message();
    assert.equal(clarify?.method, "elicitation/create");
    const params = clarify?.params as { requestedSchema: { properties: Record<string, unknown> } };
    assert.deepEqual(Object.keys(params.requestedSchema.properties), ["interpretation"]);
    await host.post({
      jsonrpc: "2.0",
      id: clarify?.id,
      result: { action: "accept", content: { interpretation: "historical" } },
    });
    const final = await events.message();
    assert.equal(final?.id, 3);
    const text = (final?.result as { content: { text: string }[] }).content[0]?.text ?? "";
    assert.equal(text.split("\n")[0], "# Research Report: otters (historical)");
    // The call's event names the task it became, and the task's requests are named by it.
    assert.deepEqual(calls, [
      ["tools/call", "simulate-research-query", "task", task.taskId],
      ["tasks/result", undefined, "failed", undefined],
      ["tasks/result", task.taskId, "completed", undefined],
    ]);
    await client.close();
  });

  test("a 2025-06-18 caller, whose version has no tasks, is offered none, gets -32601 for tasks/*, and a task's result in its call", async () => {
    const { client, fetch } = gateway();
    const host = new LegacyCaller(fetch, "http://gate.test/mcp/everything", "2025-06-18");
    const init = await host.initialize({ elicitation: {} });
    const result = init.result as { protocolVersion: string; capabilities: Record<string, unknown> };
    assert.deepEqual([result.protocolVersion, "tasks" in result.capabilities], ["2025-06-18", false]);
    assert.deepEqual(
      [await host.request(1, "tasks/list", {}), await host.request(2, "tasks/get", { taskId: "t" })],
      [
        { jsonrpc: "2.0", id: 1, error: { code: -32601, message: 'Method not found: "tasks/list"' } },
        { jsonrpc: "2.0", id: 2, error: { code: -32601, message: 'Method not found: "tasks/get"' } },
      ],
    );
    // Nor told a tool needs a task: the gateway runs it within the call.
    const listed = await host.request(4, "tools/list", {});
    const research = (listed.result as { tools: Array<{ name: string; execution?: unknown }> }).tools
      .find((tool) => tool.name === "simulate-research-query");
    assert.deepEqual([research?.name, research?.execution], ["simulate-research-query", undefined]);
    const stream = new EventReader(await host.listen());
    const called = await host.request(3, "tools/call", {
      name: "simulate-research-query",
      arguments: { topic: "otters" },
      task: { ttl: 60_000 },
    });
    const text = (called.result as { content: { text: string }[] }).content[0]?.text ?? "";
    assert.equal(text.split("\n")[0], "# Research Report: otters");
    // Nor the status of the task the gateway ran for it: 2025-06-18 has no such notification.
    await host.close();
    const methods = (await stream.rest()).map((message) => message.method);
    assert.deepEqual(methods.filter((method) => method === "notifications/tasks/status"), []);
    await client.close();
  });
});
