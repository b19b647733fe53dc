// The legacy session's handshake through the legacy entry's client, against a scripted legacy
// HTTP server: the handshake is shared by the calls waiting for it, and one of them cancelled
// fails alone; a refused or unanswered notifications/initialized ends the session. Runs on every
// runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../../src/client/legacy/legacy-client.ts";
import { legacyHandshake, result, scriptedServer } from "../../_support/scripted-server.ts";
import type { Client } from "../../../src/client/client-types.ts";
import { cancelFirstOfTwo, gate, URL_ } from "../_client-fixtures.ts";
import { legacySetup } from "./_legacy-fixtures.ts";
import { ClientError } from "../../../src/errors.ts";
import { drive, FakeTime } from "../../_support/fake-time.ts";

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
   * A client of a 2025-11-25 server answering initialize with session "S1" and
   * notifications/initialized with `accepted`; the GET stream stays open until its signal fires.
   */
  function sessionServer(accepted: () => Response | Promise<Response>, time?: FakeTime) {
    const server = scriptedServer((request) => {
      if (request.body.method === "notifications/initialized") return accepted();
      const handshake = legacyHandshake(request.body, "2025-11-25", "echo") ??
        new Response(null, { status: 500 });
      // A session the client must end with a DELETE.
      return new Response(handshake.body, {
        headers: { "content-type": "application/json", "mcp-session-id": "S1" },
      });
    });
    const sent: string[] = [];
    const listening: AbortSignal[] = [];
    const client = createClient({
      name: "agent",
      policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy", callTimeout: "1s" }],
      ...(time === undefined ? {} : { timers: time, clock: time }),
      fetch: (url, init) => {
        sent.push(`${init.method} ${new Headers(init.headers).get("mcp-session-id") ?? "-"}`);
        if (init.method === "POST") return server.fetch(url, init);
        // The standalone GET stream stays open until its signal fires; the DELETE is accepted.
        if (init.method === "DELETE") return Promise.resolve(new Response(null, { status: 200 }));
        if (init.signal) listening.push(init.signal);
        return Promise.resolve(
          new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } }),
        );
      },
    });
    return { client, sent, listening };
  }

  test("a notifications/initialized left unanswered fails the call after the handshake's callTimeout, and ends the session and its GET stream", async () => {
    const time = new FakeTime();
    const { client, sent, listening } = sessionServer(() => new Promise<Response>(() => {}), time);
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
      const session = ["POST -", "GET S1", "POST S1", "DELETE S1"];
      assert.deepEqual(sent, [...session, ...session]);
    } finally {
      await client.close();
    }
  });

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
        assert.deepEqual(sent, ["POST -", "GET S1", "POST S1", "DELETE S1"]);
      } finally {
        await client.close();
      }
    });
  }
});
