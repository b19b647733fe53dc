// Tasks through the front against a scripted modern upstream, on every runtime: a task's
// input_required status is held to the server's maxInputRequests as a call's round is, before
// any of the gateway's handlers runs. The real peers' tasks: front-tasks.host.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Handler, Policy } from "../../mod.ts";
import { type Reply, result, toolsList } from "../_support/scripted-server.ts";
import { askScriptedFront, scriptedFront } from "../_support/gateway-caller.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import { gate as latch } from "../_support/gate.ts";

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
/** A form of two fields: refused by a policy of `maxFields: 1`. */
const PROFILE = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Who are you?",
    requestedSchema: { type: "object", properties: { name: { type: "string" }, city: { type: "string" } } },
  },
};
/** A sampling request asking for `maxTokens` tokens. */
const sampling = (maxTokens: number) => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens },
});
/** What the gateway sends upstream for a task whose first poll it refuses: the task is cancelled. */
const CANCELLED = [
  ["tools/list", undefined],
  ["tools/call", undefined],
  ["tasks/get", "up-1"],
  ["tasks/cancel", "up-1"],
];
/** The caller's answer to a refused poll. */
const failed = (code: number, message: string, data?: unknown) => ({
  status: 200,
  body: { jsonrpc: "2.0", id: 1, error: { code, message, ...(data === undefined ? {} : { data }) } },
});
const TASK = {
  taskId: "up-1",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  ttlMs: null,
};

/**
 * A gateway in front of an upstream whose task asks `inputRequests` at every `tasks/get`, under
 * the server's `policy`; the gateway's handler answers every form and counts them (unless
 * `elicitation` is given). The caller declares `declared` (elicitation and the tasks extension
 * unless told); the upstream's `server/discover` offers the `offered` extensions (tasks unless told).
 */
function gateway(
  inputRequests: Record<string, unknown>,
  policy: Omit<Policy, "server" | "transport"> = {},
  declared: Record<string, unknown> = META["io.modelcontextprotocol/clientCapabilities"],
  elicitation?: Handler["elicitation"],
  offered: Record<string, unknown> = { [TASKS]: {} },
) {
  const reply: Reply = (req) => {
    switch (req.body.method) {
      case "server/discover":
        return result(req.body.id, {
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, extensions: offered },
        });
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
  };
  const gate = { asked: 0 };
  const { app, client, upstream } = scriptedFront(reply, {
    policy,
    handler: { elicitation: elicitation ?? (() => (gate.asked++, { action: "accept", content: {} })) },
  });
  /** Sends a request that declares `capabilities` (the gateway's `declared` unless told). */
  const send = async (method: string, params: Record<string, unknown>, capabilities = declared) => {
    const meta = { ...META, "io.modelcontextprotocol/clientCapabilities": capabilities };
    const response = await app.fetch(
      new Request("https://gate.example/mcp/up", {
        method: "POST",
        headers: { ...toolCallHeaders(String(params.name ?? params.taskId)), "mcp-method": method },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
      }),
    );
    return { status: response.status, body: await response.json() };
  };
  /** Calls the upstream's task tool; the caller's task id. */
  const start = async () =>
    (await send("tools/call", { name: "slow", arguments: {} })).body.result.taskId as string;
  /** What the gateway sent upstream: each request's method and task id. */
  const sent = () => upstream.requests.map((r) => [r.body.method, r.body.params?.taskId]);
  return { client, upstream, gate, send, start, sent };
}

/** A gateway whose upstream task asks `entries` forms at once, under `maxInputRequests: 2`. */
function gatewayAsking(entries: number) {
  return gateway(
    Object.fromEntries(Array.from({ length: entries }, (_, i) => [`k${i}`, GO])),
    { maxInputRequests: 2 },
  );
}

describe("the front's tasks/get and maxInputRequests", () => {
  test("a task status of 3 input requests under maxInputRequests 2 fails the poll before any handler runs, and cancels the task", async () => {
    const { client, gate, send, start, sent } = gatewayAsking(3);
    const taskId = await start();
    assert.deepEqual(
      await send("tasks/get", { taskId }),
      failed(-32603, 'Server "up" sent 3 input requests in one round, expected at most 2 (maxInputRequests)'),
    );
    assert.deepEqual([gate.asked, sent()], [0, CANCELLED]);
    await client.close();
  });

  test("a task status of exactly maxInputRequests 2 is answered by the handler, and the caller sees working; the call's event ends task", async () => {
    const { client, upstream, gate, send, start } = gatewayAsking(2);
    const outcomes: string[] = [];
    client.onDecision((event) =>
      void (event.type === "call" && outcomes.push(`${event.name} ${event.outcome}`))
    );
    const taskId = await start();
    assert.deepEqual(outcomes, ["slow task"]);
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

  test("a poll made while another poll's handler answers the task's entry does not run it again: it answers working at once, and the entry's answer goes upstream once", async () => {
    const asked = latch();
    const release = latch();
    let answers = 0;
    // The first answer is held until the test releases it; any other would come at once.
    const held: Handler["elicitation"] = async () => {
      if (++answers === 1) {
        asked.open();
        await release.opened;
      }
      return { action: "accept", content: {} };
    };
    const { client, send, start, sent } = gateway({ k0: GO }, {}, undefined, held);
    const taskId = await start();
    const working = {
      status: 200,
      body: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", status: "working", ...TASK, taskId } },
    };
    const first = send("tasks/get", { taskId });
    await asked.opened;
    assert.deepEqual([await send("tasks/get", { taskId }), answers], [working, 1]);
    release.open();
    assert.deepEqual(await first, working);
    assert.deepEqual(await send("tasks/get", { taskId }), working);
    assert.deepEqual([answers, sent().filter(([method]) => method === "tasks/update")], [1, [[
      "tasks/update",
      "up-1",
    ]]]);
    await client.close();
  });
});

describe("the front's tasks methods need the extension declared on the request", () => {
  test("tasks/get, tasks/update and tasks/cancel without it are -32021 naming the extension, and only a discovery goes upstream", async () => {
    const { client, send, start, sent } = gateway({ k0: GO });
    const taskId = await start();
    const requests = [
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: {} }],
      ["tasks/cancel", { taskId }],
    ] as const;
    const answers = [];
    for (const [method, params] of requests) answers.push(await send(method, params, { elicitation: {} }));
    assert.deepEqual(
      answers,
      requests.map(([method]) => ({
        ...failed(
          -32021,
          `Missing required client capability: ${method} needs the "${TASKS}" extension in the ` +
            "request's client capabilities",
          { requiredCapabilities: { extensions: { [TASKS]: {} } } },
        ),
        status: 400,
      })),
    );
    assert.deepEqual(sent(), [
      ["tools/list", undefined],
      ["tools/call", undefined],
      ["server/discover", undefined],
      ["server/discover", undefined],
      ["server/discover", undefined],
    ]);
    await client.close();
  });
});

describe("the front's tasks refusals follow the upstream's server/discover", () => {
  test("without the extension offered, tasks/get, tasks/update and tasks/cancel are 404 -32601 for callers with and without it, after one discovery each", async () => {
    const { client, send, sent } = gateway({ k0: GO }, {}, undefined, undefined, {});
    const requests = [
      ["tasks/get", { taskId: "up-1" }],
      ["tasks/update", { taskId: "up-1", inputResponses: {} }],
      ["tasks/cancel", { taskId: "up-1" }],
    ] as const;
    const answers = [];
    for (const [method, params] of requests) {
      answers.push(await send(method, params), await send(method, params, { elicitation: {} }));
    }
    const notFound = (method: string) => ({
      ...failed(-32601, `Method not found: "${method}"`),
      status: 404,
    });
    assert.deepEqual(answers, requests.flatMap(([method]) => [notFound(method), notFound(method)]));
    assert.deepEqual(sent(), Array.from({ length: 6 }, () => ["server/discover", undefined]));
    await client.close();
  });

  test("with it offered, an id the gateway never gave, or one not a string, is -32602, after one discovery each", async () => {
    const { client, send, sent } = gateway({ k0: GO });
    assert.deepEqual(
      await send("tasks/get", { taskId: "up-1" }),
      failed(-32602, 'Invalid params: no task "up-1"'),
    );
    assert.deepEqual(
      await send("tasks/get", { taskId: 7 }),
      failed(-32602, 'Invalid params: "taskId" must be a string'),
    );
    assert.deepEqual(sent(), [["server/discover", undefined], ["server/discover", undefined]]);
    await client.close();
  });

  test("a discovery answer that breaks the schema is -32010 (the upstream broke the protocol), not a guess either way", async () => {
    // An extension's settings must be an object.
    const { client, send, sent } = gateway({ k0: GO }, {}, undefined, undefined, { [TASKS]: "yes" });
    assert.deepEqual(
      await send("tasks/get", { taskId: "up-1" }),
      failed(-32010, 'Upstream server "up" is unavailable: it broke the protocol', {
        serverId: "up",
        cause: "protocol",
      }),
    );
    assert.deepEqual(sent(), [["server/discover", undefined]]);
    await client.close();
  });
});

describe("the front's tasks/get runs a task's input requests as a call's round", () => {
  test("a passed-down sampling request whose maxTokens the policy capped says so under _meta, on every poll", async () => {
    const think = sampling(999999);
    const { client, send, start, sent } = gateway(
      { think },
      { passDown: ["sampling"], sampling: { maxTokens: 512 } },
      { sampling: {}, extensions: { [TASKS]: {} } },
    );
    const taskId = await start();
    const shown = {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          status: "input_required",
          ...TASK,
          taskId,
          inputRequests: {
            think: {
              method: "sampling/createMessage",
              params: {
                ...think.params,
                maxTokens: 512,
                _meta: { "sluice/changes": [{ field: "maxTokens", from: 999999, to: 512 }] },
              },
            },
          },
        },
      },
    };
    assert.deepEqual(await send("tasks/get", { taskId }), shown);
    assert.deepEqual(await send("tasks/get", { taskId }), shown);
    assert.deepEqual(sent(), [
      ["tools/list", undefined],
      ["tools/call", undefined],
      ["tasks/get", "up-1"],
      ["tasks/get", "up-1"],
    ]);
    await client.close();
  });

  test("an entry the policy refuses fails the poll in a call round's words, and cancels the task", async () => {
    const { client, gate, send, start, sent } = gateway({ profile: PROFILE }, {
      elicitation: { maxFields: 1 },
    });
    const taskId = await start();
    assert.deepEqual(
      await send("tasks/get", { taskId }),
      failed(
        -32602,
        'Input request "profile" refused by policy: Elicitation schema refused: keyword "properties": expected at most 1 properties, received 2',
      ),
    );
    assert.deepEqual([gate.asked, sent()], [0, CANCELLED]);
    await client.close();
  });

  test("the entries run at once: a refusal stops a sibling's handler through its signal", async () => {
    const heard: string[] = [];
    const waitForAbort: Handler["elicitation"] = (params, ctx) =>
      new Promise((resolve) => {
        heard.push(`asked ${params.message}`);
        ctx.signal.addEventListener("abort", () => {
          heard.push(`aborted ${params.message}`);
          resolve({ action: "cancel" });
        });
      });
    const { client, send, start, sent } = gateway(
      { profile: PROFILE, go: GO },
      { elicitation: { maxFields: 1 } },
      undefined,
      waitForAbort,
    );
    const taskId = await start();
    assert.deepEqual((await send("tasks/get", { taskId })).body.error, {
      code: -32602,
      message:
        'Input request "profile" refused by policy: Elicitation schema refused: keyword "properties": expected at most 1 properties, received 2',
    });
    assert.deepEqual([heard, sent().at(-1)], [["asked Go?", "aborted Go?"], ["tasks/cancel", "up-1"]]);
    await client.close();
  });

  test("a passed-down entry the caller did not declare fails the poll with -32021 and leaves the task to a poll that declares it; its decision event says it went down, and nothing ended it", async () => {
    const { client, send, start, sent } = gateway({ think: sampling(10) }, { passDown: ["sampling"] });
    const outcomes: string[] = [];
    client.onDecision((event) => void (event.type === "input" && outcomes.push(event.outcome)));
    const taskId = await start();
    // A missing client capability is HTTP 400 (2026-07-28: "the response status MUST be 400").
    assert.deepEqual(
      await send("tasks/get", { taskId }),
      {
        ...failed(
          -32021,
          "The upstream server needs input that only the caller can give, and the caller did not declare it",
          { requiredCapabilities: { sampling: {} } },
        ),
        status: 400,
      },
    );
    assert.deepEqual(sent(), [["tools/list", undefined], ["tools/call", undefined], ["tasks/get", "up-1"]]);
    // The next poll asks it again, with events of its own.
    assert.deepEqual(outcomes, ["deferred"]);
    await client.close();
  });

  test("an entry of a kind the gateway did not declare upstream fails the poll before any sibling's handler runs", async () => {
    const { client, gate, send, start, sent } = gateway({ k0: GO, k1: sampling(10) });
    const taskId = await start();
    assert.deepEqual(
      await send("tasks/get", { taskId }),
      failed(-32603, 'Input request "k1" asked for a capability this gateway did not declare'),
    );
    assert.deepEqual([gate.asked, sent()], [0, CANCELLED]);
    await client.close();
  });
});

describe("a caller's task ends in one decision event, from the poll that finds it ended", () => {
  /** A task id as messages quote it: its first 96 characters (the event's name holds it whole). */
  const shown = (taskId: string) => `${taskId.slice(0, 96)}…`;
  /** A gateway whose upstream task is `working` at the first poll and `end` at every later one. */
  async function endedBy(end: Record<string, unknown>) {
    let polls = 0;
    const front = scriptedFront((req) => {
      switch (req.body.method) {
        case "server/discover":
          return result(req.body.id, {
            resultType: "complete",
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {}, extensions: { [TASKS]: {} } },
          });
        case "tools/list":
          return toolsList(req.body.id, []);
        case "tools/call":
          return result(req.body.id, { resultType: "task", status: "working", ...TASK });
        default:
          return result(req.body.id, {
            resultType: "complete",
            ...TASK,
            ...(polls++ === 0 ? { status: "working" } : end),
          });
      }
    });
    const events: unknown[] = [];
    front.client.onDecision((event) => {
      if (event.type === "call" && event.method === "tasks/get") {
        const { time: _time, durationMs: _durationMs, ...rest } = event;
        events.push(rest);
      }
    });
    const capabilities = META["io.modelcontextprotocol/clientCapabilities"];
    const call = await askScriptedFront(front, "tools/call", { name: "slow", arguments: {} }, {
      capabilities,
    });
    const taskId = (call.body as { result: { taskId: string } }).result.taskId;
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const headers = { "mcp-name": taskId };
      const polled = await askScriptedFront(front, "tasks/get", { taskId }, { capabilities, headers });
      statuses.push((polled.body as { result: { status: string } }).result.status);
    }
    await front.client.close();
    const event = { type: "call", client: "gate", server: "up", method: "tasks/get", name: taskId };
    return { statuses, events, event, taskId };
  }

  test("completed: its result's outcome, once however often the caller polls after", async () => {
    const { statuses, events, event } = await endedBy({
      status: "completed",
      result: { content: [{ type: "text", text: "done" }], isError: true },
    });
    assert.deepEqual([statuses, events], [["working", "completed", "completed"], [{
      ...event,
      outcome: "tool_error",
    }]]);
  });

  test("failed: the server's error, naming the task as its caller holds it", async () => {
    const { statuses, events, event, taskId } = await endedBy({
      status: "failed",
      error: { code: -32603, message: "disk full" },
    });
    assert.deepEqual([statuses, events], [["working", "failed", "failed"], [{
      ...event,
      outcome: "failed",
      error: {
        kind: "server",
        code: -32603,
        message: `Server "up" answered task "${shown(taskId)}" with error -32603: "disk full"`,
      },
    }]]);
  });

  test("cancelled: a cancelled failure", async () => {
    const { statuses, events, event, taskId } = await endedBy({ status: "cancelled" });
    assert.deepEqual([statuses, events], [["working", "cancelled", "cancelled"], [{
      ...event,
      outcome: "failed",
      error: { kind: "cancelled", message: `Task "${shown(taskId)}" of server "up" was cancelled` },
    }]]);
  });
});
