// The legacy client against a hostile stdio server (a real process): a flood of server requests,
// cancellations for ids never sent, responses to requests never made, malformed frames, progress
// for a throwing onProgress, progress and logs read together, a server that dies mid-call and one
// that stops reading its stdin. After each, the client still works.
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, type Handler, type Policy } from "../../src/legacy.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import { heapAfterGc } from "../_support/heap.ts";
import { hostileStdioTransport } from "../_support/hostile-process.ts";
import { callWithThrowingProgress, CLEAN_PROGRESS } from "../_support/throwing-progress.ts";
import { np, same } from "../_support/exact.ts";
import { HEARD_IN_ORDER, orderRecorder } from "../_support/delivery-order.ts";
import {
  ACCEPT,
  budgetHolds,
  BUSY,
  closeClients,
  data,
  heldElicitation,
  legacyClient,
  slowElicitationAndRoots,
  stillWorks,
} from "./_kit.ts";

const FLOOD = 20_000;
const client = (handler: Handler, policy: Partial<Policy> = {}): Client =>
  legacyClient(hostileStdioTransport(), handler, { policy });

describe("a legacy client against a hostile stdio server", () => {
  afterEach(closeClients);
  test("answers 19 992 of a 20 000-request flood -32000 busy while 8 run; the heap stays within 8 MB", {
    timeout: 60_000,
  }, async () => {
    const held = heldElicitation();
    const c = client(held.handler, { inputRateLimit: { rate: 1, per: "1h", burst: 20 } });
    // The server says when every request but the 8 running ones has been answered.
    c.onNotification((entry) => {
      if (entry.kind === "notification" && entry.method === "notifications/hostile/flood_refused") {
        held.release();
      }
    });
    await stillWorks(c);
    const before = heapAfterGc();
    const result = data(await c.callTool("hostile", "flood", { count: FLOOD, hold: 8 }));
    const growth = heapAfterGc() - before;
    assert.deepEqual([result.tally, held.calls], [{ "result:accept": 8, [BUSY]: FLOOD - 8 }, 8]);
    assert.ok(growth < 8 * 1024 * 1024, `the heap grew by ${growth} bytes over the flood`);
    await stillWorks(c);
    await c.close();
  });

  test("holds the input budget: of 30 requests one at a time, burst 20 are answered, 10 refused -32000", () =>
    budgetHolds(client));

  test("ignores cancellations for unknown or malformed ids: the running request is not aborted, nothing extra is sent", async () => {
    const signals: AbortSignal[] = [];
    const c = client(slowElicitationAndRoots(signals));
    const result = data(await c.callTool("hostile", "unknown_cancel"));
    assert.deepEqual(result.answers, [
      { jsonrpc: "2.0", id: "r0", result: ACCEPT },
      { jsonrpc: "2.0", id: "r1", result: { roots: [{ uri: "file:///srv/project" }] } },
    ]);
    assert.deepEqual(signals.map((signal) => signal.aborted), [false]);
    const received = data(await c.callTool("hostile", "received"));
    // One answer each, nothing more; in either order (the elicitation's 100 ms usually puts r1
    // first, but a busy machine may not).
    assert.deepEqual([received.responses, [...received.tail as string[]].sort()], [2, ["r0", "r1"]]);
    await stillWorks(c);
    await c.close();
  });

  test("delivers progress sanitized off the pipe's read: a throwing onProgress is logged and skipped, the call returns, the process goes on", async () => {
    const c = client({});
    const { pid } = data(await c.callTool("hostile", "pid"));
    const { value, heard, logged } = await callWithThrowingProgress((onProgress) =>
      c.callTool("hostile", "progress", {}, { onProgress })
    );
    assert.deepEqual(data(value), { progress: 1 });
    // Its token counts the session's requests: initialize, logging/setLevel, tools/list, the pid
    // call, then this call.
    same(heard, [np({ progressToken: "sluice-5", progress: 1, message: CLEAN_PROGRESS })]);
    assert.deepEqual(logged, [[
      `A call's onProgress threw on "notifications/progress" from server "hostile": "ui gone"`,
    ]]);
    assert.deepEqual(data(await c.callTool("hostile", "pid")), { pid });
    await c.close();
  });

  test("delivers progress and log entries read together in the order the server sent them: onProgress, handler.log and a subscriber interleave, all before the result", async () => {
    const { heard, handler, subscriber, onProgress } = orderRecorder();
    const c = client(handler);
    c.onNotification(subscriber);
    assert.deepEqual(data(await c.callTool("hostile", "progress_and_logs", {}, { onProgress })), { sent: 4 });
    heard.push("result");
    assert.deepEqual(heard, HEARD_IN_ORDER);
    await c.close();
  });

  test("drops responses to requests it never sent, and the call completes", async () => {
    const c = client({});
    assert.deepEqual(data(await c.callTool("hostile", "stray_responses")), { strays: 3 });
    await stillWorks(c);
    await c.close();
  });

  test("drops malformed frames (not JSON, a batch, invalid UTF-8, bad fields) and keeps reading", async () => {
    const c = client({});
    const heard: string[] = [];
    c.onNotification((entry) => void (entry.kind === "notification" && heard.push(entry.method)));
    assert.deepEqual(data(await c.callTool("hostile", "malformed")), { malformed: 8 });
    await stillWorks(c);
    await c.close();
    // The one well-formed line among them (ended by CR LF) was read.
    assert.deepEqual(heard, ["notifications/hostile/crlf"]);
  });

  test("fails a call whose server dies mid-call with kind transport at once, and the next call restarts it", async () => {
    // Kind transport, not timeout: the call ended on the exit, not at its callTimeout (60 s).
    const c = client({});
    const { pid } = data(await c.callTool("hostile", "pid"));
    const error = await c.callTool("hostile", "die", { code: 9 }).catch((e: unknown) => e);
    assert.ok(error instanceof ClientError);
    assert.equal(error.kind, "transport");
    assert.match(
      error.message,
      /^Server "hostile": Request \d+ "tools\/call" got no response: the connection ended \(process exited with code 9\)$/,
    );
    const restarted = data(await c.callTool("hostile", "pid"));
    assert.equal(typeof restarted.pid, "number");
    assert.notEqual(restarted.pid, pid);
    await stillWorks(c);
    await c.close();
  });

  test(
    "times out calls and rootsChanged() to a server that stops reading stdin (512 KiB stuck in the pipe), and close() still finishes",
    {
      timeout: 30_000,
    },
    async () => {
      // The deadlines run on a fake clock, moved only while a stuck call waits: starting the
      // server (node with tsx, slow on a busy machine) spends none of them.
      const time = new FakeTime();
      // A roots handler: a client that declared no roots has none to say changed.
      const c = legacyClient(hostileStdioTransport(), { roots: () => ({ roots: [] }) }, {
        policy: { callTimeout: "2s" },
        timers: time,
        clock: time,
      });
      assert.deepEqual(data(await c.callTool("hostile", "stop_reading")), { reading: false });
      const timeout = {
        kind: "timeout",
        message: 'Server "hostile": no response to tools/call within 2000 ms (callTimeout)',
      };
      for (const args of [{ big: "x".repeat(512 * 1024) }, { small: true }]) {
        const error = await drive(time, c.callTool("hostile", "echo", args).catch((e: unknown) => e));
        assert.ok(error instanceof ClientError);
        assert.deepEqual({ kind: error.kind, message: error.message }, timeout);
      }
      // A notification waits behind those bytes: it fails once its own callTimeout passes.
      const start = time.now();
      const changed = c.rootsChanged("hostile").then(
        () => "sent",
        (error: ClientError) => [error.kind, error.message],
      );
      const late = new Promise((resolve) => time.setTimeout(() => resolve("pending after 10 s"), 10_000));
      assert.deepEqual([await drive(time, Promise.race([changed, late])), time.now() - start], [
        [
          "timeout",
          'Server "hostile": no response to notifications/roots/list_changed within 2000 ms (callTimeout)',
        ],
        2000,
      ]);
      // close() waits the stdio graceMs (real time) before SIGTERM: the server ignores its stdin.
      const closing = performance.now();
      await c.close();
      assert.ok(performance.now() - closing < 20_000, "close() took over 20 s");
    },
  );
});
