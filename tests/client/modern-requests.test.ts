import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type Reply,
  result,
  rpcError,
  type SeenRequest,
  sse,
  toolsList,
} from "../_support/scripted-server.ts";
import type { Policy } from "../../src/policy/policy.ts";
import type { CreateTaskResult } from "../../src/protocol/tasks.ts";
import type { NotificationEntry } from "../../src/notify/notification-entry.ts";
import { drive, FakeTime, settle } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";
import { createClient } from "../../src/client/create-client.ts";
import { gate } from "../_support/gate.ts";
import { eventually } from "../_support/eventually.ts";
import {
  callWithThrowingProgress,
  CLEAN_PROGRESS,
  progressThenResult,
} from "../_support/throwing-progress.ts";
import { HEARD_IN_ORDER, orderRecorder, progressAndLogs } from "../_support/delivery-order.ts";
import { cancelFirstOfTwo, failure, meta, plain, setup } from "./_client-fixtures.ts";

const echoTool = {
  name: "echo",
  inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
};
const badTool = {
  name: "bad",
  inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } },
};

/** A `tasks/get` answer for the task `t-1` in `status`, polled every 500 ms. */
function taskAnswer(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resultType: "complete",
    taskId: "t-1",
    status,
    createdAt: "2026-01-01T00:00:00Z",
    lastUpdatedAt: "2026-01-01T00:00:00Z",
    ttlMs: null,
    pollIntervalMs: 500,
    ...extra,
  };
}

/**
 * A server whose `tools/call` becomes the task `t-1`, answering every other request with an empty
 * complete result.
 *
 * @param polled The answer to the `polls`th `tasks/get` (from 1).
 * @returns The server's replies.
 */
function taskServer(polled: (polls: number) => Record<string, unknown>): Reply {
  let polls = 0;
  return (req) => {
    switch (req.body.method) {
      case "tools/list":
        return toolsList(req.body.id, []);
      case "tools/call":
        return result(req.body.id, { ...taskAnswer("working"), resultType: "task" });
      case "tasks/get":
        return result(req.body.id, polled(++polls));
      default:
        return result(req.body.id, { resultType: "complete" });
    }
  };
}

/**
 * A client over a server whose `tools/list` answer (the tool `echo`) waits at `listAnswered`, and
 * which answers every other request with no content.
 *
 * @param listAnswered The gate the listing's answer waits at.
 * @returns The client and the server.
 */
function heldListServer(listAnswered: ReturnType<typeof gate>) {
  return setup(async (req) => {
    if (req.body.method !== "tools/list") {
      return result(req.body.id, { resultType: "complete", content: [] });
    }
    await listAnswered.opened;
    return toolsList(req.body.id, [echoTool]);
  });
}

describe("createClient() requests", () => {
  test("sends the MCP headers, Mcp-Param-* from x-mcp-header, and excludes tools with invalid annotations", async () => {
    const { client, server } = setup((req) =>
      req.body.method === "tools/list"
        ? toolsList(req.body.id, [echoTool, badTool])
        : result(req.body.id, { content: [] })
    );
    const listed = await client.listTools("demo");
    assert.deepEqual(listed.tools.map((t) => t.name), ["echo"]);
    await client.callTool("demo", "echo", { region: "Zürich " });
    const headers = server.requests[1]?.headers ?? {};
    assert.deepEqual(
      [
        headers["mcp-protocol-version"],
        headers["mcp-method"],
        headers["mcp-name"],
        headers["mcp-param-region"],
        headers["accept"],
      ],
      ["2026-07-28", "tools/call", "echo", "=?base64?WsO8cmljaCA=?=", "application/json, text/event-stream"],
    );
    const [kind, , message] = await failure(client.callTool("demo", "bad", { n: 1.5 }));
    assert.deepEqual([kind, message.startsWith('Tool "bad" of server "demo" cannot be called: ')], [
      "config",
      true,
    ]);
    assert.equal(server.requests.length, 2);
  });

  test("retries once with a supported version on -32022, and fails when none is shared", async () => {
    const { client, server } = setup((req, i) =>
      i === 0
        ? rpcError(req.body.id, -32022, "Unsupported protocol version", {
          supported: ["2026-07-28"],
          requested: "x",
        }, 400)
        : result(req.body.id, { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} })
    );
    assert.deepEqual(plain(await client.discover("demo")), {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: {},
    });
    assert.deepEqual(server.requests.map((r) => [r.body.id, r.headers["mcp-protocol-version"]]), [[
      1,
      "2026-07-28",
    ], [2, "2026-07-28"]]);
    const legacyOnly = setup((req) =>
      rpcError(
        req.body.id,
        -32022,
        "Unsupported",
        { supported: ["2025-11-25"], requested: "2026-07-28" },
        400,
      )
    );
    assert.deepEqual(await failure(legacyOnly.client.discover("demo")), [
      "protocol",
      -32022,
      'Server "demo" refused server/discover: it supports "2025-11-25", and this client speaks "2026-07-28" in the modern era',
    ]);
  });

  test("fails with the server's -32021 and its requiredCapabilities, named in the message", async () => {
    const required = { elicitation: { url: {}, form: {} }, sampling: {} };
    const { client } = setup((req) =>
      req.body.method === "tools/list"
        ? toolsList(req.body.id, [])
        : rpcError(req.body.id, -32021, "Missing capability", { requiredCapabilities: required }, 400)
    );
    const error = await client.callTool("demo", "x").catch((e) => e);
    assert.deepEqual([error.kind, error.code, plain(error.data), error.message], [
      "server",
      -32021,
      { requiredCapabilities: required },
      'Server "demo" answered tools/call with error -32021: "Missing capability"; it needs the client capabilities "elicitation.url", "elicitation.form", "sampling"',
    ]);
  });

  test("refreshes the tool list once and retries when -32020 follows Mcp-Param headers", async () => {
    let listed = 0;
    const { client, server } = setup((req) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, [echoTool]);
      return ++listed === 1
        ? rpcError(req.body.id, -32020, "Header mismatch", undefined, 400)
        : result(req.body.id, { content: [] });
    });
    await client.callTool("demo", "echo", { region: "eu" });
    assert.deepEqual(server.requests.map((r) => r.body.method), [
      "tools/list",
      "tools/call",
      "tools/list",
      "tools/call",
    ]);
  });

  test("lists every page before calling a tool not on the page the caller listed, and sends its Mcp-Param-*", async () => {
    const plainTool = { name: "plain", inputSchema: { type: "object" } };
    const { client, server } = setup((req) => {
      const { id, method, params } = req.body;
      if (method === "tools/list") {
        return params?.cursor === "p2" ? toolsList(id, [echoTool]) : result(id, {
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          tools: [plainTool],
          nextCursor: "p2",
        });
      }
      return req.headers["mcp-param-region"] === "eu" || params?.name === "plain"
        ? result(id, { resultType: "complete", content: [] })
        : rpcError(id, -32020, "Mcp-Param-Region header missing or mismatched", undefined, 400);
    });
    assert.deepEqual((await client.listTools("demo")).tools.map((t) => t.name), ["plain"]);
    assert.deepEqual(plain(await client.callTool("demo", "plain")), { resultType: "complete", content: [] });
    assert.deepEqual(plain(await client.callTool("demo", "echo", { region: "eu" })), {
      resultType: "complete",
      content: [],
    });
    await client.callTool("demo", "echo", { region: "eu" });
    assert.deepEqual(
      server.requests.map((
        r,
      ) => [r.body.method, r.body.params?.cursor ?? r.body.params?.name, r.headers["mcp-param-region"]]),
      [
        ["tools/list", undefined, undefined],
        ["tools/call", "plain", undefined],
        ["tools/list", undefined, undefined],
        ["tools/list", "p2", undefined],
        ["tools/call", "echo", "eu"],
        ["tools/call", "echo", "eu"],
      ],
    );
  });

  test("refreshes the tool list once and retries when -32020 follows a call sent without Mcp-Param headers", async () => {
    // The server adds echo, with its header, after the client read the whole list; ask-me never takes its call.
    const plainTool = { name: "plain", inputSchema: { type: "object" } };
    let tools: unknown[] = [plainTool];
    const { client, server } = setup((req) => {
      const { id, method, params } = req.body;
      if (method === "tools/list") return toolsList(id, tools);
      return req.headers["mcp-param-region"] === "eu" || params?.name === "plain"
        ? result(id, { resultType: "complete", content: [] })
        : rpcError(id, -32020, "Mcp-Param-Region header missing or mismatched", undefined, 400);
    });
    await client.callTool("demo", "plain");
    tools = [plainTool, echoTool];
    assert.deepEqual(plain(await client.callTool("demo", "echo", { region: "eu" })), {
      resultType: "complete",
      content: [],
    });
    assert.deepEqual(await failure(client.callTool("demo", "ask-me")), [
      "server",
      -32020,
      'Server "demo" answered tools/call with error -32020: "Mcp-Param-Region header missing or mismatched"',
    ]);
    assert.deepEqual(
      server.requests.map((r) => [r.body.method, r.body.params?.name, r.headers["mcp-param-region"]]),
      [
        ["tools/list", undefined, undefined],
        ["tools/call", "plain", undefined],
        ["tools/call", "echo", undefined],
        ["tools/list", undefined, undefined],
        ["tools/call", "echo", "eu"],
        ["tools/call", "ask-me", undefined],
        ["tools/list", undefined, undefined],
        ["tools/call", "ask-me", undefined],
      ],
    );
  });

  test("re-issues a request once with a new id when its stream breaks, and fails on a second break", async () => {
    const broken = () =>
      sse(
        [{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "z", progress: 1 } }],
        { close: false },
      );
    const once = setup((req, i) =>
      i === 0
        ? broken()
        : result(req.body.id, { resultType: "complete", supportedVersions: [], capabilities: {} })
    );
    await once.client.discover("demo");
    assert.deepEqual(once.server.requests.map((r) => r.body.id), [1, 2]);
    const twice = setup(() => broken());
    const [kind, , message] = await failure(twice.client.discover("demo"));
    assert.deepEqual([
      kind,
      message.startsWith('Server "demo": the response to server/discover broke off twice'),
    ], ["transport", true]);
  });

  test("times a leg out after callTimeout, and a flow at maxTotalTimeout, with fake timers", async () => {
    const time = new FakeTime();
    const slow = setup(() => new Promise<Response>(() => {}), {
      policy: { callTimeout: "30s" },
      timers: time,
    });
    let settledEarly = false;
    const outcome = failure(slow.client.discover("demo")).finally(() => (settledEarly = true));
    await time.advance(29_999);
    assert.equal(settledEarly, false);
    await time.advance(1);
    assert.deepEqual(await outcome, [
      "timeout",
      undefined,
      'Server "demo": no response to server/discover within 30000 ms (callTimeout)',
    ]);
    const total = setup(() => new Promise<Response>(() => {}), {
      policy: { callTimeout: "6m", maxTotalTimeout: "6m" },
      timers: time,
    });
    const whole = failure(total.client.discover("demo"));
    await time.advance(360_000);
    assert.deepEqual(await whole, [
      "timeout",
      undefined,
      'Server "demo": the call did not finish within 360000 ms (maxTotalTimeout)',
    ]);
    assert.equal(time.pending, 0);
  });

  test("cancels a call when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const { client } = setup(() => new Promise<Response>(() => {}));
    const pending = failure(client.discover("demo", { signal: controller.signal }));
    await settle();
    controller.abort();
    assert.deepEqual(await pending, [
      "cancelled",
      undefined,
      'Call of server/discover to server "demo" was cancelled',
    ]);
  });

  test("a call cancelled while the first tools/list runs fails alone: the other call waiting for it goes on", async () => {
    const listAnswered = gate();
    const { client, server } = heldListServer(listAnswered);
    const call = (signal: AbortSignal) => client.callTool("demo", "echo", { region: "b" }, { signal });
    assert.deepEqual(await cancelFirstOfTwo(call, { gate: listAnswered, sent: () => server.requests[0] }), [
      ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled'],
      { resultType: "complete", content: [] },
    ]);
    await client.close();
    // One list for both calls; only the call that was not cancelled, with its Mcp-Param header.
    assert.deepEqual(
      server.requests.map((request) => [request.body.method, request.headers["mcp-param-region"]]),
      [["tools/list", undefined], ["tools/call", "b"]],
    );
  });

  test("a call made once the first tools/list was stopped by its only caller leaving lists anew, where it got that listing's cancellation", async () => {
    const listAnswered = gate();
    const { client, server } = heldListServer(listAnswered);
    const controller = new AbortController();
    const first = failure(client.callTool("demo", "echo", { region: "a" }, { signal: controller.signal }));
    await eventually("the first tools/list sent", () => server.requests[0]);
    controller.abort();
    // In the same turn: the stopped listing has not settled yet.
    const second = client.callTool("demo", "echo", { region: "b" });
    listAnswered.open();
    assert.deepEqual(await first, [
      "cancelled",
      undefined,
      'Call of tools/call to server "demo" was cancelled',
    ]);
    assert.deepEqual(await second, { resultType: "complete", content: [] });
    await client.close();
    // The stopped listing, the second call's own listing, then its call with its Mcp-Param header.
    assert.deepEqual(
      server.requests.map((request) => [request.body.method, request.headers["mcp-param-region"]]),
      [["tools/list", undefined], ["tools/list", undefined], ["tools/call", "b"]],
    );
  });

  test("close() cancels the calls in flight, clears their deadlines, and refuses later calls", async () => {
    const time = new FakeTime();
    const { client } = setup(() => new Promise<Response>(() => {}), { timers: time });
    const pending = [failure(client.discover("demo")), failure(client.discover("demo"))];
    await settle();
    assert.equal(time.pending, 4); // per call: the flow's maxTotalTimeout and the leg's callTimeout
    await client.close();
    const cancelled = ["cancelled", undefined, 'Call of server/discover to server "demo" was cancelled'];
    assert.deepEqual(await Promise.all(pending), [cancelled, cancelled]);
    assert.equal(time.pending, 0);
  });

  test("delivers notifications that arrive before the response, and progress to onProgress", async () => {
    const heard: unknown[] = [];
    const progress: unknown[] = [];
    const { client } = setup((req) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      const token = (req.body.params?._meta as { progressToken?: string }).progressToken;
      return sse([
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2 },
        },
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "demo://x" } },
        { jsonrpc: "2.0", id: req.body.id, result: { content: [] } },
      ]);
    }, { handler: { notification: (method, params, ctx) => void heard.push([method, params, ctx]) } });
    await client.callTool("demo", "t", {}, { onProgress: (p) => void progress.push(p) });
    await settle();
    same(progress, [np({ progressToken: "sluice-1", progress: 1, total: 2 })]);
    same(heard, [["notifications/resources/updated", np({ uri: "demo://x" }), {
      client: "agent",
      serverId: "demo",
      era: "modern",
    }]]);
  });

  test("onProgress hears only progress that rises over the whole call, as a server MUST send it: nothing that goes back, repeats, is no number or is missing, nor a later round counting from 0 again", async () => {
    const progress: unknown[] = [];
    const ask = {
      method: "elicitation/create",
      params: { message: "Sure?", requestedSchema: { type: "object", properties: {} } },
    };
    const { client } = setup((req) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      const progressToken = (req.body.params?._meta as { progressToken?: string }).progressToken;
      const retry = req.body.params?.inputResponses !== undefined;
      const sent = (retry ? [1, 3, 12] : [10, 2, "abc", null, undefined, 10, 11]).map((value) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: value === undefined ? { progressToken } : { progressToken, progress: value },
      }));
      const answer = retry
        ? { content: [] }
        : { resultType: "input_required", inputRequests: { sure: ask }, requestState: "s" };
      return sse([...sent, { jsonrpc: "2.0", id: req.body.id, result: answer }]);
    }, { handler: { elicitation: () => ({ action: "accept", content: {} }) } });
    await client.callTool("demo", "t", {}, { onProgress: (p) => void progress.push(p) });
    await settle();
    await client.close();
    same(progress, [
      np({ progressToken: "sluice-1", progress: 10 }),
      np({ progressToken: "sluice-1", progress: 11 }),
      np({ progressToken: "sluice-2", progress: 12 }),
    ]);
  });

  test("callTool() delivers progress and log entries of one SSE read in the order the server sent them: onProgress, handler.log and a subscriber interleave, all before the result", async () => {
    const { heard, handler, subscriber, onProgress } = orderRecorder();
    const { client } = setup((req) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      const token = (req.body.params?._meta as { progressToken?: string }).progressToken;
      return sse([...progressAndLogs(token), { jsonrpc: "2.0", id: req.body.id, result: { content: [] } }]);
    }, { handler });
    client.onNotification(subscriber);
    await client.callTool("demo", "t", {}, { onProgress });
    heard.push("result");
    await client.close();
    assert.deepEqual(heard, HEARD_IN_ORDER);
  });

  test("onProgress hears the progress sanitized; its throw is logged and skipped, and the call returns the server's result", async () => {
    const { client } = setup((req) =>
      req.body.method === "tools/list" ? toolsList(req.body.id, []) : progressThenResult(req)
    );
    const { value, heard, logged } = await callWithThrowingProgress((onProgress) =>
      client.callTool("demo", "t", {}, { onProgress })
    );
    await client.close();
    assert.deepEqual(value, { content: [] });
    same(heard, [np({ progressToken: "sluice-1", progress: 1, message: CLEAN_PROGRESS })]);
    assert.deepEqual(logged, [[
      `A call's onProgress threw on "notifications/progress" from server "demo": "ui gone"`,
    ]]);
  });

  test("asks every request for logs at the policy's logLevel: a subscriber alone hears them, a client hearing none drops them", async () => {
    // As the spec requires, the server sends a log entry only on a request that asked for a level.
    const levelAsked = (req: SeenRequest) =>
      (req.body.params?._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"];
    const reply = (req: SeenRequest) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      if (levelAsked(req) === undefined) return result(req.body.id, { content: [] });
      return sse([
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", data: "disk\u202E full" },
        },
        { jsonrpc: "2.0", id: req.body.id, result: { content: [] } },
      ]);
    };
    const subscribed = setup(reply);
    const heard: NotificationEntry[] = [];
    subscribed.client.onNotification((entry) => void heard.push(entry));
    const silent = setup(reply, { policy: { logLevel: "error" } });
    assert.deepEqual(await subscribed.client.callTool("demo", "t"), { content: [] });
    assert.deepEqual(await silent.client.callTool("demo", "t"), { content: [] });
    await eventually("the log entry heard", () => heard.length > 0 || undefined);
    await Promise.all([subscribed.client.close(), silent.client.close()]);
    assert.deepEqual([subscribed.server, silent.server].map((server) => server.requests.map(levelAsked)), [
      ["info", "info"],
      ["error", "error"],
    ]);
    same(heard, [{
      kind: "log",
      serverId: "demo",
      era: "modern",
      method: "notifications/message",
      log: { level: "error", data: "disk full" },
    }]);
    same([subscribed.client.stats(), silent.client.stats()], [
      np({ demo: { delivered: 1, dropped: 0, rateLimited: 0 } }),
      np({}),
    ]);
  });

  test("passes on no log entry below the policy's logLevel, which a server sends though it was asked not to", async () => {
    const reply = (req: SeenRequest) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      return sse([
        ...["debug", "info", "warning", "error"].map((level) => ({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level, data: level },
        })),
        { jsonrpc: "2.0", id: req.body.id, result: { content: [] } },
      ]);
    };
    const { client } = setup(reply, { policy: { logLevel: "warning" } });
    const heard: unknown[] = [];
    client.onNotification((entry) => void heard.push(entry.kind === "log" ? entry.log.level : entry.kind));
    assert.deepEqual(await client.callTool("demo", "t"), { content: [] });
    await eventually("the log entries heard", () => heard.length >= 2 || undefined);
    await client.close();
    assert.deepEqual(heard, ["warning", "error"]);
    same(client.stats(), np({ demo: { delivered: 2, dropped: 0, rateLimited: 0 } }));
  });

  test("asks for logs at the policy's logLevel, and delivers them to the handler sanitized within the log budget", async () => {
    const logs: unknown[] = [];
    const entries = Array.from({ length: 150 }, (_, n) => ({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: {
        level: n === 0 ? "shouting" : "warning",
        logger: "db\u202Epool",
        data: { n, note: "a\u2028b\u200Bc" },
      },
    }));
    const { client, server } = setup(
      (req) =>
        req.body.method === "tools/list"
          ? toolsList(req.body.id, [])
          : sse([...entries, { jsonrpc: "2.0", id: req.body.id, result: { content: [] } }]),
      // A clock that stands still: the budget (burst 100) must not refill while the 150 arrive.
      {
        handler: { log: (level, entry) => void logs.push([level, entry.logger, entry.data]) },
        clock: new FakeTime(),
      },
    );
    await client.callTool("demo", "noisy");
    await client.close();
    assert.equal(
      (server.requests[1]?.body.params?._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"],
      "info",
    );
    assert.equal(logs.length, 100);
    same(logs[0], ["info", "dbpool", np({ n: 0, note: "abc" })]);
    same(logs[99], ["warning", "dbpool", np({ n: 99, note: "abc" })]);
    same(client.stats(), np({ demo: { delivered: 100, dropped: 0, rateLimited: 50 } }));
  });

  test("awaits a task: polls tasks/get, answers its input once with tasks/update, and returns its result", async () => {
    const time = new FakeTime();
    const elicit = {
      method: "elicitation/create",
      params: { message: "Go?", requestedSchema: { type: "object", properties: {} } },
    };
    const { client, server } = setup(
      taskServer((polls) =>
        polls === 1
          ? taskAnswer("working")
          : polls <= 3
          ? taskAnswer("input_required", { inputRequests: { go: elicit } })
          : taskAnswer("completed", { result: { content: [{ type: "text", text: "done" }] } })
      ),
      { handler: { elicitation: () => ({ action: "accept", content: {} }) }, tasks: true, timers: time },
    );
    const answer = await drive(time, client.callTool("demo", "slow"), { untilMs: 10_000 });
    assert.deepEqual(answer, { content: [{ type: "text", text: "done" }] });
    assert.equal(time.now(), 1000);
    assert.deepEqual(server.requests.map((r) => [r.body.method, r.headers["mcp-name"]]), [
      ["tools/list", undefined],
      ["tools/call", "slow"],
      ["tasks/get", "t-1"],
      ["tasks/get", "t-1"],
      ["tasks/update", "t-1"],
      ["tasks/get", "t-1"],
      ["tasks/get", "t-1"],
    ]);
    assert.deepEqual(plain(server.requests[4]?.body.params), {
      taskId: "t-1",
      inputResponses: { go: { action: "accept", content: {} } },
      _meta: meta({ elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } }),
    });
  });

  test("a detached task's call gives a call event with outcome task, and awaitTask() its own, method tasks/get named by the task's id", async () => {
    const time = new FakeTime(Date.UTC(2026, 11, 1, 12, 0, 0));
    const { client } = setup(
      taskServer(() => taskAnswer("completed", { result: { content: [{ type: "text", text: "done" }] } })),
      { tasks: true, timers: time, clock: time },
    );
    const events: unknown[] = [];
    client.onDecision((event) => void events.push(event));
    const task = await client.callTool("demo", "slow", {}, { detachTask: true }) as CreateTaskResult;
    const answer = await drive(time, client.awaitTask("demo", task.taskId), { untilMs: 10_000 });
    await client.close();
    assert.deepEqual(answer, { content: [{ type: "text", text: "done" }] });
    const base = { type: "call", time: "2026-12-01T12:00:00.000Z", client: "agent", server: "demo" };
    assert.deepEqual(events, [
      // The task it became, by the id its waits are named by.
      { ...base, method: "tools/call", name: "slow", outcome: "task", task: "t-1", rounds: 1, durationMs: 0 },
      { ...base, method: "tasks/get", name: "t-1", outcome: "completed", durationMs: 0 },
    ]);
  });

  test("awaitTask() and cancelTask() of a client that does not declare the tasks extension fail as config and send nothing: a server would refuse them -32021", async () => {
    const { client, server } = setup(taskServer(() => taskAnswer("completed")));
    const needs = (method: string) =>
      `Server "demo": ${method} needs the tasks extension, which this client does not declare: create it with tasks: true`;
    try {
      assert.deepEqual(
        [await failure(client.awaitTask("demo", "t-1")), await failure(client.cancelTask("demo", "t-1"))],
        [["config", undefined, needs("tasks/get")], ["config", undefined, needs("tasks/cancel")]],
      );
      assert.deepEqual(server.requests.filter((r) => r.body.method.startsWith("tasks/")), []);
    } finally {
      await client.close();
    }
  });

  test("awaitTask() of a task the server reports cancelled fails as cancelled, naming the task", async () => {
    const time = new FakeTime();
    const { client } = setup(taskServer(() => taskAnswer("cancelled")), {
      tasks: true,
      timers: time,
      clock: time,
    });
    const task = await client.callTool("demo", "slow", {}, { detachTask: true }) as CreateTaskResult;
    const ended = await drive(time, failure(client.awaitTask("demo", task.taskId)));
    await client.close();
    assert.deepEqual(ended, ["cancelled", undefined, 'Task "t-1" of server "demo" was cancelled']);
  });

  test("a tool call whose task it stops awaiting (its signal, maxTotalTimeout, a refused input request) sends tasks/cancel and fails naming the task in data.taskId", async () => {
    const time = new FakeTime();
    const login = {
      method: "elicitation/create",
      params: { mode: "url", message: "Log in", url: "http://evil.example/" },
    };
    const abandoned = async (
      options: { policy?: Partial<Policy>; polled?: Record<string, unknown> },
      run: (
        client: ReturnType<typeof setup>["client"],
        server: ReturnType<typeof setup>["server"],
      ) => Promise<unknown>,
    ) => {
      const { client, server } = setup(taskServer(() => options.polled ?? taskAnswer("working")), {
        tasks: true,
        timers: time,
        handler: { elicitationModes: ["url"], elicitation: () => ({ action: "accept" }) },
        ...(options.policy === undefined ? {} : { policy: options.policy }),
      });
      const error = await run(client, server).then(() => assert.fail("expected a rejection"), (e) => e);
      await client.close();
      const sent = server.requests.map((r) => [r.body.method, r.headers["mcp-name"]]);
      const cancel = server.requests.find((r) => r.body.method === "tasks/cancel");
      return [
        [error.kind, error.code, error.message, error.data],
        sent,
        cancel === undefined ? "no tasks/cancel" : plain(cancel.body.params),
      ];
    };
    const cancelParams = {
      taskId: "t-1",
      _meta: meta({ elicitation: { url: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } }),
    };
    const controller = new AbortController();
    assert.deepEqual(
      await abandoned({}, async (client, server) => {
        const call = client.callTool("demo", "deploy", {}, { signal: controller.signal });
        await eventually("the first tasks/get sent", () => server.requests[2]);
        await settle();
        controller.abort();
        return await call;
      }),
      [
        ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled', { taskId: "t-1" }],
        [["tools/list", undefined], ["tools/call", "deploy"], ["tasks/get", "t-1"], ["tasks/cancel", "t-1"]],
        cancelParams,
      ],
    );
    assert.deepEqual(
      await abandoned(
        { policy: { maxTotalTimeout: "1200ms" } },
        (client) => drive(time, client.callTool("demo", "deploy"), { untilMs: 10_000 }),
      ),
      [
        [
          "timeout",
          undefined,
          'Server "demo": the call did not finish within 1200 ms (maxTotalTimeout)',
          { taskId: "t-1" },
        ],
        [
          ["tools/list", undefined],
          ["tools/call", "deploy"],
          ["tasks/get", "t-1"],
          ["tasks/get", "t-1"],
          ["tasks/get", "t-1"],
          ["tasks/cancel", "t-1"],
        ],
        cancelParams,
      ],
    );
    assert.deepEqual(
      await abandoned(
        { polled: taskAnswer("input_required", { inputRequests: { login } }) },
        (client) => client.callTool("demo", "deploy"),
      ),
      [
        [
          "policy",
          -32602,
          'Input request "login" (elicitation/create) from server "demo" refused by policy: Elicitation URL "http://evil.example/" refused: expected the scheme "https", received "http"',
          { taskId: "t-1" },
        ],
        [["tools/list", undefined], ["tools/call", "deploy"], ["tasks/get", "t-1"], ["tasks/cancel", "t-1"]],
        cancelParams,
      ],
    );
    // The cancel's own deadline is cleared with the rest.
    assert.equal(time.pending, 0);
  });

  test("a tool call whose task's poll fails with a server error sends tasks/cancel and names the task in data.taskId: beside object data, else with the data as data.data", async () => {
    /** Calls `deploy` on a server whose `tasks/get` fails with `data`; says how the call failed and what was sent. */
    const pollFailing = async (data: unknown) => {
      const tasks = taskServer(() => ({}));
      const { client, server } = setup(
        (req, index) =>
          req.body.method === "tasks/get"
            ? rpcError(req.body.id, -32603, "poll failed", data)
            : tasks(req, index),
        { tasks: true },
      );
      const error = await client.callTool("demo", "deploy").then(
        () => assert.fail("expected a rejection"),
        (e) => e,
      );
      await client.close();
      return [[error.kind, error.code, error.message, error.data], server.requests.map((r) => r.body.method)];
    };
    const sent = ["tools/list", "tools/call", "tasks/get", "tasks/cancel"];
    const failed = (data: unknown) => [
      ["server", -32603, 'Server "demo" answered tasks/get with error -32603: "poll failed"', data],
      sent,
    ];
    assert.deepEqual(
      [
        await pollFailing(undefined),
        await pollFailing({ retryAfter: 5 }),
        await pollFailing("overloaded"),
        await pollFailing(["a"]),
        await pollFailing(null),
      ],
      [
        failed({ taskId: "t-1" }),
        failed({ retryAfter: 5, taskId: "t-1" }),
        failed({ taskId: "t-1", data: "overloaded" }),
        failed({ taskId: "t-1", data: ["a"] }),
        failed({ taskId: "t-1", data: null }),
      ],
    );
  });

  test("a tool call cancelled while its input handler runs, in its own round or its task's, or while its task is polled, is told of its own tools/call", async () => {
    const elicit = {
      method: "elicitation/create",
      params: { message: "Sure?", requestedSchema: { type: "object", properties: {} } },
    };
    const never = new Promise<Response>(() => {});
    /** Cancels a call of `deploy` once the server has the request `waitFor`, then says how it failed and what was sent. */
    const cancelledAt = async (waitFor: string, reply: Parameters<typeof setup>[0]) => {
      const { client, server } = setup(reply, {
        tasks: true,
        handler: { elicitation: () => new Promise(() => {}) },
      });
      const controller = new AbortController();
      const call = client.callTool("demo", "deploy", {}, { signal: controller.signal }).catch((error) =>
        error
      );
      await eventually(`${waitFor} sent`, () => server.requests.find((r) => r.body.method === waitFor));
      await settle();
      controller.abort();
      const error = await call;
      await client.close();
      return [[error.kind, error.message, error.data], server.requests.map((r) => r.body.method)];
    };
    const cancelled = 'Call of tools/call to server "demo" was cancelled';
    assert.deepEqual(
      await cancelledAt(
        "tools/call",
        (req) =>
          req.body.method === "tools/list"
            ? toolsList(req.body.id, [])
            : result(req.body.id, { resultType: "input_required", inputRequests: { sure: elicit } }),
      ),
      [["cancelled", cancelled, undefined], ["tools/list", "tools/call"]],
    );
    assert.deepEqual(
      await cancelledAt(
        "tasks/get",
        taskServer(() => taskAnswer("input_required", { inputRequests: { sure: elicit } })),
      ),
      [["cancelled", cancelled, { taskId: "t-1" }], [
        "tools/list",
        "tools/call",
        "tasks/get",
        "tasks/cancel",
      ]],
    );
    const heldPoll = taskServer(() => taskAnswer("working"));
    assert.deepEqual(
      await cancelledAt(
        "tasks/get",
        (req, index) => req.body.method === "tasks/get" ? never : heldPoll(req, index),
      ),
      [["cancelled", cancelled, { taskId: "t-1" }], [
        "tools/list",
        "tools/call",
        "tasks/get",
        "tasks/cancel",
      ]],
    );
  });

  test("awaitTask() of a task whose id the caller holds leaves it running when its wait is cancelled", async () => {
    const controller = new AbortController();
    const { client, server } = setup((req) => result(req.body.id, taskAnswer("working")), { tasks: true });
    const call = failure(client.awaitTask("demo", "t-1", { signal: controller.signal }));
    await eventually("the first tasks/get sent", () => server.requests[0]);
    controller.abort();
    assert.deepEqual(await call, [
      "cancelled",
      undefined,
      'Call of tasks/get to server "demo" was cancelled',
    ]);
    await client.close();
    assert.deepEqual(server.requests.map((r) => r.body.method), ["tasks/get"]);
  });

  test("readResource() and getPrompt() send their params, return the result and each give one call event", async () => {
    const time = new FakeTime(Date.UTC(2026, 11, 1, 12, 0, 0));
    const resource = { contents: [{ uri: "demo://a", text: "A" }] };
    const prompt = { messages: [{ role: "user", content: { type: "text", text: "hi Ada" } }] };
    const { client, server } = setup((req) => {
      const { id, method, params } = req.body;
      if (method === "resources/read") return result(id, resource);
      if (params?.name === "greet") return result(id, prompt);
      return rpcError(id, -32602, "Unknown prompt: gone");
    }, { clock: time });
    const events: unknown[] = [];
    client.onDecision((event) => void events.push(event));
    assert.deepEqual(await client.readResource("demo", "demo://a"), resource);
    assert.deepEqual(await client.getPrompt("demo", "greet", { who: "Ada" }), prompt);
    const [kind, code, message] = await failure(client.getPrompt("demo", "gone"));
    await client.close();
    assert.deepEqual(plain(server.requests.map((request) => [request.body.method, request.body.params])), [
      ["resources/read", { uri: "demo://a", _meta: meta({}) }],
      ["prompts/get", { name: "greet", arguments: { who: "Ada" }, _meta: meta({}) }],
      ["prompts/get", { name: "gone", _meta: meta({}) }],
    ]);
    const base = { type: "call", time: "2026-12-01T12:00:00.000Z", client: "agent", server: "demo" };
    const gone = 'Server "demo" answered prompts/get with error -32602: "Unknown prompt: gone"';
    assert.deepEqual([kind, code, message], ["server", -32602, gone]);
    assert.deepEqual(events, [
      { ...base, method: "resources/read", name: "demo://a", outcome: "completed", rounds: 1, durationMs: 0 },
      { ...base, method: "prompts/get", name: "greet", outcome: "completed", rounds: 1, durationMs: 0 },
      {
        ...base,
        method: "prompts/get",
        name: "gone",
        outcome: "failed",
        error: { kind: "server", code: -32602, message: gone },
        durationMs: 0,
      },
    ]);
  });

  test("a list that does not decode, or a tool list that does not before a call, is a protocol error naming the method", async () => {
    const { client } = setup((req) =>
      req.body.method === "tools/list"
        ? result(req.body.id, { resultType: "complete", tools: "none" })
        : result(req.body.id, { resultType: "complete", prompts: 7 })
    );
    assert.deepEqual(await failure(client.listPrompts("demo")), [
      "protocol",
      undefined,
      'Server "demo" sent an invalid prompts/list result: $.prompts: expected Array, received 7',
    ]);
    assert.deepEqual(await failure(client.callTool("demo", "echo")), [
      "protocol",
      undefined,
      'Server "demo" sent an invalid tools/list result: $.tools: expected Array, received "none"',
    ]);
    await client.close();
  });

  test("an input_required answer to tools/list, for the caller or before a call, is a protocol error saying only calls may ask for input", async () => {
    const { client, server } = setup((req) =>
      result(req.body.id, {
        resultType: "input_required",
        inputRequests: { login: { method: "elicitation/create", params: { mode: "form", message: "Who?" } } },
        requestState: "s1",
      })
    );
    const refused = [
      "protocol",
      undefined,
      'Server "demo" answered tools/list with input_required, which only tools/call, resources/read and prompts/get may do',
    ];
    assert.deepEqual(await failure(client.listTools("demo")), refused);
    assert.deepEqual(await failure(client.callTool("demo", "echo")), refused);
    await client.close();
    // Not retried: the tools/call is never sent.
    assert.deepEqual(server.requests.map((request) => request.body.method), ["tools/list", "tools/list"]);
  });

  test("refuses an unknown server id and calls after close() with config errors", async () => {
    const { client } = setup(() => new Response());
    assert.deepEqual(await failure(client.discover("nope")), [
      "config",
      undefined,
      'Unknown server "nope": expected one of "demo"',
    ]);
    await client.close();
    assert.deepEqual(await failure(client.discover("demo")), [
      "config",
      undefined,
      'Client "agent" is closed',
    ]);
  });

  test("a client with no policies says so when a call names a server", async () => {
    const client = createClient({ name: "empty", policies: [] });
    assert.deepEqual(await failure(client.callTool("nope", "echo")), [
      "config",
      undefined,
      'Unknown server "nope": client "empty" has no servers (its "policies" are empty)',
    ]);
    await client.close();
  });

  test("a call to an unknown server arms no maxTotalTimeout: it has no policy to take one from", async () => {
    const time = new FakeTime();
    const { client } = setup(() => new Response(), { timers: time });
    const refused = failure(client.callTool("nope", "echo"));
    assert.equal(time.nextDue(), undefined);
    assert.deepEqual(await refused, ["config", undefined, 'Unknown server "nope": expected one of "demo"']);
    await client.close();
  });
});
