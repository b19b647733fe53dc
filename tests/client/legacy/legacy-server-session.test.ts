// The tools/list a legacy call makes before the first tools/call (to learn which tools must run
// as tasks), through the legacy entry's client against a scripted legacy HTTP server: none when
// the server declared no `tools`, once when the server refuses it or stays silent, never a second
// handshake in the same call, shared by the calls waiting for it, and made anew by a call that
// comes once every call waiting for it gave up; and the task of a call that stops awaiting it,
// or whose client closes, cancelled with tasks/cancel. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  initialized,
  legacyTask,
  legacyTaskServer,
  result,
  rpcError,
  type ScriptedServer,
  sentAfterTask,
  sse,
} from "../../_support/scripted-server.ts";
import { drive, FakeTime } from "../../_support/fake-time.ts";
import { gate } from "../../_support/gate.ts";
import { eventually } from "../../_support/eventually.ts";
import { cancelFirstOfTwo, failure } from "../_client-fixtures.ts";
import { legacySetup } from "./_legacy-fixtures.ts";
import type { ClientError } from "../../../src/errors.ts";

/** A server declaring `tools` that answers tools/list with `list`, and every call. */
function toolsServer(list: (id: unknown) => Response | Promise<Response>, time?: FakeTime) {
  return legacySetup((request) => {
    const { id, method } = request.body;
    if (method === "initialize") return initialized(id, { tools: {} });
    return method === "tools/list" ? list(id) : called(id);
  }, { callTimeout: "1s", ...(time === undefined ? {} : { time }) });
}

function called(id: unknown): Response {
  return result(id, { content: [] });
}

const methods = (server: ScriptedServer) => server.requests.map((request) => request.body.method);

describe("LegacyServerSession tools/list before a call", () => {
  test("lists nothing when the server declared no tools", async () => {
    const { client, server } = legacySetup((request) =>
      request.body.method === "initialize"
        ? initialized(request.body.id, { prompts: {} })
        : called(request.body.id)
    );
    for (let i = 0; i < 2; i++) assert.deepEqual(await client.callTool("demo", "t", {}), { content: [] });
    await client.close();
    assert.deepEqual(methods(server), [
      "initialize",
      "notifications/initialized",
      "tools/call",
      "tools/call",
    ]);
  });

  test("a call whose signal fired before it went out sends nothing: no request, and no cancellation naming an id never sent", async () => {
    const { client, server } = legacySetup((request) =>
      request.body.method === "initialize"
        ? initialized(request.body.id, { prompts: {} })
        : called(request.body.id)
    );
    await client.callTool("demo", "t", {});
    const aborted = AbortSignal.abort();
    const refused = await client.callTool("demo", "t", {}, { signal: aborted }).catch((error: ClientError) =>
      error
    );
    assert.deepEqual([(refused as ClientError).kind, (refused as ClientError).message], [
      "cancelled",
      'Call of tools/call to server "demo" was cancelled',
    ]);
    await client.callTool("demo", "t", {});
    await client.close();
    assert.deepEqual(server.requests.map((request) => [request.body.method, request.body.id]), [
      ["initialize", 1],
      ["notifications/initialized", undefined],
      ["tools/call", 2],
      ["tools/call", 3],
    ]);
  });

  const listedOnce = [
    {
      server: "refuses tools/list with -32601",
      list: (id: unknown) => rpcError(id, -32601, "Method not found"),
      waitedMs: 0,
      after: [],
    },
    {
      // The call goes on after the list's callTimeout; the list is cancelled, as any request the
      // client gives up on.
      server: "leaves tools/list unanswered for its callTimeout",
      list: () => new Promise<Response>(() => {}),
      waitedMs: 1000,
      after: ["notifications/cancelled"],
    },
  ];
  for (const { server: what, list, waitedMs, after } of listedOnce) {
    test(`lists once when the server ${what}`, async () => {
      const time = new FakeTime();
      const { client, server } = toolsServer(list, time);
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(await drive(time, client.callTool("demo", "t", {})), { content: [] });
      }
      assert.equal(time.now(), waitedMs);
      await client.close();
      assert.deepEqual(methods(server), [
        "initialize",
        "notifications/initialized",
        "tools/list",
        ...after,
        "tools/call",
        "tools/call",
      ]);
    });
  }

  test("fails a call whose initialize goes unanswered after one initialize and one callTimeout", async () => {
    const time = new FakeTime();
    const { client, server } = legacySetup(() => new Promise<Response>(() => {}), {
      callTimeout: "1s",
      time,
    });
    assert.deepEqual(await drive(time, failure(client.callTool("demo", "t", {}))), [
      "timeout",
      undefined,
      'Server "demo": no response to initialize within 1000 ms (callTimeout)',
    ]);
    assert.equal(time.now(), 1000);
    await client.close();
    assert.deepEqual(methods(server), ["initialize"]);
  });

  test("fails a call whose initialize is refused after one initialize", async () => {
    const { client, server } = legacySetup(() => new Response("busy", { status: 503 }));
    assert.deepEqual(await failure(client.callTool("demo", "t", {})), [
      "transport",
      undefined,
      'Server "demo": initialize failed: Request 1 ("initialize") failed with HTTP 503: expected a JSON-RPC response, received "busy"',
    ]);
    await client.close();
    assert.deepEqual(methods(server), ["initialize"]);
  });

  test("an initialize refused with an HTTP status carries it, and a malformed answer to it is the server breaking the protocol", async () => {
    const statusOf = async (answer: () => Response) => {
      const { client } = legacySetup(answer);
      try {
        await client.callTool("demo", "t", {});
      } catch (error) {
        return [(error as ClientError).kind, (error as ClientError).data];
      } finally {
        await client.close();
      }
      throw new Error("expected a rejection");
    };
    const json = { "content-type": "application/json" };
    assert.deepEqual(
      [
        await statusOf(() => new Response("busy", { status: 503 })),
        await statusOf(() => new Response("{", { headers: json })),
        await statusOf(() => new Response('{"jsonrpc":"2.0","id":99,"result":{}}', { headers: json })),
      ],
      [["transport", { status: 503 }], ["protocol", undefined], ["protocol", undefined]],
    );
  });

  test("a call cancelled during the listing fails alone: the other call waiting for it goes on", async () => {
    const listAnswered = gate();
    const { client, server } = toolsServer(async (id) => {
      await listAnswered.opened;
      return result(id, { tools: [] });
    });
    const call = (signal: AbortSignal) => client.callTool("demo", "t", {}, { signal });
    const sent = () => server.requests.find((request) => request.body.method === "tools/list");
    assert.deepEqual(await cancelFirstOfTwo(call, { gate: listAnswered, sent }), [
      ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled'],
      { content: [] },
    ]);
    await client.close();
    assert.deepEqual(methods(server), [
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
    ]);
  });

  test("a call made once the listing was stopped by its only caller leaving lists anew, where it called the tool without a listing", async () => {
    const listAnswered = gate();
    const { client, server } = toolsServer(async (id) => {
      await listAnswered.opened;
      return result(id, { tools: [] });
    });
    const controller = new AbortController();
    const first = failure(client.callTool("demo", "t", {}, { signal: controller.signal }));
    await eventually(
      "the listing sent",
      () => server.requests.find((request) => request.body.method === "tools/list"),
    );
    controller.abort();
    // In the same turn: the stopped listing has not settled yet.
    const second = client.callTool("demo", "t", {});
    listAnswered.open();
    assert.deepEqual(await first, [
      "cancelled",
      undefined,
      'Call of tools/call to server "demo" was cancelled',
    ]);
    assert.deepEqual(await second, { content: [] });
    await client.close();
    // The stopped listing, the second call's own listing, then its call. The stopped listing's
    // cancellation is a notification sent once it has failed, in no set order with the requests.
    const requests = server.requests.filter((request) => request.body.id !== undefined);
    assert.deepEqual(requests.map((request) => [request.body.id, request.body.method]), [
      [1, "initialize"],
      [2, "tools/list"],
      [3, "tools/list"],
      [4, "tools/call"],
    ]);
    const notifications = server.requests.filter((request) => request.body.id === undefined);
    assert.deepEqual(notifications.map((request) => [request.body.method, request.body.params]), [
      ["notifications/initialized", undefined],
      ["notifications/cancelled", { requestId: 2, reason: "cancelled by the client" }],
    ]);
  });
});

/** A client of {@linkcode legacyTaskServer}, whose `tasks/result` is answered by `awaited`. */
function taskServer(
  awaited: (id: unknown) => Response | Promise<Response>,
  time?: FakeTime,
  status?: string,
) {
  return legacySetup(legacyTaskServer(awaited, status), {
    maxTotalTimeout: "1200ms",
    ...(time === undefined ? {} : { time }),
  });
}

/** How a call failed: its kind, code, message and data. */
async function failedWith(promise: Promise<unknown>): Promise<unknown[]> {
  const error = await promise.then(() => assert.fail("expected a rejection"), (e) => e);
  return [error.kind, error.code, error.message, error.data];
}

describe("LegacyServerSession tasks", () => {
  test("a tool whose taskSupport is required is called plainly on a server that does not take tools/call as a task (2025-11-25 without tasks.requests.tools.call, or 2025-06-18), detachTask or not", async () => {
    const sent: unknown[] = [];
    for (const version of ["2025-11-25", "2025-06-18"]) {
      const { client, server } = legacySetup(({ body: { id, method } }) => {
        if (method === "initialize") {
          return initialized(id, { tools: {}, tasks: { cancel: {} } }, { version });
        }
        if (method === "tools/list") {
          return result(id, {
            tools: [{
              name: "deploy",
              inputSchema: { type: "object" },
              execution: { taskSupport: "required" },
            }],
          });
        }
        return result(id, { content: [{ type: "text", text: "deployed" }] });
      });
      try {
        const answers = [
          await client.callTool("demo", "deploy"),
          await client.callTool("demo", "deploy", {}, {
            detachTask: true,
          }),
        ];
        assert.deepEqual(answers, Array(2).fill({ content: [{ type: "text", text: "deployed" }] }));
        sent.push(server.requests.filter((r) => r.body.method === "tools/call").map((r) => r.body.params));
      } finally {
        await client.close();
      }
    }
    const plain = { name: "deploy", arguments: {} };
    assert.deepEqual(sent, [[plain, plain], [plain, plain]]);
  });

  const cancel = { jsonrpc: "2.0", id: 5, method: "tasks/cancel", params: { taskId: "t-1" } };
  const awaiting = { jsonrpc: "2.0", id: 4, method: "tasks/result", params: { taskId: "t-1" } };
  const cancelledAwaiting = [["notifications/cancelled", {
    requestId: 4,
    reason: "cancelled by the client",
  }]];

  test("a tool call whose task it stops awaiting (its signal, maxTotalTimeout) sends tasks/cancel and fails as a modern one does: of its own tools/call, the task in data.taskId", async () => {
    const controller = new AbortController();
    const signalled = taskServer(() => new Promise<Response>(() => {}));
    const call = failedWith(signalled.client.callTool("demo", "deploy", {}, { signal: controller.signal }));
    await eventually("tasks/result sent", () => signalled.server.requests[4]);
    controller.abort();
    assert.deepEqual(await call, [
      "cancelled",
      undefined,
      'Call of tools/call to server "demo" was cancelled',
      { taskId: "t-1" },
    ]);
    await signalled.client.close();
    assert.deepEqual(sentAfterTask(signalled.server.requests), [[awaiting, cancel], cancelledAwaiting]);

    const time = new FakeTime();
    const late = taskServer(() => new Promise<Response>(() => {}), time);
    assert.deepEqual(await drive(time, failedWith(late.client.callTool("demo", "deploy"))), [
      "timeout",
      undefined,
      'Server "demo": the call did not finish within 1200 ms (maxTotalTimeout)',
      { taskId: "t-1" },
    ]);
    await late.client.close();
    assert.deepEqual(sentAfterTask(late.server.requests), [[awaiting, cancel], cancelledAwaiting]);
    // The cancel's own deadline is cleared with the rest.
    assert.equal(time.pending, 0);
  });

  test("a call's progress goes on reaching onProgress while its task runs, under the token its tools/call carried, and stops once the task ended", async () => {
    let token: unknown;
    const progress = (n: number) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: n },
    });
    const reply = legacyTaskServer((id) =>
      sse([progress(1), progress(2), {
        jsonrpc: "2.0",
        id,
        result: { content: [{ type: "text", text: "done" }] },
      }])
    );
    // A later request's answer carries a stray tick of the ended task: no one hears it.
    const { client, server } = legacySetup((request, index) => {
      if (request.body.method === "tools/call") {
        token = (request.body.params?._meta as { progressToken?: unknown }).progressToken;
      }
      if (request.body.method === "prompts/list") {
        return sse([progress(3), { jsonrpc: "2.0", id: request.body.id, result: { prompts: [] } }]);
      }
      return reply(request, index);
    });
    const heard: unknown[] = [];
    try {
      const result = await client.callTool("demo", "deploy", {}, {
        onProgress: (p) => void heard.push(p.progress),
      });
      assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
      await client.listPrompts("demo");
    } finally {
      await client.close();
    }
    assert.deepEqual([typeof token, heard], ["string", [1, 2]]);
    assert.equal(server.requests.some((request) => request.body.method === "prompts/list"), true);
  });

  test("66 calls awaiting their tasks at once each hear their own task's progress: the bound of 64 tasks forgets only tasks no tasks/result waits on", async () => {
    const calls = 66;
    const tokens = new Map<string, unknown>();
    const waiting = gate();
    let awaiting = 0;
    const { client } = legacySetup(async ({ body: { id, method, params } }, index) => {
      const taskId = String((params as { taskId?: unknown } | undefined)?.taskId);
      if (method === "tools/call") {
        const task = `t-${index}`;
        tokens.set(task, (params?._meta as { progressToken?: unknown }).progressToken);
        return result(id, { task: { ...legacyTask("working"), taskId: task } });
      }
      if (method !== "tasks/result") {
        return legacyTaskServer(() => result(id, {}))({ body: { id, method, params } } as never, index);
      }
      // Every task's result waits until all are awaited, then comes after one tick of its own.
      if (++awaiting === calls) waiting.open();
      await waiting.opened;
      const tick = {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: tokens.get(taskId), progress: 1 },
      };
      return sse([tick, { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: taskId }] } }]);
    });
    const heard = Array.from({ length: calls }, () => 0);
    try {
      await Promise.all(
        heard.map((_, i) =>
          client.callTool("demo", "deploy", {}, { onProgress: () => void (heard[i] = (heard[i] ?? 0) + 1) })
        ),
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(heard, Array(calls).fill(1));
  });

  test("a task id the server gives again takes the progress over: the earlier task's listener is let go", async () => {
    const tokens: unknown[] = [];
    const reply = legacyTaskServer(() => new Promise<Response>(() => {}), "working");
    const { client } = legacySetup((request, index) => {
      const { id, method, params } = request.body;
      if (method === "tools/call") tokens.push((params?._meta as { progressToken?: unknown }).progressToken);
      if (method !== "prompts/list") return reply(request, index);
      // Both calls' tokens tick: only the later task's listener still hears.
      const ticks = tokens.map((token) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: 1 },
      }));
      return sse([...ticks, { jsonrpc: "2.0", id, result: { prompts: [] } }]);
    });
    const heard: string[] = [];
    try {
      for (const name of ["first", "second"]) {
        await client.callTool("demo", "deploy", {}, {
          detachTask: true,
          onProgress: () => void heard.push(name),
        });
      }
      await client.listPrompts("demo");
    } finally {
      await client.close();
    }
    assert.deepEqual([tokens.length, heard], [2, ["second"]]);
  });

  test("close() while a tool call awaits its task sends tasks/cancel before the session's DELETE, and the call fails as a modern one does: cancelled, the task in data.taskId", async () => {
    // The server gives a session id, so the client ends its session with a DELETE.
    const reply = legacyTaskServer(() => new Promise<Response>(() => {}));
    const requests: unknown[] = [];
    const { client, server } = legacySetup(async (request, index) => {
      const response = await reply(request, index);
      if (request.body.method === "initialize") response.headers.set("mcp-session-id", "s-1");
      return response;
    }, {
      onFetch: ({ method, body }) => {
        const sent = method === "POST" ? JSON.parse(String(body)) : { method };
        if (method !== "POST" || sent.id !== undefined) requests.push(sent.method);
      },
    });
    const call = failedWith(client.callTool("demo", "deploy"));
    await eventually("tasks/result sent", () => server.requests[4]);
    await client.close();
    const failed = await call;
    assert.deepEqual(sentAfterTask(server.requests), [[awaiting, cancel], cancelledAwaiting]);
    assert.deepEqual(requests, [
      "initialize",
      "GET",
      "tools/list",
      "tools/call",
      "tasks/result",
      "tasks/cancel",
      "DELETE",
    ]);
    assert.deepEqual(failed, [
      "cancelled",
      undefined,
      'Call of tools/call to server "demo" was cancelled',
      { taskId: "t-1" },
    ]);
  });

  test("close() while awaitTask() awaits a task whose id the caller holds leaves it running, and the wait fails as cancelled", async () => {
    const { client, server } = taskServer(() => new Promise<Response>(() => {}));
    const call = failedWith(client.awaitTask("demo", "t-1"));
    await eventually("tasks/result sent", () => server.requests[2]);
    await client.close();
    assert.deepEqual(await call, [
      "cancelled",
      undefined,
      'Call of tasks/result to server "demo" was cancelled',
      undefined,
    ]);
    const requests = server.requests.filter((request) => request.body.id !== undefined);
    assert.deepEqual(requests.map((request) => request.body.method), ["initialize", "tasks/result"]);
  });

  test("a tool call whose task failed (tasks/result answered an error) sends no tasks/cancel", async () => {
    const { client, server } = taskServer(
      (id) => rpcError(id, -32603, "deploy failed", "disk full"),
      undefined,
      "failed",
    );
    assert.deepEqual(await failedWith(client.callTool("demo", "deploy")), [
      "server",
      -32603,
      'Server "demo" answered tasks/result with error -32603: "deploy failed"',
      "disk full",
    ]);
    await client.close();
    // Asked its status once (a cancelled task is told as cancelled): failed, so the error stands.
    const status = { jsonrpc: "2.0", id: 5, method: "tasks/get", params: { taskId: "t-1" } };
    assert.deepEqual(sentAfterTask(server.requests), [[awaiting, status], []]);
  });

  test("awaitTask() of a task cancelled meanwhile fails as cancelled, as in the modern era, not with tasks/result's error", async () => {
    const { client } = taskServer((id) => rpcError(id, -32603, "Task t-1 has no result stored"));
    assert.deepEqual(await failedWith(client.awaitTask("demo", "t-1")), [
      "cancelled",
      undefined,
      'Task "t-1" of server "demo" was cancelled',
      undefined,
    ]);
    await client.close();
  });

  test("awaitTask() of a task whose id the caller holds leaves it running when its wait is cancelled", async () => {
    const controller = new AbortController();
    const { client, server } = taskServer(() => new Promise<Response>(() => {}));
    const call = failedWith(client.awaitTask("demo", "t-1", { signal: controller.signal }));
    await eventually("tasks/result sent", () => server.requests[2]);
    controller.abort();
    assert.deepEqual(await call, [
      "cancelled",
      undefined,
      'Call of tasks/result to server "demo" was cancelled',
      undefined,
    ]);
    await client.close();
    // No tasks/cancel (the cancellation of tasks/result is a notification sent without waiting).
    const requests = server.requests.filter((request) => request.body.id !== undefined);
    assert.deepEqual(requests.map((request) => request.body.method), ["initialize", "tasks/result"]);
  });
});
