// The legacy client against a hostile legacy Streamable HTTP server (a real process on loopback):
// a flood of server requests, cancellations for ids never sent, a response to a request never
// made, a malformed event, connections reset mid-stream (resumable or not), a slow-loris stream,
// and a server that dies mid-call and comes back on the same port.
import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client, Handler, Policy } from "../../src/legacy.ts";
import { eventually } from "../_support/eventually.ts";
import { heapAfterGc } from "../_support/heap.ts";
import type { HostileLegacyLog } from "../_support/hostile-legacy-http-server.ts";
import { type HostileHttpServer, startHostileHttp } from "../_support/hostile-process.ts";
import {
  ACCEPT,
  budgetHolds,
  BUSY,
  closeClients,
  data,
  failure,
  heldElicitation,
  legacyClient,
  slowElicitationAndRoots,
  stillWorks,
} from "./_kit.ts";

const SCRIPT = "hostile-legacy-http-server.ts";
let server: HostileHttpServer<HostileLegacyLog>;
before(async () => {
  server = await startHostileHttp(SCRIPT);
});
after(async () => {
  await server?.stop();
});

const FLOOD = 1000;
const client = (handler: Handler, policy: Partial<Policy> = {}): Client =>
  legacyClient({ url: server.url }, handler, { policy });

const REQUEST = String.raw`Server "hostile": Request \d+ \("tools/call"\): `;

describe("a legacy client against a hostile legacy HTTP server", () => {
  afterEach(closeClients);
  test(
    "answers 992 of a 1 000-request flood -32000 busy while 8 run, 8 answers in flight at most; the heap stays within 8 MB",
    {
      timeout: 60_000,
    },
    async () => {
      const held = heldElicitation();
      const c = client(held.handler);
      // The server says when every request but the 8 running ones has been answered.
      c.onNotification((entry) => {
        if (entry.kind === "notification" && entry.method === "notifications/hostile/flood_refused") {
          held.release();
        }
      });
      await stillWorks(c);
      const opened = (await server.log()).connections;
      const before = heapAfterGc();
      const result = data(await c.callTool("hostile", "flood", { count: FLOOD, hold: 8 }));
      const growth = heapAfterGc() - before;
      assert.deepEqual([result.tally, held.calls], [{ "result:accept": 8, [BUSY]: FLOOD - 8 }, 8]);
      // Answers are POSTed at most 8 at a time, over kept-alive sockets (7 to 14 connections seen on
      // Node, Deno and Bun); without that limit every answer took a socket of its own (about 1000).
      const sockets = (await server.log()).connections - opened;
      assert.ok(sockets <= 24, `the flood's answers opened ${sockets} connections`);
      assert.ok(growth < 8 * 1024 * 1024, `the heap grew by ${growth} bytes over the flood`);
      await stillWorks(c);
      await c.close();
    },
  );

  test("holds the input budget: of 30 requests one at a time, burst 20 are answered, 10 refused -32000", () =>
    budgetHolds(client));

  test("ignores cancellations for unknown or malformed ids: the running request is not aborted, nothing extra is sent", async () => {
    const signals: AbortSignal[] = [];
    const c = client(slowElicitationAndRoots(signals));
    await stillWorks(c);
    await server.clearLog();
    const result = data(await c.callTool("hostile", "unknown_cancel"));
    const answers = result.answers as Array<{ id: string; result: unknown }>;
    assert.deepEqual(answers.map((answer) => answer.result), [ACCEPT, {
      roots: [{ uri: "file:///srv/project" }],
    }]);
    assert.deepEqual(signals.map((signal) => signal.aborted), [false]);
    const posted = (await server.log()).requests.map((request) => request.rpc);
    assert.deepEqual(posted, ["tools/call unknown_cancel", "response", "response"]);
    await stillWorks(c);
    await c.close();
  });

  test("fails a call whose stream carries a response to a request never made, or a malformed event, with kind protocol", async () => {
    const c = client({});
    const stray = await failure(c.callTool("hostile", "stray_responses"));
    assert.equal(stray.kind, "protocol");
    assert.match(
      stray.message,
      new RegExp(
        `^${REQUEST}SSE event: expected the response to request (\\d+), received a response to request 424242$`,
      ),
    );
    const malformed = await failure(c.callTool("hostile", "malformed"));
    assert.equal(malformed.kind, "protocol");
    assert.match(
      malformed.message,
      new RegExp(
        `^${REQUEST}SSE event data: \\$: expected JSON text, received text that is not JSON \\(5 characters\\)$`,
      ),
    );
    await stillWorks(c);
    await c.close();
  });

  test("resumes a stream reset after an event id with GET Last-Event-ID; fails one reset without any with kind transport", async () => {
    const c = client({});
    await stillWorks(c);
    await server.clearLog();
    assert.deepEqual(data(await c.callTool("hostile", "reset_ids")), { resumed: "s1" });
    assert.deepEqual((await server.log()).requests.map((request) => `${request.http} ${request.rpc}`), [
      "POST tools/call reset_ids",
      "POST response", // to the ping in the event with the id, before the reset
      "GET resume",
    ]);
    const reset = await failure(c.callTool("hostile", "reset_no_ids"));
    assert.equal(reset.kind, "transport");
    assert.match(
      reset.message,
      new RegExp(
        `^${REQUEST}SSE stream failed before the response to request \\d+: .+, and it cannot be resumed: expected an SSE event with an "id" before the stream ended, received none$`,
      ),
    );
    await stillWorks(c);
    await c.close();
  });

  test("ends a slow-loris stream (a byte per 100 ms) at callTimeout 1s, other calls unaffected", {
    timeout: 30_000,
  }, async () => {
    const c = client({}, { callTimeout: "1s" });
    await stillWorks(c);
    const started = performance.now();
    const slow = failure(c.callTool("hostile", "slow"));
    await stillWorks(c);
    assert.deepEqual(await slow, {
      kind: "timeout",
      code: undefined,
      message: 'Server "hostile": no response to tools/call within 1000 ms (callTimeout)',
    });
    assert.ok(performance.now() - started < 10_000, "the call took over 10 s");
    await stillWorks(c);
    await c.close();
  });

  test(
    "fails a call whose server dies mid-stream with kind transport, then starts a new session with its replacement",
    {
      timeout: 30_000,
    },
    async () => {
      // Kind transport, not timeout: the call ended on the exit, not at its callTimeout (60 s).
      const c = client({});
      await stillWorks(c);
      const died = await failure(c.callTool("hostile", "die", { code: 9 }));
      assert.equal(died.kind, "transport");
      assert.match(
        died.message,
        new RegExp(`^${REQUEST}SSE stream failed before the response to request \\d+: .+`),
      );
      assert.equal(await server.exited, 9);
      // A new server on the same port forgets the session: 404, then initialize again, then the call.
      server = await startHostileHttp(SCRIPT, { port: server.port });
      await stillWorks(c);
      // The standalone GET stream and notifications/initialized go out together, in either order;
      // so do logging/setLevel (at the policy's logLevel) and the call, whose answer may come back
      // before the server has read logging/setLevel: wait for all six.
      const log = await eventually("six requests at the new server", async () => {
        const { requests } = await server.log();
        return requests.length >= 6 ? requests : undefined;
      });
      const seen = log.map((request) => `${request.http} ${request.rpc}`);
      assert.deepEqual([...seen.slice(0, 2), ...seen.slice(2, 4).sort(), ...seen.slice(4).sort()], [
        "POST tools/call echo",
        "POST initialize",
        "GET listen",
        "POST notifications/initialized",
        "POST logging/setLevel",
        "POST tools/call echo",
      ]);
      assert.notEqual(log[0]?.session, log.at(-1)?.session);
      await c.close();
    },
  );
});
