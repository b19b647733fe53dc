// A modern caller's tools/call through the front to a legacy upstream whose tool must run as a
// task: the front awaits the task itself (a modern caller gets no 2025-11-25 task), and when the
// call ends first (the caller leaves, maxTotalTimeout, the caller's answer to the task's input
// request refused) it cancels the task upstream with tasks/cancel. Runs on every runtime, against
// a scripted legacy upstream reached through the client's injected fetch.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/legacy/legacy-client.ts";
import { createFront } from "../../src/front/create-front.ts";
import {
  legacyTaskServer,
  postsOnly,
  scriptedServer,
  type SeenRequest,
  sentAfterTask,
} from "../_support/scripted-server.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest } from "../_support/gateway-caller.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import { eventually } from "../_support/eventually.ts";

const KEY = "front-legacy-call-state-key-0123456789abcdef";

/** The task's question, sent on the tasks/result stream. */
const ASKED = {
  jsonrpc: "2.0",
  id: "e-1",
  method: "elicitation/create",
  params: {
    message: "How many?",
    requestedSchema: { type: "object", properties: { n: { type: "number" } } },
    _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-1" } },
  },
};

/** An SSE response carrying `messages` that stays open. */
function openStream(messages: unknown[]): Response {
  const text = messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join("");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/**
 * A front over a {@linkcode legacyTaskServer} whose `tasks/result` stays open (sending `asked`
 * first) and never ends.
 */
function frontOverTask(options: { readonly asked?: unknown[]; readonly time?: FakeTime } = {}) {
  const upstream = scriptedServer(legacyTaskServer(() => openStream(options.asked ?? [])));
  const { time } = options;
  const client = createClient({
    name: "gate",
    fetch: postsOnly(upstream),
    ...(time === undefined ? {} : { timers: time, clock: time }),
    policies: [{
      server: "demo",
      transport: { url: "https://upstream.example/mcp" },
      era: "legacy",
      passDown: ["elicitation"],
      maxTotalTimeout: "1200ms",
    }],
  });
  const app = createFront({ client, stateKey: KEY, heartbeat: false });
  return { client, app, upstream };
}

/** A modern caller's tools/call of `deploy`, declaring elicitation. */
function deploy(extra: Record<string, unknown> = {}, signal?: AbortSignal): Request {
  const request = modernRequest(`${LOOPBACK}/mcp/demo`, "tools/call", {
    name: "deploy",
    arguments: {},
    _meta: modernMeta({ elicitation: {} }),
    ...extra,
  });
  return signal === undefined ? request : new Request(request, { signal });
}

/** Waits for the tasks/cancel, which the front sends after answering its caller. */
function cancelled(requests: readonly SeenRequest[]): Promise<unknown> {
  return eventually(
    "the upstream tasks/cancel",
    () => requests.find((r) => r.body.method === "tasks/cancel"),
  );
}

const SENT = [
  [
    { jsonrpc: "2.0", id: 4, method: "tasks/result", params: { taskId: "t-1" } },
    { jsonrpc: "2.0", id: 5, method: "tasks/cancel", params: { taskId: "t-1" } },
  ],
  [["notifications/cancelled", { requestId: 4, reason: "cancelled by the client" }]],
];

describe("frontLegacyCall() awaiting a legacy upstream's task for a modern caller", () => {
  test("cancels the task upstream when the caller leaves", async () => {
    const { client, app, upstream } = frontOverTask();
    const controller = new AbortController();
    const answered = app.request(deploy({}, controller.signal));
    await eventually("the upstream tasks/result", () => upstream.requests[4]);
    controller.abort();
    assert.deepEqual((await answerOf(await answered)).body, {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "The call was cancelled" },
    });
    await cancelled(upstream.requests);
    await client.close();
    assert.deepEqual(sentAfterTask(upstream.requests), SENT);
  });

  test("cancels the task upstream when maxTotalTimeout passes", async () => {
    const time = new FakeTime();
    const { client, app, upstream } = frontOverTask({ time });
    const answer = await drive(time, (async () => answerOf(await app.request(deploy())))());
    assert.deepEqual(answer.body, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: 'Upstream server "demo" is unavailable: timed out',
        data: { serverId: "demo", cause: "timed_out" },
      },
    });
    await client.close();
    assert.deepEqual(sentAfterTask(upstream.requests), SENT);
  });

  test("cancels the task upstream when the caller's answer to its input request is refused", async () => {
    const { client, app, upstream } = frontOverTask({ asked: [ASKED] });
    const asked = (await answerOf(await app.request(deploy()))).body as {
      result: { inputRequests: Record<string, unknown>; requestState: string };
    };
    const keys = Object.keys(asked.result.inputRequests);
    assert.deepEqual(keys, ["input-1"]);
    const refused = await answerOf(
      await app.request(deploy({
        inputResponses: { "input-1": { action: "accept", content: { n: "many" } } },
        requestState: asked.result.requestState,
      })),
    );
    assert.deepEqual(refused.body, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message:
          'Answer to input request "input-1" refused: Elicitation answer refused: field "n" expected a number, received a string',
      },
    });
    await cancelled(upstream.requests);
    await client.close();
    assert.deepEqual(sentAfterTask(upstream.requests), SENT);
  });
});
