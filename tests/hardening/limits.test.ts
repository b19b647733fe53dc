// The limits that need no process: JSON depth on the text, the reader's limits, the task round
// limit, and each server's share of the notification queue. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exceedsJsonDepth } from "../../src/protocol/message-limits.ts";
import { parseMessage } from "../../src/protocol/jsonrpc.ts";
import { readResponse } from "../../src/transport/read-response.ts";
import { createLegacyHttpConnection } from "../../src/transport/legacy-http-connection.ts";
import { systemTimers } from "../../src/_internal/timers.ts";
import { createNotificationQueue } from "../../src/notify/notification-queue.ts";
import { result, toolsList } from "../_support/scripted-server.ts";
import { failure, setup } from "../client/_client-fixtures.ts";

const nested = (depth: number, inner = "") => "[".repeat(depth) + inner + "]".repeat(depth);

describe("exceedsJsonDepth()", () => {
  test("counts arrays and objects, the outermost as level 1, and allows exactly the limit", () => {
    assert.deepEqual(
      [
        exceedsJsonDepth(nested(3), 3),
        exceedsJsonDepth(nested(4), 3),
        exceedsJsonDepth('{"a":{"b":[1]}}', 3),
        exceedsJsonDepth('{"a":{"b":[{}]}}', 3),
        exceedsJsonDepth("[[],[],[]]", 2),
        exceedsJsonDepth('"[[[["', 1),
      ],
      [false, true, false, true, false, false],
    );
  });

  test("skips brackets inside strings, escaped quotes and runs of backslashes included", () => {
    assert.deepEqual(
      [
        exceedsJsonDepth('["[[[[", "\\"[[[[", "\\\\", [1]]', 2),
        exceedsJsonDepth('["\\\\\\"[[[", 1]', 2),
        exceedsJsonDepth('["\\\\\\\\", [[1]]]', 2),
      ],
      [false, false, true],
    );
  });

  test("answers for 1 000 000 levels without recursion, before anything is parsed", () => {
    assert.equal(exceedsJsonDepth(nested(1_000_000), 64), true);
    assert.equal(exceedsJsonDepth(`{"x":"${"[".repeat(1_000_000)}"}`, 64), false);
  });
});

describe("parseMessage() and maxJsonDepth", () => {
  const message = (depth: number) => `{"jsonrpc":"2.0","id":1,"result":{"x":${nested(depth - 2)}}}`;

  test("accepts a message exactly 64 levels deep and refuses 65 by default", () => {
    assert.equal(parseMessage(message(64)).ok, true);
    assert.deepEqual(parseMessage(message(65)), {
      ok: false,
      path: "$",
      expected: "at most 64 levels of nesting (maxJsonDepth)",
      received: "more than 64",
      message: "$: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
    });
  });

  test("takes the policy's depth and refuses 100 000 levels cleanly", () => {
    assert.equal(parseMessage(message(16), { maxDepth: 16 }).ok, true);
    assert.equal(parseMessage(message(17), { maxDepth: 16 }).ok, false);
    const deep = parseMessage(`{"jsonrpc":"2.0","id":1,"result":{"x":${nested(100_000)}}}`);
    assert.equal(
      deep.ok ? "ok" : deep.message,
      "$: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
    );
  });
});

describe("readResponse() limits", () => {
  test("refuses a JSON body whose Content-Length is over maxMessageBytes before reading it, and cancels it", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => void (cancelled = true),
    });
    const response = new Response(body, {
      headers: { "content-type": "application/json", "content-length": "2048" },
    });
    assert.deepEqual(await readResponse(response, { requestId: 1, maxMessageBytes: 1024 }), {
      kind: "protocol_error",
      message: "JSON response body is larger than 1024 bytes (maxMessageBytes)",
    });
    assert.equal(cancelled, true);
  });

  test("refuses JSON deeper than maxJsonDepth, in a body and in an SSE event", async () => {
    const text = `{"jsonrpc":"2.0","id":1,"result":{"x":${nested(20)}}}`;
    const json = new Response(text, { headers: { "content-type": "application/json" } });
    const sse = new Response(`data: ${text}\n\n`, { headers: { "content-type": "text/event-stream" } });
    const refused = "$: expected at most 16 levels of nesting (maxJsonDepth), received more than 16";
    assert.deepEqual(await readResponse(json, { requestId: 1, maxJsonDepth: 16 }), {
      kind: "protocol_error",
      message: `JSON response body: ${refused}`,
    });
    assert.deepEqual(await readResponse(sse, { requestId: 1, maxJsonDepth: 16 }), {
      kind: "protocol_error",
      message: `SSE event data: ${refused}`,
    });
  });

  test("refuses a depth limit that is not a positive integer", async () => {
    await assert.rejects(
      readResponse(new Response(null, { status: 202 }), { requestId: 1, maxJsonDepth: 0 }),
      {
        name: "RangeError",
        message: 'readResponse(): "maxJsonDepth" must be a positive integer, received "0"',
      },
    );
  });
});

describe("createLegacyHttpConnection() limits", () => {
  test("refuses a message limit that is not a positive integer", () => {
    const transport = {
      kind: "http",
      url: "https://mcp.example.com/mcp",
      origin: "https://mcp.example.com",
      headers: {},
      redirect: "same-origin",
      allowHttp: false,
    } as const;
    const options = { fetch: () => Promise.reject(new Error("unused")), timers: systemTimers };
    for (const name of ["maxMessageBytes", "maxEventBytes", "maxJsonDepth"]) {
      assert.throws(() => createLegacyHttpConnection(transport, { ...options, [name]: 0 }), {
        name: "RangeError",
        message: `createLegacyHttpConnection(): "${name}" must be a positive integer, received "0"`,
      });
    }
  });
});

describe("maxInputRequests on a task's input_required status", () => {
  test("fails the wait before any handler runs and sends no tasks/update", async () => {
    let asked = 0;
    const elicit = {
      method: "elicitation/create",
      params: { message: "Go?", requestedSchema: { type: "object", properties: {} } },
    };
    const inputRequests = { a: elicit, b: elicit, c: elicit };
    const { client, server } = setup((req) => {
      if (req.body.method === "tools/list") return toolsList(req.body.id, []);
      return result(req.body.id, {
        resultType: "complete",
        taskId: "t-1",
        status: "input_required",
        createdAt: "2026-01-01T00:00:00Z",
        lastUpdatedAt: "2026-01-01T00:00:00Z",
        ttlMs: null,
        inputRequests,
      });
    }, {
      handler: { elicitation: () => (asked++, { action: "accept", content: {} }) },
      policy: { maxInputRequests: 2 },
      tasks: true,
    });
    assert.deepEqual(await failure(client.awaitTask("demo", "t-1")), [
      "protocol",
      undefined,
      'Server "demo" sent 3 input requests in one round, expected at most 2 (maxInputRequests)',
    ]);
    assert.deepEqual([asked, server.requests.map((r) => r.body.method)], [0, ["tasks/get"]]);
  });
});

describe("createNotificationQueue() and each server's share", () => {
  const note = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/flood", params: { n } });

  test("a flooding server fills its share; another server's entries still wait", async () => {
    const queue = createNotificationQueue({
      client: "c",
      maxWaiting: 10,
      maxWaitingPerServer: (serverId) => serverId === "a" ? 2 : 10,
    });
    const entries = queue.entries();
    for (let n = 0; n < 5; n++) queue.push("a", "modern", note(n));
    for (let n = 0; n < 3; n++) queue.push("b", "modern", note(n));
    queue.close();
    const read: unknown[] = [];
    for await (const entry of entries) {
      read.push([entry.serverId, entry.kind === "notification" && entry.params.n]);
    }
    assert.deepEqual(read, [["a", 0], ["a", 1], ["b", 0], ["b", 1], ["b", 2]]);
    assert.deepEqual({ ...queue.stats() }, {
      a: { delivered: 2, dropped: 3, rateLimited: 0 },
      b: { delivered: 3, dropped: 0, rateLimited: 0 },
    });
  });

  test("a share that is not a positive integer, or that throws, lets none of its server's entries wait", async () => {
    const shares: Record<string, () => number> = {
      zero: () => 0,
      nan: () => Number.NaN,
      throws: () => {
        throw new Error("no policy");
      },
      ok: () => 1,
    };
    const queue = createNotificationQueue({
      client: "c",
      maxWaitingPerServer: (serverId) => (shares[serverId] as () => number)(),
    });
    const entries = queue.entries();
    for (const serverId of Object.keys(shares)) queue.push(serverId, "legacy", note(0));
    queue.close();
    const read: string[] = [];
    for await (const entry of entries) read.push(entry.serverId);
    assert.deepEqual(read, ["ok"]);
    assert.deepEqual(Object.values(queue.stats()).map((s) => s.dropped), [1, 1, 1, 0]);
  });

  test("the whole maxWaiting still bounds every server together", async () => {
    const queue = createNotificationQueue({ client: "c", maxWaiting: 3, maxWaitingPerServer: () => 10 });
    const entries = queue.entries();
    for (const serverId of ["a", "a", "b", "b"]) queue.push(serverId, "modern", note(0));
    queue.close();
    const read: string[] = [];
    for await (const entry of entries) read.push(entry.serverId);
    assert.deepEqual(read, ["a", "a", "b"]);
  });
});
