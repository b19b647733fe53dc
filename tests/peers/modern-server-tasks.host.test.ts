// The modern peer's hand-built tasks extension (io.modelcontextprotocol/tasks, protocol digest
// §8.2) for slow_task, and its request log (GET /__requests), driven with raw fetch.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { meta, rawRpc } from "./_raw-rpc.ts";

const TASKS = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
type Fields = Record<string, unknown>;

describe("tests/peers/modern-server.ts: slow_task and the request log", () => {
  let peer: ModernPeer;

  before(async () => {
    peer = await startModernPeer();
  });

  after(async () => {
    await peer.stop();
  });

  const { post, lastId } = rawRpc(() => peer.url);
  const task = (method: string, taskId: string, extra: Fields = {}) =>
    post(method, { taskId, ...extra }, { name: taskId, capabilities: TASKS });
  const result = async (sent: Promise<{ body: Fields }>) => (await sent).body.result as Fields;

  test("slow_task: CreateTaskResult, input_required on tasks/get, tasks/update, then completed", async () => {
    const created = await result(post("tools/call", { name: "slow_task", arguments: {} }, {
      name: "slow_task",
      capabilities: TASKS,
    }));
    const taskId = created.taskId as string;
    assert.match(taskId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(created, {
      resultType: "task",
      taskId,
      status: "working",
      createdAt: created.createdAt,
      lastUpdatedAt: created.createdAt,
      ttlMs: 600_000,
      pollIntervalMs: 10,
    });
    const waiting = await result(task("tasks/get", taskId));
    assert.deepEqual([waiting.resultType, waiting.status, waiting.inputRequests], [
      "complete",
      "input_required",
      {
        confirm: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Continue the slow task?",
            requestedSchema: {
              type: "object",
              properties: { confirm: { type: "boolean" } },
              required: ["confirm"],
            },
          },
        },
      },
    ]);
    const inputResponses = { confirm: { action: "accept", content: { confirm: true } } };
    assert.deepEqual(await result(task("tasks/update", taskId, { inputResponses })), {
      resultType: "complete",
    });
    let done = await result(task("tasks/get", taskId));
    for (let polls = 0; done.status === "working" && polls < 100; polls++) {
      await new Promise((resolve) => setTimeout(resolve, done.pollIntervalMs as number));
      done = await result(task("tasks/get", taskId));
    }
    assert.deepEqual([done.status, done.result, "inputRequests" in done, "requestState" in done], [
      "completed",
      { content: [{ type: "text", text: '{"confirm":true}' }], isError: false },
      false,
      false,
    ]);
  });

  test("slow_task without the tasks extension declared gets -32021", async () => {
    const sent = await post("tools/call", { name: "slow_task", arguments: {} }, { name: "slow_task" });
    assert.deepEqual(sent, {
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: lastId(),
        error: {
          code: -32021,
          message: "Missing required client capability",
          data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
        },
      },
    });
  });

  test("tasks/get of an unknown taskId gets -32602; tasks/cancel ends a waiting task", async () => {
    const unknown = await task("tasks/get", "no-such-task");
    assert.deepEqual(unknown.body.error, { code: -32602, message: 'Unknown taskId "no-such-task"' });
    const created = await result(post("tools/call", { name: "slow_task", arguments: {} }, {
      name: "slow_task",
      capabilities: TASKS,
    }));
    const taskId = created.taskId as string;
    assert.deepEqual(await result(task("tasks/cancel", taskId)), { resultType: "complete" });
    assert.equal((await result(task("tasks/get", taskId))).status, "cancelled");
  });

  test("GET /__requests returns what the peer received: method, path, headers, JSON body, status", async () => {
    await peer.clearRequests();
    await post("tools/call", { name: "add", arguments: { a: 2, b: 3 } }, { name: "add" });
    const [request, ...rest] = await peer.requests();
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [
        request?.method,
        request?.path,
        request?.status,
        request?.headers["mcp-method"],
        request?.headers["mcp-name"],
      ],
      ["POST", "/mcp", 200, "tools/call", "add"],
    );
    assert.deepEqual(request?.body, {
      jsonrpc: "2.0",
      id: lastId(),
      method: "tools/call",
      params: { name: "add", arguments: { a: 2, b: 3 }, _meta: meta({}) },
    });
  });
});
