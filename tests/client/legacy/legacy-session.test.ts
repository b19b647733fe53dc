// The legacy session's handshake through the legacy entry's client, against a scripted legacy
// HTTP server: the handshake is shared by the calls waiting for it, and one of them cancelled
// fails alone; a refused or unanswered notifications/initialized ends the session. And a call's
// progress, delivered off the connection, and the server's logs asked for. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../../src/client/legacy/legacy-client.ts";
import {
  initialized,
  legacyHandshake,
  postsOnly,
  result,
  rpcError,
  scriptedServer,
  sse,
} from "../../_support/scripted-server.ts";
import type { NotificationEntry } from "../../../src/notify/notification-entry.ts";
import type { Client } from "../../../src/client/client-types.ts";
import { gate } from "../../_support/gate.ts";
import { cancelFirstOfTwo, failure, URL_ } from "../_client-fixtures.ts";
import { legacySetup } from "./_legacy-fixtures.ts";
import { ClientError } from "../../../src/errors.ts";
import { drive, FakeTime, settle } from "../../_support/fake-time.ts";
import { eventually } from "../../_support/eventually.ts";
import {
  callWithThrowingProgress,
  CLEAN_PROGRESS,
  progressThenResult,
} from "../../_support/throwing-progress.ts";
import { np, same } from "../../_support/exact.ts";

describe("LegacySession handshake", () => {
  // The calls name themselves when cancelled, not the handshake they share; a tools/call of a server
  // declaring tools lists them once the handshake is done.
  const waiting: Array<{
    method: string;
    call: (client: Client, signal: AbortSignal) => Promise<unknown>;
    answer: unknown;
    after: string[];
  }> = [
    {
      method: "tools/list",
      call: (client: Client, signal: AbortSignal) => client.listTools("demo", { signal }),
      answer: { tools: [{ name: "echo", inputSchema: { type: "object" } }] },
      after: ["tools/list"],
    },
    {
      method: "tools/call",
      call: (client: Client, signal: AbortSignal) => client.callTool("demo", "echo", {}, { signal }),
      answer: { content: [] },
      after: ["tools/list", "tools/call"],
    },
  ];
  for (const { method, call, answer, after } of waiting) {
    test(`a ${method} cancelled during initialize fails alone, naming itself: the other call waiting for it goes on`, async () => {
      const initializeAnswered = gate();
      const { client, server } = legacySetup(async (request) => {
        if (request.body.method === "initialize") await initializeAnswered.opened;
        if (request.body.method === "tools/call") return result(request.body.id, { content: [] });
        return legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
      });
      try {
        assert.deepEqual(
          await cancelFirstOfTwo((signal) => call(client, signal), {
            gate: initializeAnswered,
            sent: () => server.requests[0],
          }),
          [["cancelled", undefined, `Call of ${method} to server "demo" was cancelled`], answer],
        );
        // One handshake for both calls; only the call that was not cancelled.
        assert.deepEqual(server.requests.map((request) => request.body.method), [
          "initialize",
          "notifications/initialized",
          ...after,
        ]);
      } finally {
        await client.close();
      }
    });
  }

  /**
   * A client of a 2025-11-25 server giving each initialize a session of its own ("S1", "S2"…)
   * and answering notifications/initialized with `accepted`, initialize with `options.initialize`
   * when given (or, with `options.notified`, with 202 once it resolves, whatever the request's
   * signal, as a stdio write ends), and the DELETE ending a session once `options.deleted`
   * resolves; the GET stream
   * stays open until its signal fires. `sent` lists each request as its HTTP method, its JSON-RPC
   * method (POST) and its session.
   */
  function sessionServer(
    accepted: () => Response | Promise<Response>,
    options: {
      readonly time?: FakeTime;
      readonly initialize?: (id: unknown, session: string) => Response | undefined;
      readonly deleted?: (session: string) => Promise<void>;
      readonly notified?: (session: string) => Promise<void>;
    } = {},
  ) {
    const { time, initialize, deleted, notified } = options;
    let sessions = 0;
    const server = scriptedServer((request) => {
      if (request.body.method === "notifications/initialized") return accepted();
      if (request.body.method !== "initialize") {
        return legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
      }
      const session = `S${++sessions}`;
      const answer = initialize?.(request.body.id, session) ??
        legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
      // A session the client must end with a DELETE.
      return new Response(answer.body, {
        headers: { "content-type": "application/json", "mcp-session-id": session },
      });
    });
    const sent: string[] = [];
    const listening: AbortSignal[] = [];
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy", callTimeout: "1s" }],
      ...(time === undefined ? {} : { timers: time, clock: time }),
      fetch: async (url, init) => {
        const session = new Headers(init.headers).get("mcp-session-id") ?? "-";
        const method = init.method === "POST" ? ` ${JSON.parse(String(init.body)).method}` : "";
        sent.push(`${init.method}${method} ${session}`);
        if (notified !== undefined && method === " notifications/initialized") {
          await notified(session);
          return new Response(null, { status: 202 });
        }
        if (init.method === "POST") return server.fetch(url, init);
        // The standalone GET stream stays open until its signal fires; the DELETE is accepted.
        if (init.method === "DELETE") {
          await deleted?.(session);
          return new Response(null, { status: 200 });
        }
        if (init.signal) listening.push(init.signal);
        return new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } });
      },
    });
    return { client, sent, listening };
  }

  test("a notifications/initialized left unanswered fails the call after the handshake's callTimeout, and ends the session and its GET stream", async () => {
    const time = new FakeTime();
    const { client, sent, listening } = sessionServer(() => new Promise<Response>(() => {}), { time });
    try {
      // Twice: the next call makes a new handshake rather than wait for the one that failed.
      for (let i = 0; i < 2; i++) {
        const failed = await drive(time, client.callTool("demo", "echo", {}).then(() => undefined, (e) => e));
        assert.ok(failed instanceof ClientError);
        assert.deepEqual([failed.kind, failed.serverId, failed.message], [
          "timeout",
          "demo",
          'Server "demo": no response to notifications/initialized within 1000 ms (callTimeout)',
        ]);
      }
      assert.equal(time.now(), 2000);
      assert.deepEqual(listening.map((signal) => signal.aborted), [true, true]);
      assert.deepEqual(sent, [
        ...["POST initialize -", "GET S1", "POST notifications/initialized S1", "DELETE S1"],
        ...["POST initialize -", "GET S2", "POST notifications/initialized S2", "DELETE S2"],
      ]);
    } finally {
      await client.close();
    }
  });

  /** What the client sends to a server refusing its first session's notifications/initialized. */
  const REFUSED_SESSION = ["POST initialize -", "GET S1", "POST notifications/initialized S1", "DELETE S1"];

  const refusals = [
    {
      status: 500,
      answer: () => new Response("oops", { status: 500 }),
      error: [
        "transport",
        "demo",
        'Server "demo": Notification "notifications/initialized" was refused with HTTP 500: expected 202 Accepted, received "oops"',
        { status: 500 },
      ],
    },
    {
      status: 200,
      answer: () => Response.json({ ok: true }),
      error: [
        "protocol",
        "demo",
        'Server "demo": Notification "notifications/initialized": expected HTTP 202 Accepted with no body, received HTTP 200 with a body',
        { status: 200 },
      ],
    },
  ];
  for (const { status, answer, error } of refusals) {
    test(`a notifications/initialized answered HTTP ${status} fails the call naming the server, and ends the session and its GET stream`, async () => {
      const { client, sent, listening } = sessionServer(answer);
      try {
        const failed = await client.listTools("demo").then(() => undefined, (thrown: unknown) => thrown);
        assert.ok(failed instanceof ClientError);
        assert.deepEqual([failed.kind, failed.serverId, failed.message, failed.data], error);
        assert.deepEqual(listening.map((signal) => signal.aborted), [true]);
        assert.deepEqual(sent, REFUSED_SESSION);
      } finally {
        await client.close();
      }
    });
  }

  // A handshake known to have failed is not joined while its session ends: a call made then
  // makes a new handshake (a new session) rather than get that failure.
  const failedHandshakes = [
    {
      what: "notifications/initialized is refused",
      refused: 1,
      initialize: () => undefined,
      error: [
        "transport",
        "demo",
        'Server "demo": Notification "notifications/initialized" was refused with HTTP 500: expected 202 Accepted, received "oops"',
      ],
      failed: REFUSED_SESSION,
      listening: [true, false],
    },
    {
      what: "initialize is answered with an error",
      refused: 0,
      initialize: (id: unknown, session: string) =>
        session === "S1" ? rpcError(id, -32603, "not today") : undefined,
      error: ["server", "demo", 'Server "demo" answered initialize with error -32603: "not today"'],
      failed: ["POST initialize -", "DELETE S1"],
      listening: [false],
    },
  ];
  for (const { what, refused, initialize, error, failed, listening: streams } of failedHandshakes) {
    test(`a call made while a handshake whose ${what} ends its session makes a new handshake and succeeds`, async () => {
      let refusals = refused;
      const deleteAnswered = gate();
      const { client, sent, listening } = sessionServer(
        () => refusals-- > 0 ? new Response("oops", { status: 500 }) : new Response(null, { status: 202 }),
        { initialize, deleted: (session) => session === "S1" ? deleteAnswered.opened : Promise.resolve() },
      );
      try {
        // The failed call is told at once, while its session's DELETE waits for its answer.
        const thrown = await client.listTools("demo").then(() => undefined, (thrown: unknown) => thrown);
        assert.ok(thrown instanceof ClientError);
        assert.deepEqual([thrown.kind, thrown.serverId, thrown.message], error);
        await eventually("the failed session's DELETE", () => sent.includes("DELETE S1") || undefined);
        assert.deepEqual(await client.listTools("demo"), {
          tools: [{ name: "echo", inputSchema: { type: "object" } }],
        });
        deleteAnswered.open();
        assert.deepEqual(listening.map((signal) => signal.aborted), streams);
        assert.deepEqual(sent, [
          ...failed,
          ...["POST initialize -", "GET S2", "POST notifications/initialized S2", "POST tools/list S2"],
        ]);
      } finally {
        deleteAnswered.open();
        await client.close();
      }
    });
  }

  /**
   * A client whose first handshake was stopped (its only call cancelled) while its
   * notifications/initialized is held at `written` (answered 202 once it opens, whatever its
   * signal, as a stdio write ends), and whose next call made a handshake of its own.
   */
  async function stoppedWhileWritten() {
    const written = gate();
    const server = sessionServer(() => new Response(null, { status: 202 }), {
      notified: (session) => session === "S1" ? written.opened : Promise.resolve(),
    });
    const { client, sent } = server;
    const controller = new AbortController();
    const first = failure(client.listTools("demo", { signal: controller.signal }));
    await eventually(
      "the first notifications/initialized",
      () => sent.includes("POST notifications/initialized S1") || undefined,
    );
    controller.abort();
    assert.deepEqual(await first, [
      "cancelled",
      undefined,
      'Call of tools/list to server "demo" was cancelled',
    ]);
    // The stopped handshake is not joined: the next call makes its own.
    assert.deepEqual(await client.listTools("demo"), {
      tools: [{ name: "echo", inputSchema: { type: "object" } }],
    });
    return { ...server, written };
  }

  test("a handshake stopped while its notifications/initialized is written ends its session once the write ends: the next call's handshake is the live one", async () => {
    const { client, sent, listening, written } = await stoppedWhileWritten();
    try {
      written.open();
      await eventually("the stopped session's DELETE", () => sent.includes("DELETE S1") || undefined);
      await client.close();
      assert.deepEqual(listening.map((signal) => signal.aborted), [true, true]);
      assert.deepEqual(sent, [
        ...["POST initialize -", "GET S1", "POST notifications/initialized S1"],
        ...["POST initialize -", "GET S2", "POST notifications/initialized S2", "POST tools/list S2"],
        "DELETE S1",
        "DELETE S2",
      ]);
    } finally {
      written.open();
      await client.close();
    }
  });

  test("close() waits for a handshake stopped while its notifications/initialized is written, and ends its session", async () => {
    const { client, sent, listening, written } = await stoppedWhileWritten();
    try {
      const closing = client.close().then(() => void sent.push("closed"));
      // A task later every promise step has run: close() went as far as it can without the write.
      await new Promise((resolve) => setTimeout(resolve, 0));
      written.open();
      await closing;
      assert.deepEqual(listening.map((signal) => signal.aborted), [true, true]);
      assert.deepEqual(sent.slice(7), ["DELETE S1", "DELETE S2", "closed"]);
    } finally {
      written.open();
      await client.close();
    }
  });

  test("close() waits for the DELETE of a session whose handshake failed, though its call has failed already", async () => {
    const deleteAnswered = gate();
    // What ended, in order: the DELETE's answer, close().
    const ended: string[] = [];
    const { client, sent } = sessionServer(() => new Response("oops", { status: 500 }), {
      deleted: () => deleteAnswered.opened.then(() => void ended.push("DELETE answered")),
    });
    try {
      assert.deepEqual(await failure(client.listTools("demo")), [
        "transport",
        undefined,
        'Server "demo": Notification "notifications/initialized" was refused with HTTP 500: expected 202 Accepted, received "oops"',
      ]);
      await eventually("the failed session's DELETE", () => sent.includes("DELETE S1") || undefined);
      const closing = client.close().then(() => void ended.push("close() resolved"));
      // An event-loop turn runs every microtask first, however many: a close() not waiting for
      // the DELETE has resolved by then (it has nothing else to wait for).
      await new Promise((resolve) => setTimeout(resolve, 0));
      deleteAnswered.open();
      await closing;
      assert.deepEqual([ended, sent], [["DELETE answered", "close() resolved"], REFUSED_SESSION]);
    } finally {
      deleteAnswered.open();
      await client.close();
    }
  });
});

describe("LegacySession progress", () => {
  test("onProgress hears the progress sanitized; its throw is logged and skipped, and the result on the same stream returns", async () => {
    const { client } = legacySetup((req) =>
      legacyHandshake(req.body, "2025-11-25", "t") ?? progressThenResult(req)
    );
    const { value, heard, logged } = await callWithThrowingProgress((onProgress) =>
      client.callTool("demo", "t", {}, { onProgress })
    );
    await client.close();
    assert.deepEqual(value, { content: [] });
    // Its token counts the session's requests: initialize, tools/list, then this tools/call.
    same(heard, [np({ progressToken: "sluice-3", progress: 1, message: CLEAN_PROGRESS })]);
    assert.deepEqual(logged, [[
      `A call's onProgress threw on "notifications/progress" from server "demo": "ui gone"`,
    ]]);
  });

  test("onProgress hears only progress that rises: nothing that goes back, repeats, is no number or is missing", async () => {
    const { client } = legacySetup((req) => {
      const { id, method } = req.body;
      if (method !== "tools/call") return legacyHandshake(req.body, "2025-11-25", "t") ?? result(id, {});
      const progressToken = (req.body.params?._meta as { progressToken?: string }).progressToken;
      const sent = [10, 2, "abc", null, undefined, 10, 11].map((value) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: value === undefined ? { progressToken } : { progressToken, progress: value },
      }));
      return sse([...sent, { jsonrpc: "2.0", id, result: { content: [] } }]);
    });
    const progress: unknown[] = [];
    assert.deepEqual(await client.callTool("demo", "t", {}, { onProgress: (p) => void progress.push(p) }), {
      content: [],
    });
    await settle();
    await client.close();
    same(progress, [
      np({ progressToken: "sluice-3", progress: 10 }),
      np({ progressToken: "sluice-3", progress: 11 }),
    ]);
  });
});

describe("LegacySession logs", () => {
  test("asks a server declaring logging for its logs at the policy's logLevel though only a subscriber hears them, which hears the entry", async () => {
    const { client, server } = legacySetup((req) => {
      const { id, method } = req.body;
      if (method === "initialize") return initialized(id, { tools: {}, logging: {} });
      if (method !== "tools/call") return legacyHandshake(req.body, "2025-11-25", "t") ?? result(id, {});
      return sse([
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: "hello\u2028FAKE" },
        },
        { jsonrpc: "2.0", id, result: { content: [] } },
      ]);
    });
    const heard: NotificationEntry[] = [];
    client.onNotification((entry) => void heard.push(entry));
    assert.deepEqual(await client.callTool("demo", "t"), { content: [] });
    await eventually("the log entry heard", () => heard.length > 0 || undefined);
    await client.close();
    assert.deepEqual(
      server.requests.filter((req) => req.body.method === "logging/setLevel").map((req) => req.body.params),
      [{ level: "info" }],
    );
    assert.deepEqual(heard, [{
      kind: "log",
      serverId: "demo",
      era: "legacy",
      method: "notifications/message",
      log: { level: "info", data: "helloFAKE" },
    }]);
  });

  test("close() resolves only once a listener still busy with the notifications that waited has had them all", async () => {
    const { client } = legacySetup((req) => {
      const { id, method } = req.body;
      if (method === "initialize") return initialized(id, { tools: {}, logging: {} });
      if (method !== "tools/call") return legacyHandshake(req.body, "2025-11-25", "t") ?? result(id, {});
      return sse([
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "one" } },
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "two" } },
        { jsonrpc: "2.0", id, result: { content: [] } },
      ]);
    });
    const order: string[] = [];
    const release = gate();
    client.onNotification(async (entry) => {
      await release.opened;
      order.push(`heard ${String(entry.kind === "log" ? entry.log.data : entry.kind)}`);
    });
    await client.callTool("demo", "t");
    const closing = client.close().then(() => void order.push("closed"));
    // The bound is real time on purpose: a close() that does not wait resolves well within it;
    // one that waits does not resolve however long this is.
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 100))]);
    order.push("released");
    release.open();
    await closing;
    assert.deepEqual(order, ["released", "heard one", "heard two", "closed"]);
  });
});

describe("LegacySession messages the server never answers", () => {
  test("rootsChanged() fails after callTimeout, and logging/setLevel is aborted then, when the server holds both", async () => {
    const time = new FakeTime();
    const aborted: [string, number][] = [];
    const client = createClient({
      name: "agent",
      handler: { roots: () => ({ roots: [] }) },
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy", callTimeout: "1s" }],
      timers: time,
      clock: time,
      fetch: (_url, init) => {
        if (init.method !== "POST") return Promise.resolve(new Response(null, { status: 405 }));
        const { id, method } = JSON.parse(String(init.body)) as { id?: number; method: string };
        if (method === "initialize") return Promise.resolve(initialized(id, { tools: {}, logging: {} }));
        if (method === "tools/list") return Promise.resolve(result(id, { tools: [] }));
        if (method === "notifications/initialized") {
          return Promise.resolve(new Response(null, { status: 202 }));
        }
        // Held until aborted, as a server that never answers.
        const signal = init.signal!;
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            aborted.push([method, time.now()]);
            reject(signal.reason);
          }, { once: true })
        );
      },
    });
    try {
      await drive(time, client.listTools("demo"));
      const start = time.now();
      const changed = await drive(time, failure(client.rootsChanged("demo")), { untilMs: 5000 });
      assert.deepEqual({ changed, aborted, after: time.now() - start }, {
        changed: [
          "timeout",
          undefined,
          'Server "demo": no response to notifications/roots/list_changed within 1000 ms (callTimeout)',
        ],
        aborted: [["logging/setLevel", 1000], ["notifications/roots/list_changed", 1000]],
        after: 1000,
      });
    } finally {
      await client.close();
    }
  });
});

describe("LegacySession forgotten session", () => {
  /**
   * A server built as the official SDK's example is: it answers a session id it does not know
   * 400 `reason` (where the spec says 404). `restart()` forgets every session, as a restart does.
   */
  function restartingServer(reason: string) {
    let generation = 1;
    const server = scriptedServer((request) => {
      const { id, method } = request.body;
      if (method === "initialize") {
        const answer = initialized(id, { tools: {} });
        answer.headers.set("mcp-session-id", `s${generation}`);
        return answer;
      }
      if (request.headers["mcp-session-id"] !== `s${generation}`) {
        const body = { jsonrpc: "2.0", error: { code: -32000, message: reason }, id: null };
        return new Response(JSON.stringify(body), {
          status: 400,
          headers: { "content-type": "application/json" },
        });
      }
      if (id === undefined) return new Response(null, { status: 202 });
      if (method === "tools/call") return result(id, { content: [{ type: "text", text: `s${generation}` }] });
      return legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
    });
    return { server, restart: () => void generation++ };
  }

  test("a 400 that says the server does not know the session (a restarted SDK server) starts a new one, and the call goes through it", async () => {
    const { server, restart } = restartingServer("Bad Request: No valid session ID provided");
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
      fetch: postsOnly(server),
    });
    try {
      const before = await client.callTool("demo", "echo", {});
      restart();
      const after = await client.callTool("demo", "echo", {});
      assert.deepEqual([before.content, after.content, server.requests.map((r) => r.body.method)], [
        [{ type: "text", text: "s1" }],
        [{ type: "text", text: "s2" }],
        [
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/call",
          "tools/call",
          "initialize",
          "notifications/initialized",
          "tools/call",
        ],
      ]);
    } finally {
      await client.close();
    }
  });

  test("a 400 that does not speak of the session fails its call alone, on the same session", async () => {
    const { server, restart } = restartingServer("Bad Request: unsupported parameter");
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
      fetch: postsOnly(server),
    });
    try {
      await client.callTool("demo", "echo", {});
      restart();
      assert.deepEqual(await failure(client.callTool("demo", "echo", {})), [
        "server",
        -32000,
        'Server "demo" answered tools/call with error -32000: "Bad Request: unsupported parameter"',
      ]);
      assert.deepEqual(server.requests.map((r) => r.body.method).slice(4), ["tools/call"]);
    } finally {
      await client.close();
    }
  });

  /**
   * A server whose sessions are forgotten when the test says (`forget()`, as a restart or another
   * instance would): `initialize` opens `s<n>`, and any request but a tool call of a forgotten
   * session gets 404. `call` answers each tool call, told the session it named and the live one.
   */
  function forgettingServer(
    call: (
      request: { id: number | string; what: string },
      named: string,
      live: string,
    ) => Response | Promise<Response>,
  ) {
    let generation = 1;
    const server = scriptedServer((request) => {
      const { id, method, params } = request.body;
      if (method === "initialize") {
        const answer = initialized(id, { tools: {} });
        answer.headers.set("mcp-session-id", `s${generation}`);
        return answer;
      }
      if (id === undefined) return new Response(null, { status: 202 });
      const named = request.headers["mcp-session-id"] ?? "";
      if (method === "tools/call") {
        const what = String((params?.arguments as { what?: unknown } | undefined)?.what);
        return call({ id, what }, named, `s${generation}`);
      }
      if (named !== `s${generation}`) return new Response(null, { status: 404 });
      return legacyHandshake(request.body, "2025-11-25", "charge") ?? new Response(null, { status: 500 });
    });
    const deletes: string[] = [];
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
      fetch: (url, init) => {
        if (init.method === "DELETE") deletes.push(new Headers(init.headers).get("mcp-session-id") ?? "");
        return postsOnly(server)(url, init);
      },
    });
    const forget = () => void generation++;
    const calls = () => server.requests.filter((r) => r.body.method === "tools/call").length;
    return { server, client, forget, calls, deletes };
  }

  const answer = (id: number | string, text: string) => result(id, { content: [{ type: "text", text }] });
  const gone = () => new Response(null, { status: 404 });

  test("a call the server took (its answer streaming) when the session is forgotten is not sent again: it fails saying it may have run; the call whose own POST got the 404 goes again in a new session", async () => {
    const ran: string[] = [];
    const { client, forget, calls } = forgettingServer(({ id, what }, named, live) => {
      if (named !== live) return gone();
      ran.push(`${what} on ${live}`);
      if (what === "B") return answer(id, `B on ${live}`);
      // A: taken, and its answer still to come on the stream.
      return new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } });
    });
    try {
      await client.listTools("demo");
      const a = failure(client.callTool("demo", "charge", { what: "A" }));
      await eventually("A taken", () => calls() === 1 || undefined);
      forget();
      const b = await client.callTool("demo", "charge", { what: "B" });
      assert.deepEqual([await a, b.content, ran], [
        [
          "transport",
          undefined,
          'Server "demo": Request 4 ("tools/call"): the server ended the session while answering it (Legacy HTTP connection ended: session expired (HTTP 404)); it may have run, so it is not sent again',
        ],
        [{ type: "text", text: "B on s2" }],
        ["A on s1", "B on s2"],
      ]);
    } finally {
      await client.close();
    }
  });

  test("a call whose POST the server has not answered when another call's 404 ends the session is left to its own answer: answered, it is not sent again", async () => {
    const ran: string[] = [];
    const answerA = gate();
    // A: taken by an instance that still knows s1 (JSON answers come whole, at the end); B: by
    // one that does not.
    const { client, forget } = forgettingServer(async ({ id, what }, named, live) => {
      if (what === "A") {
        ran.push("A on s1");
        await answerA.opened;
        return answer(id, "A on s1");
      }
      if (named !== live) return gone();
      ran.push(`B on ${live}`);
      return answer(id, `B on ${live}`);
    });
    try {
      await client.listTools("demo");
      const a = client.callTool("demo", "charge", { what: "A" });
      await eventually("A taken", () => ran.length === 1 || undefined);
      forget();
      const b = await client.callTool("demo", "charge", { what: "B" });
      answerA.open();
      assert.deepEqual([(await a).content, b.content, ran], [
        [{ type: "text", text: "A on s1" }],
        [{ type: "text", text: "B on s2" }],
        ["A on s1", "B on s2"],
      ]);
    } finally {
      await client.close();
    }
  });

  test("a call whose POST is answered with a stream only after another call's 404 ended the session gets the response it holds, or fails at once, saying it may have run, when the stream asks the client something", async () => {
    const answerLate = gate();
    const { client, forget, calls } = forgettingServer(async ({ id, what }, named, live) => {
      if (what === "A" || what === "C") {
        await answerLate.opened;
        // A's stream asks the client something before it would answer; C's holds its response.
        const event = what === "A"
          ? { jsonrpc: "2.0", id: "srv-1", method: "roots/list" }
          : { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "C on s1" }] } };
        return new Response(`data: ${JSON.stringify(event)}\n\n`, {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return named === live ? answer(id, `B on ${live}`) : gone();
    });
    try {
      await client.listTools("demo");
      const a = failure(client.callTool("demo", "charge", { what: "A" }));
      const c = client.callTool("demo", "charge", { what: "C" });
      await eventually("A and C taken", () => calls() === 2 || undefined);
      forget();
      assert.deepEqual((await client.callTool("demo", "charge", { what: "B" })).content, [
        { type: "text", text: "B on s2" },
      ]);
      answerLate.open();
      assert.deepEqual([await a, (await c).content], [
        [
          "transport",
          undefined,
          'Server "demo": Request 4 ("tools/call"): the server ended the session while answering it (its answer asked the client something after the session had ended); it may have run, so it is not sent again',
        ],
        [{ type: "text", text: "C on s1" }],
      ]);
    } finally {
      await client.close();
    }
  });

  test("calls in flight when the session is forgotten open one new session between them, and close() ends it", async () => {
    const held = gate();
    let forgotten = false;
    const { client, server, forget, calls, deletes } = forgettingServer(async ({ id }, named, live) => {
      if (named !== live) return gone();
      if (live === "s2") return answer(id, "on s2");
      // Held until all four are in, then the server forgets the session, once.
      await held.opened;
      if (!forgotten) forget();
      forgotten = true;
      return gone();
    });
    try {
      await client.listTools("demo");
      const answers = [1, 2, 3, 4].map(() => client.callTool("demo", "charge", {}));
      await eventually("four calls in", () => calls() === 4 || undefined);
      held.open();
      const contents = (await Promise.all(answers)).map((answer) => answer.content);
      assert.deepEqual(contents, Array(4).fill([{ type: "text", text: "on s2" }]));
      assert.equal(server.requests.filter((r) => r.body.method === "initialize").length, 2);
    } finally {
      await client.close();
    }
    assert.deepEqual(deletes, ["s2"]);
  });

  test("a call whose stream is cut and cannot be resumed fails, and the server is told to stop it (notifications/cancelled)", async () => {
    const server = scriptedServer((request) => {
      const { id, method } = request.body;
      if (method === "tools/call") {
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode(
              `data: ${
                JSON.stringify({
                  jsonrpc: "2.0",
                  method: "notifications/message",
                  params: { level: "info", data: "working" },
                })
              }\n\n`,
            ));
            controller.error(new TypeError("other side closed"));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      if (id === undefined) return new Response(null, { status: 202 });
      return legacyHandshake(request.body, "2025-11-25", "tool") ?? new Response(null, { status: 500 });
    });
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
      fetch: postsOnly(server),
    });
    try {
      const failed = await failure(client.callTool("demo", "tool", {}));
      assert.equal(failed[0], "transport");
      await eventually(
        "the cancellation",
        () => server.requests.some((r) => r.body.method === "notifications/cancelled") || undefined,
      );
      const call = server.requests.find((r) => r.body.method === "tools/call");
      assert.deepEqual(
        server.requests.filter((r) => r.body.method === "notifications/cancelled").map((r) => r.body.params),
        [
          { requestId: call?.body.id, reason: "the client gave up on it: its answer could not be read" },
        ],
      );
    } finally {
      await client.close();
    }
  });

  test("a call answered 404 by a server that gave no session id fails, and the next call goes on the same connection: no session was forgotten", async () => {
    // Each standalone GET stream stays open until its signal fires.
    const listening: AbortSignal[] = [];
    let calls = 0;
    const server = scriptedServer((request) => {
      if (request.body.id === undefined) return new Response(null, { status: 202 });
      if (request.body.method === "tools/call" && ++calls === 1) {
        return new Response("no such tool route", { status: 404 });
      }
      if (request.body.method === "tools/call") return result(request.body.id, { content: [] });
      return legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
    });
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
      fetch: (url, init) => {
        if (init.method === "POST") return server.fetch(url, init);
        if (init.signal) listening.push(init.signal);
        return Promise.resolve(
          new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } }),
        );
      },
    });
    try {
      assert.deepEqual(await failure(client.callTool("demo", "echo", {})), [
        "transport",
        undefined,
        'Server "demo": Request 3 ("tools/call") failed with HTTP 404: expected a JSON-RPC response, received "no such tool route"',
      ]);
      assert.deepEqual(await client.callTool("demo", "echo", {}), { content: [] });
      assert.deepEqual(
        [server.requests.map((request) => request.body.method), listening.map((signal) => signal.aborted)],
        [["initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call"], [false]],
      );
    } finally {
      await client.close();
    }
  });
});

describe("LegacySession close()", () => {
  test("fails each call in flight as cancelled, as the modern era does, not as the connection closed under it", async () => {
    const { client, server } = legacySetup((request) =>
      request.body.method === "initialize"
        ? initialized(request.body.id, {})
        : new Promise<Response>(() => {})
    );
    const pending = [failure(client.callTool("demo", "t", {})), failure(client.listPrompts("demo"))];
    const sent = () => server.requests.map((request) => request.body.method);
    await eventually(
      "both calls sent",
      () => sent().includes("tools/call") && sent().includes("prompts/list") || undefined,
    );
    await client.close();
    assert.deepEqual(await Promise.all(pending), [
      ["cancelled", undefined, 'Call of tools/call to server "demo" was cancelled'],
      ["cancelled", undefined, 'Call of prompts/list to server "demo" was cancelled'],
    ]);
  });
});
