// createLegacyHttpConnection() against the scripted legacy server (tests/peers/legacy-http-server.ts)
// and against @modelcontextprotocol/server-everything in its streamable HTTP mode.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import process from "node:process";
import type { AddressInfo } from "node:net";
import { createNodeFetch } from "../../src/transport/node-fetch.ts";
import { ConnectionError, type ServerMessage } from "../../src/transport/legacy-connection.ts";
import type { JsonRpcRequest } from "../../src/protocol/jsonrpc.ts";
import {
  type LegacyHttpPeer,
  type LoggedRequest,
  startLegacyHttpPeer,
} from "../_support/legacy-http-peer.ts";
import { type EverythingHttp, startEverythingHttp } from "../_support/everything.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import {
  callTool,
  handshake,
  MCP_HEADERS,
  noAbort,
  open,
  pick,
  recordingFetch,
  SECRET,
  spyTimers,
  sseResponse,
  until,
} from "./_legacy-http-fixtures.ts";

const SESSION = "sess-7f3a~Z!";
const VERSION = "2025-11-25";
const ROOTS = { roots: [{ uri: "file:///srv/project", name: "project" }] };

function answerRoots(message: ServerMessage, connection: { respond(m: never): Promise<void> }): void {
  if ("id" in message.message) {
    const request = message.message as JsonRpcRequest;
    void connection.respond({ jsonrpc: "2.0", id: request.id, result: ROOTS } as never);
  }
}

function asked(id: string, related: number | undefined): ServerMessage {
  return { message: { jsonrpc: "2.0", id, method: "roots/list", params: {} }, related };
}

function note(data: string, related: number | undefined): ServerMessage {
  return {
    message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } },
    related,
  };
}

function rootsAnswer(id: string) {
  return { jsonrpc: "2.0", id, result: ROOTS };
}

describe("createLegacyHttpConnection() against the scripted legacy server", () => {
  let peer: LegacyHttpPeer;
  const log = async (filter: (r: LoggedRequest) => boolean = () => true) => (await peer.log()).filter(filter);

  before(async () => {
    peer = await startLegacyHttpPeer();
  });
  after(async () => {
    await peer.stop();
  });
  beforeEach(async () => {
    await peer.configure({
      get: "sse",
      getRetryMs: null,
      getCloseMs: null,
      delete: "200",
      sessionId: SESSION,
    });
    await peer.clearLog();
  });

  test("initialize keeps the Mcp-Session-Id and sends it with MCP-Protocol-Version on every later request", async () => {
    const { connection } = open(peer.url);
    assert.deepEqual(await handshake(connection), {
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: "legacy-http-server", version: "1.0.0" },
      },
    });
    const listed = await connection.request({ jsonrpc: "2.0", id: 1, method: "tools/list" }, noAbort());
    assert.ok("result" in listed, "tools/list answered with an error");
    assert.deepEqual((listed.result.tools as { name: string }[]).map((t) => t.name), [
      "echo",
      "ask",
      "ask_on_get",
      "poll",
      "expire_session",
    ]);
    await connection.close();
    const posts = (await log((r) => r.method === "POST")).map((r) => ({
      status: r.status,
      headers: pick(r.headers, MCP_HEADERS),
    }));
    const post = {
      accept: "application/json, text/event-stream",
      authorization: SECRET,
      "content-type": "application/json",
    };
    const later = { ...post, "mcp-protocol-version": VERSION, "mcp-session-id": SESSION };
    assert.deepEqual(posts, [
      { status: 200, headers: post },
      { status: 202, headers: later },
      { status: 200, headers: later },
    ]);
  });

  test("request() delivers an SSE answer's server requests and notifications with related = its id, answered via respond()", async () => {
    const { connection, messages } = open(peer.url, { onServerMessage: answerRoots });
    await handshake(connection);
    const response = await connection.request(callTool(5, "ask", { count: 2 }), noAbort());
    const answers = [rootsAnswer("ask-1"), rootsAnswer("ask-2")];
    assert.deepEqual(response, {
      jsonrpc: "2.0",
      id: 5,
      result: { content: [{ type: "text", text: JSON.stringify(answers) }], structuredContent: { answers } },
    });
    assert.deepEqual(messages, [note("asking 2 roots/list", 5), asked("ask-1", 5), asked("ask-2", 5)]);
    const answered = await log((r) =>
      r.method === "POST" && (r.body as { result?: unknown }).result !== undefined
    );
    assert.deepEqual(answered.map((r) => [r.status, r.body]), answers.map((a) => [202, a]));
    await connection.close();
  });

  test("negotiated() opens the standalone GET stream; its server requests come with related undefined", async () => {
    const { connection, messages } = open(peer.url, { onServerMessage: answerRoots });
    await handshake(connection);
    const [get] = await until("the GET stream", async () => {
      const gets = await log((r) => r.method === "GET" && r.status === 200);
      return gets.length > 0 ? gets : undefined;
    });
    assert.deepEqual(pick(get!.headers, MCP_HEADERS), {
      accept: "text/event-stream",
      authorization: SECRET,
      "mcp-protocol-version": VERSION,
      "mcp-session-id": SESSION,
    });
    const response = await connection.request(callTool(6, "ask_on_get", { count: 1 }), noAbort());
    const answers = [rootsAnswer("ask-1")];
    assert.deepEqual(response, {
      jsonrpc: "2.0",
      id: 6,
      result: { content: [{ type: "text", text: JSON.stringify(answers) }], structuredContent: { answers } },
    });
    assert.deepEqual(messages, [note("asking 1 roots/list", undefined), asked("ask-1", undefined)]);
    await connection.close();
  });

  test("request() resumes a stream closed early: waits at least retry, then GETs with the exact Last-Event-ID", async () => {
    const timers = spyTimers();
    const { connection, messages } = open(peer.url, { timers });
    await handshake(connection);
    const response = await connection.request(callTool(7, "poll", { retryMs: 300, closes: 2 }), noAbort());
    assert.deepEqual(response, {
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "polled" }], structuredContent: { resumes: 2 } },
    });
    assert.deepEqual(messages, [note("resume 1", 7), note("resume 2", 7)]);
    const resumes = await log((r) => r.resumed !== undefined);
    const stream = resumes[0]!.resumed!.stream;
    assert.deepEqual(
      resumes.map((r) => ({ status: r.status, headers: pick(r.headers, MCP_HEADERS) })),
      [
        `${stream}-1`,
        `${stream}-3`,
      ].map((id) => ({
        status: 200,
        headers: {
          accept: "text/event-stream",
          authorization: SECRET,
          "last-event-id": id,
          "mcp-protocol-version": VERSION,
          "mcp-session-id": SESSION,
        },
      })),
    );
    // The notifications/initialized POST's deadline, then each resumption's wait: the stream's
    // retry, asked of the timers exactly (a bound on real time would fail on a busy machine); the
    // server saw the client wait at least that long.
    assert.deepEqual(timers.delays, [60_000, 300, 300]);
    for (const { resumed } of resumes) {
      assert.ok(resumed!.waitedMs! >= 300, `waited ${resumed!.waitedMs} ms, retry 300`);
    }
    await connection.close();
  });

  test("request() rejects a stream that ends before the response without any event id", async () => {
    const { connection } = open(peer.url);
    await handshake(connection);
    await assert.rejects(
      connection.request(callTool(8, "poll", { ids: false }), noAbort()),
      new ConnectionError(
        "protocol",
        'Request 8 ("tools/call"): SSE stream ended before the response to request 8, and it cannot be resumed: expected an SSE event with an "id" before the stream ended, received none',
      ),
    );
    await connection.close();
  });

  test("request() gives up after maxResumeAttempts resumptions in a row bring no new event", async () => {
    const { connection } = open(peer.url, { maxResumeAttempts: 2 });
    await handshake(connection);
    const failed = connection.request(callTool(9, "poll", { retryMs: 50, stall: true }), noAbort());
    await assert.rejects(failed, (error: ConnectionError) => {
      assert.equal(error.kind, "protocol");
      assert.match(
        error.message,
        /^Request 9 \("tools\/call"\): SSE stream ended before the response to request 9; gave up resuming from event "s\d+-1" after 2 attempts in a row brought no new event \(maxResumeAttempts 2\)$/,
      );
      return true;
    });
    assert.equal((await log((r) => r.resumed !== undefined)).length, 2);
    await connection.close();
  });

  test("a 404 while a session id is set rejects with session_expired and calls onClose once; close() sends no DELETE", async () => {
    const { connection, closes } = open(peer.url);
    await handshake(connection);
    await connection.request(callTool(10, "expire_session"), noAbort());
    const expired = new ConnectionError(
      "session_expired",
      "Legacy HTTP connection ended: session expired (HTTP 404)",
      {
        status: 404,
      },
    );
    await assert.rejects(connection.request(callTool(11, "echo", { text: "hi" }), noAbort()), expired);
    await assert.rejects(
      connection.notify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
      expired,
    );
    await connection.close();
    assert.deepEqual(closes, [{ kind: "session_expired", reason: "session expired (HTTP 404)" }]);
    assert.deepEqual((await log((r) => r.method === "DELETE")).length, 0);
  });

  test("close() rejects pending requests with closed, sends DELETE with the session id and calls onClose once", async () => {
    const { connection, messages, closes } = open(peer.url);
    await handshake(connection);
    const pending = connection.request(callTool(12, "ask", { count: 1 }), noAbort());
    await until("the server request", () => messages.length === 2 ? true : undefined);
    const rejected = assert.rejects(
      pending,
      new ConnectionError("closed", "Legacy HTTP connection ended: close() was called"),
    );
    await Promise.all([connection.close(), connection.close()]);
    await rejected;
    assert.deepEqual(closes, [{ kind: "closed", reason: "close() was called" }]);
    const deletes = await log((r) => r.method === "DELETE");
    const names = [
      "authorization",
      "mcp-protocol-version",
      "mcp-session-id",
      "last-event-id",
      "content-type",
    ];
    assert.deepEqual(deletes.map((r) => ({ status: r.status, headers: pick(r.headers, names) })), [{
      status: 200,
      headers: { authorization: SECRET, "mcp-protocol-version": VERSION, "mcp-session-id": SESSION },
    }]);
    await assert.rejects(connection.request(callTool(13, "echo"), noAbort()), { kind: "closed" });
  });

  test("close() accepts 405 to DELETE", async () => {
    await peer.configure({ delete: "405" });
    const { connection, closes } = open(peer.url);
    await handshake(connection);
    await connection.close();
    assert.deepEqual((await log((r) => r.method === "DELETE")).map((r) => r.status), [405]);
    assert.deepEqual(closes, [{ kind: "closed", reason: "close() was called" }]);
  });

  test("negotiated() takes 405 on GET as no standalone stream and never retries it", async () => {
    // A session id of its own: a late GET of an earlier test's connection (seen on a busy machine)
    // is not this connection's.
    const sessionId = "get-405-session";
    await peer.configure({ get: "405", sessionId });
    const timers = spyTimers();
    const { connection } = open(peer.url, { timers });
    await handshake(connection);
    const gets = () => log((r) => r.method === "GET" && r.headers["mcp-session-id"] === sessionId);
    await until("the GET", async () => (await gets()).length > 0 ? true : undefined);
    await connection.request({ jsonrpc: "2.0", id: 14, method: "ping" }, noAbort());
    assert.deepEqual((await gets()).map((r) => r.status), [405]);
    // Only the deadline of the notifications/initialized POST (callTimeoutMs): no retry.
    assert.deepEqual(timers.delays, [60_000]);
    await connection.close();
  });

  test("the standalone GET stream reopens after the server's retry with Last-Event-ID", async () => {
    await peer.configure({ getRetryMs: 250, getCloseMs: 30 });
    const { connection } = open(peer.url);
    await handshake(connection);
    const resumed = await until(
      "the GET reconnection",
      async () => (await log((r) => r.resumed !== undefined))[0],
    );
    assert.deepEqual(pick(resumed.headers, MCP_HEADERS), {
      accept: "text/event-stream",
      authorization: SECRET,
      "last-event-id": `${resumed.resumed!.stream}-1`,
      "mcp-protocol-version": VERSION,
      "mcp-session-id": SESSION,
    });
    assert.ok(resumed.resumed!.waitedMs! >= 250, `waited ${resumed.resumed!.waitedMs} ms, retry 250`);
    await connection.close();
  });

  test("a redirect to another origin drops the policy's headers; one to the same origin keeps them", async () => {
    const away = open(peer.url.replace("/mcp", "/moved-away"), { redirect: "any" });
    await handshake(away.connection);
    await away.connection.close();
    const here = open(peer.url.replace("/mcp", "/moved-here"));
    await here.connection.request({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }, noAbort());
    await here.connection.close();
    const seen = (await log((r) => r.method === "POST")).map((
      r,
    ) => [r.listener, r.path, r.headers.authorization ?? null]);
    assert.deepEqual(seen, [
      ["main", "/moved-away", SECRET],
      ["other", "/mcp", null],
      ["main", "/moved-away", SECRET],
      ["other", "/mcp", null],
      ["main", "/moved-here", SECRET],
      ["main", "/mcp", SECRET],
    ]);
  });

  test('a redirect to another origin under "same-origin" is refused', async () => {
    const { connection } = open(peer.url.replace("/mcp", "/moved-away"));
    const origin = new URL(peer.otherOrigin).origin;
    await assert.rejects(
      connection.request({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }, noAbort()),
      new ConnectionError(
        "http",
        `POST to ${
          peer.url.replace("/mcp", "/moved-away")
        }: redirect to another origin (${origin}) refused: the policy's "transport.redirect" is "same-origin"`,
      ),
    );
  });

  test("respond() rejects a refusal with an http ConnectionError carrying the status", async () => {
    const { connection } = open(peer.url);
    await handshake(connection);
    await assert.rejects(
      connection.respond({ jsonrpc: "2.0", id: "nobody", result: {} }),
      new ConnectionError(
        "http",
        `Answer to server request "nobody" was refused with HTTP 400: expected 202 Accepted, received ${
          JSON.stringify(JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32600, message: 'No server request "nobody" awaits an answer' },
            id: null,
          }))
        }`,
        { status: 400 },
      ),
    );
    await connection.close();
  });

  test("request() rejects with aborted when the caller's signal fires", async () => {
    const { connection, messages } = open(peer.url);
    await handshake(connection);
    const controller = new AbortController();
    const pending = connection.request(callTool(15, "ask", { count: 1 }), { signal: controller.signal });
    await until("the server request", () => messages.length === 2 ? true : undefined);
    controller.abort();
    await assert.rejects(pending, { name: "ConnectionError", kind: "aborted" });
    await connection.close();
  });

  test("initialize refuses an Mcp-Session-Id that is not visible ASCII", async () => {
    await peer.configure({ sessionId: "two words" });
    const { connection } = open(peer.url);
    await assert.rejects(
      handshake(connection),
      new ConnectionError(
        "protocol",
        'Mcp-Session-Id of the initialize response is invalid: expected 1 to 1024 visible ASCII characters (0x21-0x7E), received "two words" (9 characters)',
      ),
    );
  });
});

describe("createLegacyHttpConnection() against server-everything over streamable HTTP", () => {
  let server: EverythingHttp;

  before(async () => {
    server = await startEverythingHttp();
  });
  after(async () => {
    await server.stop();
  });

  test("keeps its session id, answers its sampling request via respond(), opens the GET stream, DELETEs on close", async () => {
    const recorder = recordingFetch();
    const answers: Promise<void>[] = [];
    const { connection, messages, closes } = open(server.url, {
      fetch: recorder.fetch,
      onServerMessage: (message, c) => {
        if (!("id" in message.message)) return;
        const request = message.message;
        const result = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
        answers.push(c.respond({ jsonrpc: "2.0", id: request.id, result }));
      },
    });
    await handshake(connection, { sampling: {} });
    const response = await connection.request(
      callTool(2, "trigger-sampling-request", { prompt: "hi", maxTokens: 5 }),
      noAbort(),
    );
    const text = `LLM sampling result: \n${
      JSON.stringify({ model: "m", role: "assistant", content: { type: "text", text: "ok" } }, null, 2)
    }`;
    assert.deepEqual(response, { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text }] } });
    // The GET stream carries notifications/tools/list_changed when it opened in time to get them.
    const unrelated = messages.filter((m) => m.related === undefined).map((m) => m.message);
    assert.deepEqual(
      unrelated,
      unrelated.map(() => ({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })),
    );
    assert.deepEqual(messages.filter((m) => m.related !== undefined), [{
      message: {
        jsonrpc: "2.0",
        id: 0,
        method: "sampling/createMessage",
        params: {
          messages: [{
            role: "user",
            content: { type: "text", text: "Resource trigger-sampling-request context: hi" },
          }],
          systemPrompt: "You are a helpful test server.",
          maxTokens: 5,
          temperature: 0.7,
        },
      },
      related: 2,
    }]);
    await until(
      "the GET stream",
      () => recorder.seen.some((e) => e.method === "GET") ? true : undefined,
    );
    // The server may send the call's result before it answers the POST of the sampling answer (on
    // a busy machine, seen): closing now would cut that POST off.
    await Promise.all(answers);
    await connection.close();
    assert.deepEqual(closes, [{ kind: "closed", reason: "close() was called" }]);
    const session = recorder.seen[0]!.sessionHeader!;
    assert.match(session, /^[0-9a-f-]{36}$/);
    // The GET stream opens concurrently with notifications/initialized: compare it on its own.
    const seen = (method: string) =>
      recorder.seen.filter((e) => (e.method === "GET") === (method === "GET"))
        .map((e) => [e.method, e.status, e.headers["mcp-session-id"] ?? null]);
    assert.deepEqual(seen("GET"), [["GET", 200, session]]);
    assert.deepEqual(seen("other"), [
      ["POST", 200, null],
      ["POST", 202, session],
      ["POST", 200, session],
      ["POST", 202, session],
      ["DELETE", 200, session],
    ]);
  });
});

describe("createLegacyHttpConnection() with an injected fetch and a fake clock", () => {
  const URL = "http://127.0.0.1:9/mcp";
  const initialized = () =>
    Response.json({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: VERSION, capabilities: {}, serverInfo: {} },
    }, {
      headers: { "mcp-session-id": SESSION },
    });

  /** A fetch whose tools/call stream ends after event e1 with `retry`; a GET after e1 brings the result. */
  function pollingFetch(time: FakeTime, retry: string, gets: [number, string | null][]) {
    return (_url: string, init: RequestInit): Promise<Response> => {
      const headers = new Headers(init.headers);
      if (init.method === "GET") {
        gets.push([time.now(), headers.get("last-event-id")]);
        if (headers.get("last-event-id") === "e1") {
          return Promise.resolve(sseResponse("id: e2\nretry: 60000\ndata: \n\n"));
        }
        return Promise.resolve(
          sseResponse(`id: e3\ndata: {"jsonrpc":"2.0","id":3,"result":{"ok":true}}\n\n`),
        );
      }
      const body = JSON.parse(String(init.body)) as { id?: number; method: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      if (body.id === undefined) return Promise.resolve(new Response(null, { status: 202 }));
      return Promise.resolve(sseResponse(`id: e1\n${retry}data: \n\n`));
    };
  }

  test("request() waits 1000 ms without a retry, and the server's retry in full (above maxRetryMs), before each resumption", async () => {
    const time = new FakeTime();
    const gets: [number, string | null][] = [];
    const { connection } = open(URL, { fetch: pollingFetch(time, "", gets), timers: time, maxRetryMs: 2500 });
    await connection.request({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }, noAbort());
    const response = await drive(time, connection.request(callTool(3, "slow"), noAbort()), {
      untilMs: 120_000,
    });
    assert.deepEqual(response, { jsonrpc: "2.0", id: 3, result: { ok: true } });
    assert.deepEqual(gets, [[1000, "e1"], [61000, "e2"]]);
    await connection.close();
  });

  test("respond() and notify() POSTs the server never answers fail after callTimeoutMs, and a held answer frees its slot for the 9th", async () => {
    const time = new FakeTime();
    const posted: [string, number][] = [];
    const fetch = (_url: string, init: RequestInit): Promise<Response> => {
      if (init.method !== "POST") return Promise.resolve(new Response(null, { status: 405 }));
      const body = JSON.parse(String(init.body)) as { id?: string; method?: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      if (body.method === "notifications/initialized") {
        return Promise.resolve(new Response(null, { status: 202 }));
      }
      posted.push([body.method ?? body.id ?? "", time.now()]);
      // Held until aborted, as a server that never answers.
      const signal = init.signal!;
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true })
      );
    };
    const { connection } = open(URL, { fetch, timers: time, callTimeoutMs: 1000 });
    await handshake(connection);
    const outcome = (sent: Promise<void>) =>
      sent.then(() => "sent", (error: ConnectionError) => [error.kind, error.message, String(error.cause)]);
    const answers = Array.from(
      { length: 9 },
      (_, i) => outcome(connection.respond({ jsonrpc: "2.0", id: `a${i + 1}`, result: {} })),
    );
    const notified = outcome(
      connection.notify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
    );
    await drive(time, until("the 9th answer", () => posted.length === 10 ? true : undefined), {
      untilMs: 5000,
    });
    const aborted = [
      "aborted",
      `POST to ${URL} was aborted`,
      "DeadlineReached: callTimeout of 1000 ms reached",
    ];
    await drive(time, Promise.all(answers), { untilMs: 5000 });
    assert.deepEqual({ posted, time: time.now() }, {
      posted: [
        ...Array.from({ length: 8 }, (_, i): [string, number] => [`a${i + 1}`, 0]),
        ["notifications/roots/list_changed", 0],
        ["a9", 1000],
      ],
      time: 2000,
    });
    assert.deepEqual(await Promise.all(answers), Array.from({ length: 9 }, () => aborted));
    assert.deepEqual(await notified, aborted);
    await connection.close();
  });

  test("the standalone GET stream backs off 1000, 2000, 4000 ms after streams that end at once, and starts again at 1000 ms after one open 300 s", async () => {
    const time = new FakeTime();
    const gets: number[] = [];
    // The 4th opening stays open 300 s (a heartbeat, then a proxy's cut); the others end at once.
    const longStream = () => {
      let timer: unknown;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": heartbeat\n\n"));
          timer = time.setTimeout(() => controller.close(), 300_000);
        },
        cancel() {
          time.clearTimeout(timer);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const fetch = (_url: string, init: RequestInit): Promise<Response> => {
      if (init.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
      if (init.method === "GET") {
        gets.push(time.now());
        return Promise.resolve(gets.length === 4 ? longStream() : sseResponse(": heartbeat\n\n"));
      }
      const body = JSON.parse(String(init.body)) as { method: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      return Promise.resolve(new Response(null, { status: 202 }));
    };
    const { connection } = open(URL, { fetch, timers: time });
    await handshake(connection);
    // More real turns than the default between steps, so a stream that ended is read to its end
    // before time moves on to the timer that tells whether its round outlasted its wait.
    await drive(time, until("7 GETs", () => gets.length >= 7 ? true : undefined), {
      untilMs: 400_000,
      turns: 20,
    });
    await connection.close();
    assert.deepEqual(gets, [
      0,
      1000,
      3000,
      7000,
      7000 + 300_000 + 1000,
      7000 + 300_000 + 3000,
      7000 + 300_000 + 7000,
    ]);
  });

  test("request() never resumes before the server's retry: a deadline that comes first ends it with no GET", async () => {
    const time = new FakeTime();
    const gets: [number, string | null][] = [];
    const { connection } = open(URL, { fetch: pollingFetch(time, "retry: 45000\n", gets), timers: time });
    await connection.request({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }, noAbort());
    const deadline = new AbortController();
    time.setTimeout(() => deadline.abort(), 40_000);
    const failed = await drive(time, connection.request(callTool(3, "slow"), { signal: deadline.signal }))
      .catch((error: unknown) => error);
    assert.ok(failed instanceof ConnectionError);
    assert.deepEqual([failed.kind, failed.message, time.now(), gets, time.pending], [
      "aborted",
      'Request 3 ("tools/call") was aborted before its response arrived',
      40_000,
      [],
      0,
    ]);
    await connection.close();
  });

  test("the standalone GET stream waits the server's retry in full (above maxRetryMs) before reopening", async () => {
    const time = new FakeTime();
    const gets: [number, string | null][] = [];
    const fetch = (_url: string, init: RequestInit): Promise<Response> => {
      if (init.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
      if (init.method === "GET") {
        gets.push([time.now(), new Headers(init.headers).get("last-event-id")]);
        // The first opening asks for 45 s; the second ends the stream for good (405).
        return Promise.resolve(
          gets.length === 1
            ? sseResponse("id: g1\nretry: 45000\ndata: \n\n")
            : new Response(null, { status: 405 }),
        );
      }
      const body = JSON.parse(String(init.body)) as { id?: number; method: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      return Promise.resolve(new Response(null, { status: 202 }));
    };
    const { connection } = open(URL, { fetch, timers: time, maxRetryMs: 2500 });
    await handshake(connection);
    await until("the GET", () => gets.length > 0 ? true : undefined);
    await drive(time, until("the second GET", () => gets.length > 1 ? true : undefined), {
      untilMs: 120_000,
    });
    assert.deepEqual(gets, [[0, null], [45_000, "g1"]]);
    await connection.close();
  });

  /** A fetch for the standalone GET stream: each GET is answered by the next of `answers`. */
  function streamFetch(time: FakeTime, answers: readonly (() => Promise<Response>)[], gets: number[]) {
    return (_url: string, init: RequestInit): Promise<Response> => {
      if (init.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
      if (init.method === "GET") {
        gets.push(time.now());
        return answers[gets.length - 1]?.() ?? new Promise<Response>(() => {});
      }
      const body = JSON.parse(String(init.body)) as { id?: number; method: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      return Promise.resolve(new Response(null, { status: 202 }));
    };
  }

  const LIST_CHANGED = { jsonrpc: "2.0", method: "notifications/tools/list_changed" } as const;

  test("the standalone GET stream is reopened after every normal end that brought nothing, backing off from 1000 ms (even with retry 0) to maxRetryMs", async () => {
    const time = new FakeTime();
    const gets: number[] = [];
    // Seven openings end at once with a comment and retry 0 (more than maxResumeAttempts, 5);
    // the eighth carries a notification.
    const quiet = () => Promise.resolve(sseResponse("retry: 0\n: idle\n\n"));
    const answers = [
      ...Array(7).fill(quiet),
      () => Promise.resolve(sseResponse(`data: ${JSON.stringify(LIST_CHANGED)}\n\n`)),
    ];
    const { connection, messages } = open(URL, { fetch: streamFetch(time, answers, gets), timers: time });
    await handshake(connection);
    await drive(time, until("the notification", () => messages.length > 0 ? true : undefined), {
      untilMs: 300_000,
    });
    assert.deepEqual({ gets, messages }, {
      // The ninth at once: the eighth brought an event, so only the server's retry (0) is waited.
      gets: [0, 1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000, 91_000],
      messages: [{ message: LIST_CHANGED, related: undefined }],
    });
    await connection.close();
  });

  test("the standalone GET stream ends after maxResumeAttempts failed openings in a row, a stream that opened starting the count again", async () => {
    const time = new FakeTime();
    const gets: number[] = [];
    const unavailable = () => Promise.resolve(new Response("busy", { status: 503 }));
    const unreachable = () => Promise.reject(new TypeError("fetch failed"));
    // A stream that fails after `first` (once it has been read), or before any byte.
    const failing = (first: string) => () => {
      const chunks = first === "" ? [] : [new TextEncoder().encode(first)];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.error(new TypeError("terminated"));
          else controller.enqueue(chunk);
        },
      });
      return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
    };
    // Four failures; a stream cut after a comment (it opened); then five failures.
    const answers = [
      unavailable,
      unreachable,
      failing(""),
      unavailable,
      failing(": idle\n\n"),
      failing(""),
      unreachable,
      unavailable,
      failing(""),
      unavailable,
    ];
    const { connection, closes } = open(URL, { fetch: streamFetch(time, answers, gets), timers: time });
    await handshake(connection);
    await drive(time, until("the tenth GET", () => gets.length === 10 ? true : undefined), {
      untilMs: 600_000,
    });
    await time.advance(600_000);
    assert.deepEqual({ gets, pending: time.pending, closes }, {
      gets: [0, 1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000, 121_000, 151_000],
      pending: 0,
      closes: [],
    });
    await connection.close();
  });

  test("the standalone GET stream stops for good at a response it must not carry", async () => {
    const timers = spyTimers();
    let getCount = 0;
    const fetch = (_url: string, init: RequestInit): Promise<Response> => {
      if (init.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
      if (init.method === "GET") {
        getCount++;
        return Promise.resolve(sseResponse(`id: g1\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n`));
      }
      const body = JSON.parse(String(init.body)) as { id?: number; method: string };
      if (body.method === "initialize") return Promise.resolve(initialized());
      return Promise.resolve(new Response(null, { status: 202 }));
    };
    const { connection, messages } = open(URL, { fetch, timers });
    await handshake(connection);
    await until("the GET", () => getCount > 0 ? true : undefined);
    // A few event-loop turns for the stream's read to end; a retry would be scheduled by then.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Only the deadline of the notifications/initialized POST (callTimeoutMs): no retry.
    assert.deepEqual({ getCount, delays: timers.delays, messages }, {
      getCount: 1,
      delays: [60_000],
      messages: [],
    });
    await connection.close();
  });
});

describe("createLegacyHttpConnection() resuming from an event id outside Latin-1", () => {
  const ID = "stream→1 é";
  /** What the server read of each GET's Last-Event-ID, decoded from its bytes as UTF-8. */
  const resumedFrom: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (request.method === "GET") {
        const value = request.headers["last-event-id"];
        const bytes = typeof value === "string" ? Uint8Array.from(value, (c) => c.charCodeAt(0)) : undefined;
        resumedFrom.push(bytes === undefined ? undefined : new TextDecoder().decode(bytes));
        return void response.end('data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n');
      }
      // The POST's stream ends after a priming event whose id is past U+00FF.
      response.end(`id: ${ID}\nretry: 10\ndata: \n\n`);
    });
  });
  let url = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // createNodeFetch() is Node's (Bun puts its own module in undici's place).
  const onNode = process.versions.deno === undefined && process.versions.bun === undefined;
  for (const name of ["the global fetch", "createNodeFetch()"]) {
    const nodeOnly = name === "createNodeFetch()";
    test(`sends the id's UTF-8 bytes as Last-Event-ID through ${name}`, {
      skip: nodeOnly && !onNode ? "Node only" : false,
    }, async () => {
      resumedFrom.length = 0;
      const nodeFetch = nodeOnly ? createNodeFetch() : undefined;
      const { connection } = open(url, { fetch: nodeFetch ?? ((u, init) => fetch(u, init)) });
      try {
        const response = await connection.request(callTool(7, "x"), noAbort());
        assert.deepEqual({ response, resumedFrom }, {
          response: { jsonrpc: "2.0", id: 7, result: {} },
          resumedFrom: [ID],
        });
      } finally {
        await connection.close();
        await nodeFetch?.close();
      }
    });
  }
});
