import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonRpcMessage } from "../../src/protocol/jsonrpc.ts";
import { readResponse, type ReadResponseOptions } from "../../src/transport/read-response.ts";
import type { ResponseOutcome } from "../../src/transport/response-outcome.ts";
import {
  CHUNKINGS,
  type ControlledOptions,
  controlledResponse,
  cut,
  cutAt,
  sseEvent,
} from "./_response-body.ts";
import { gate } from "../_support/gate.ts";

const RESULT = { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "héllo 😀" }] } };
const PROGRESS_1 = {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: 1 },
};
const PROGRESS_2 = {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: 2 },
};
const LOG = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "ünïcödé ✓" } };
const SAMPLING = {
  jsonrpc: "2.0",
  id: "s-1",
  method: "sampling/createMessage",
  params: { messages: [], maxTokens: 10 },
};
const ENDED = "SSE stream ended before the response to request 7";

interface Read {
  readonly outcome: ResponseOutcome;
  readonly seen: JsonRpcMessage[];
  readonly cancels: number;
  readonly pulled: number;
}

async function read(
  chunks: readonly Uint8Array[],
  options: ControlledOptions = {},
  extra: Partial<ReadResponseOptions> = {},
): Promise<Read> {
  const seen: JsonRpcMessage[] = [];
  const body = controlledResponse(chunks, options);
  const outcome = await readResponse(body.response, {
    requestId: 7,
    onMessage: (message) => seen.push(message),
    ...extra,
  });
  return { outcome, seen, cancels: body.cancels(), pulled: body.pulled() };
}

/** Reads `text` under every chunking and asserts the same outcome and messages each time. */
async function readEveryWay(
  text: string,
  expected: { outcome: unknown; seen: readonly unknown[]; cancels?: number },
  options: ControlledOptions = {},
): Promise<void> {
  for (const size of CHUNKINGS) {
    const got = await read(cut(text, size), options);
    const label = `chunk size ${size ?? "whole"}`;
    assert.deepEqual(got.outcome, expected.outcome, label);
    assert.deepEqual(got.seen, expected.seen, label);
    if (expected.cancels !== undefined) assert.equal(got.cancels, expected.cancels, label);
  }
}

const RESPONSE_200 = { kind: "response", message: RESULT, status: 200 } as const;

describe("readResponse() with a JSON body", () => {
  test("returns the one response, read one byte at a time across UTF-8 characters", async () => {
    for (const size of CHUNKINGS) {
      const got = await read(cut(JSON.stringify(RESULT), size), {
        contentType: "application/json; charset=utf-8",
      });
      assert.deepEqual(got.outcome, RESPONSE_200);
    }
  });

  test("refuses a response to another id", async () => {
    const got = await read(cut('{"jsonrpc":"2.0","id":"7","result":{}}'), {
      contentType: "application/json",
    });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: 'JSON response body: expected the response to request 7, received a response to request "7"',
    });
  });

  test("refuses a notification in place of the response", async () => {
    const got = await read(cut(JSON.stringify(PROGRESS_1)), { contentType: "application/json" });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message:
        'JSON response body: expected the response to request 7, received a notification "notifications/progress"',
    });
  });

  test("refuses invalid JSON with the decoder's message", async () => {
    const got = await read(cut('{"jsonrpc":'), { contentType: "application/json" });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "JSON response body: $: expected JSON text, received text that is not JSON (11 characters)",
    });
  });

  test("refuses a batch", async () => {
    const got = await read(cut(JSON.stringify([RESULT])), { contentType: "application/json" });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message:
        "JSON response body: $: expected a single JSON-RPC message (batches are not supported), received an array",
    });
  });

  test("accepts a body of exactly maxMessageBytes", async () => {
    const text = `{"jsonrpc":"2.0","id":7,"result":{"s":"${"a".repeat(22)}"}}`;
    assert.equal(new TextEncoder().encode(text).length, 64);
    const got = await read(cut(text, 5), { contentType: "application/json" }, { maxMessageBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "response",
      message: { jsonrpc: "2.0", id: 7, result: { s: "a".repeat(22) } },
      status: 200,
    });
  });

  test("stops an endless body past maxMessageBytes and cancels it", async () => {
    const got = await read([], {
      contentType: "application/json",
      forever: () => cut("[".repeat(16))[0]!,
    }, { maxMessageBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "JSON response body is larger than 64 bytes (maxMessageBytes)",
    });
    assert.deepEqual([got.pulled, got.cancels], [5, 1]);
  });

  test("reports a body that fails midway as a broken stream", async () => {
    const got = await read(cut('{"jsonrpc":"2.0",'), { contentType: "application/json", ending: "error" });
    assert.deepEqual(got.outcome, {
      kind: "stream_broken",
      reason: "JSON response body failed before it was complete: TypeError: connection reset",
      failed: true,
    });
  });
});

describe("readResponse() with a JSON body of declared length", () => {
  const json = (extra: Record<string, string>, more: ControlledOptions = {}) => ({
    contentType: "application/json",
    ...more,
    headers: extra,
  });
  const text = JSON.stringify(RESULT);
  const length = String(new TextEncoder().encode(text).length);

  test("reads it whole, however it is cut", async () => {
    for (const size of CHUNKINGS) {
      const got = await read(cut(text, size), json({ "content-length": length }));
      assert.deepEqual(got.outcome, { kind: "response", message: RESULT, status: 200 });
      assert.equal(got.cancels, 0);
    }
  });

  test("refuses a declared length over maxMessageBytes before reading anything", async () => {
    const got = await read(cut(text), json({ "content-length": "65" }), { maxMessageBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "JSON response body is larger than 64 bytes (maxMessageBytes)",
    });
    assert.deepEqual([got.pulled, got.cancels], [0, 1]);
  });

  test("refuses a body that outgrows its declared length past maxMessageBytes", async () => {
    const long = `{"jsonrpc":"2.0","id":7,"result":{"s":"${"a".repeat(100)}"}}`;
    const got = await read(cut(long, 10), json({ "content-length": "10" }), { maxMessageBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "JSON response body is larger than 64 bytes (maxMessageBytes)",
    });
  });

  test("reads an encoded body as a stream, stopping at maxMessageBytes (a small gzip body can unpack to gigabytes)", async () => {
    for (const encoding of ["gzip", "br", "deflate, gzip"]) {
      const got = await read(
        [],
        json({ "content-length": "10", "content-encoding": encoding }, {
          forever: () => cut("[".repeat(16))[0]!,
        }),
        { maxMessageBytes: 64 },
      );
      assert.deepEqual(got.outcome, {
        kind: "protocol_error",
        message: "JSON response body is larger than 64 bytes (maxMessageBytes)",
      });
      assert.deepEqual([got.pulled, got.cancels], [5, 1]);
    }
  });

  test("reads it whole with Content-Encoding identity", async () => {
    const got = await read(cut(text, 3), json({ "content-length": length, "content-encoding": "Identity" }));
    assert.deepEqual(got.outcome, { kind: "response", message: RESULT, status: 200 });
  });

  test("reports a body that fails midway as a broken stream", async () => {
    const got = await read(cut('{"jsonrpc":"2.0",'), json({ "content-length": "40" }, { ending: "error" }));
    assert.deepEqual(got.outcome, {
      kind: "stream_broken",
      reason: "JSON response body failed before it was complete: TypeError: connection reset",
      failed: true,
    });
  });

  test("returns aborted at once for a signal that already fired, and cancels the body", async () => {
    const got = await read(cut(text), json({ "content-length": length }), { signal: AbortSignal.abort() });
    assert.deepEqual(got, { outcome: { kind: "aborted" }, seen: [], cancels: 1, pulled: 0 });
  });

  test("stops waiting for the rest when the signal fires", async () => {
    const controller = new AbortController();
    const body = controlledResponse(cut('{"jsonrpc":'), json({ "content-length": "40" }, { ending: "hang" }));
    const pending = readResponse(body.response, { requestId: 7, signal: controller.signal });
    controller.abort();
    assert.deepEqual(await pending, { kind: "aborted" });
    // The body is locked by the whole read: ending it is the fetch's part (its signal is the same).
    assert.equal(body.cancels(), 0);
  });
});

describe("readResponse() with an SSE stream", () => {
  const stream = [
    ": stream opened",
    ": keep-alive",
    "",
    "event: message",
    'data: {"jsonrpc":"2.0",',
    'data: "method":"notifications/message",',
    `data: "params":${JSON.stringify(LOG.params)}}`,
    "",
    `data: ${JSON.stringify(RESULT)}`,
    "",
    "",
  ];

  for (const [name, eol] of [["LF", "\n"], ["CRLF", "\r\n"], ["CR", "\r"]] as const) {
    test(`reads comments, event fields and multi-line data with ${name} line ends under every chunking`, async () => {
      await readEveryWay(stream.join(eol), { outcome: RESPONSE_200, seen: [LOG] });
    });
  }

  test("drops a BOM at the start of the stream, even cut in the middle", async () => {
    await readEveryWay(`\uFEFF${sseEvent(RESULT)}`, { outcome: RESPONSE_200, seen: [] });
  });

  test("answers at once when bare CRs end the response and the stream stays open", async () => {
    await readEveryWay(
      `data: ${JSON.stringify(RESULT)}\r\r`,
      { outcome: RESPONSE_200, seen: [], cancels: 1 },
      {
        ending: "hang",
      },
    );
  });

  test("treats a CRLF cut between CR and LF as one line end", async () => {
    const text = `data: ${JSON.stringify(PROGRESS_1)}\r\n\r\ndata: ${JSON.stringify(RESULT)}\r\n\r\n`;
    const cr = text.indexOf("\r\n\r\n") + 1;
    const got = await read(cutAt(text, [cr, cr + 2, cr + 3]));
    assert.deepEqual([got.outcome, got.seen], [RESPONSE_200, [PROGRESS_1]]);
  });

  test("delivers notifications and a server request before the response, in order", async () => {
    const text = sseEvent(PROGRESS_1) + sseEvent(SAMPLING) + sseEvent(LOG) + sseEvent(PROGRESS_2) +
      sseEvent(RESULT);
    await readEveryWay(text, { outcome: RESPONSE_200, seen: [PROGRESS_1, SAMPLING, LOG, PROGRESS_2] });
  });

  test("ignores events of another type and empty data", async () => {
    const text = sseEvent(PROGRESS_1, { event: "ping" }) + "data:\n\n" +
      sseEvent(PROGRESS_2, { event: "message" }) +
      sseEvent(RESULT);
    await readEveryWay(text, { outcome: RESPONSE_200, seen: [PROGRESS_2] });
  });

  test("reports the last event id and retry with the response", async () => {
    const text = sseEvent(PROGRESS_1, { id: "e1", retry: 1000 }) +
      sseEvent(RESULT, { id: "e2", retry: 5000 });
    await readEveryWay(text, {
      outcome: { ...RESPONSE_200, lastEventId: "e2", retryMs: 5000 },
      seen: [PROGRESS_1],
    });
  });

  test("forgets the last event id when an empty id arrives", async () => {
    const text = sseEvent(PROGRESS_1, { id: "e1" }) + sseEvent(RESULT, { id: "" });
    await readEveryWay(text, { outcome: RESPONSE_200, seen: [PROGRESS_1] });
  });

  test("takes an error response with id null as the answer", async () => {
    const error = { jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error" } };
    await readEveryWay(sseEvent(error), {
      outcome: { kind: "response", message: error, status: 200 },
      seen: [],
    });
  });

  test("cancels the body once the response arrives and delivers nothing after it", async () => {
    const got = await read(cut(sseEvent(RESULT) + sseEvent(PROGRESS_2)).concat(cut(sseEvent(PROGRESS_1))), {
      ending: "hang",
    });
    assert.deepEqual(got, { outcome: RESPONSE_200, seen: [], cancels: 1, pulled: 1 });
  });

  test("refuses a response to another id and cancels the body", async () => {
    const other = { jsonrpc: "2.0", id: 8, result: {} };
    await readEveryWay(sseEvent(PROGRESS_1) + sseEvent(other) + sseEvent(RESULT), {
      outcome: {
        kind: "protocol_error",
        message: "SSE event: expected the response to request 7, received a response to request 8",
      },
      seen: [PROGRESS_1],
      cancels: 1,
    }, { ending: "hang" });
  });

  test("refuses invalid JSON with the decoder's message", async () => {
    await readEveryWay('data: {"jsonrpc":\n\n', {
      outcome: {
        kind: "protocol_error",
        message: "SSE event data: $: expected JSON text, received text that is not JSON (11 characters)",
      },
      seen: [],
    });
  });

  test("refuses a batch", async () => {
    await readEveryWay(sseEvent([PROGRESS_1, RESULT]), {
      outcome: {
        kind: "protocol_error",
        message:
          "SSE event data: $: expected a single JSON-RPC message (batches are not supported), received an array",
      },
      seen: [],
    });
  });
});

describe("readResponse() when the stream ends early", () => {
  test("reports a stream that closes before the response, with no cursor", async () => {
    await readEveryWay(sseEvent(PROGRESS_1), {
      outcome: { kind: "stream_broken", reason: ENDED },
      seen: [PROGRESS_1],
    });
  });

  test("reports the last id and retry of a priming event, for a legacy resume", async () => {
    const text = "id: e1\nretry: 3000\ndata:\n\n" + sseEvent(PROGRESS_1, { id: "e2" }) + ": bye\n";
    await readEveryWay(text, {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e2", retryMs: 3000 },
      seen: [PROGRESS_1],
    });
  });

  test("moves the last event id at the blank line of an event with an id and no data line", async () => {
    // WHATWG HTML 9.2.6: the id field sets the last event id whatever the data; an event cut off
    // before its blank line sets nothing, and an id with a NUL is ignored.
    await readEveryWay(sseEvent(PROGRESS_1, { id: "e1" }) + "id: e2\n\n" + ": c\nid: e3\n", {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e2" },
      seen: [PROGRESS_1],
    });
    await readEveryWay("id: e1\n\nid: a\0b\n\n", {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e1" },
      seen: [],
    });
    await readEveryWay("id: e1\r\n\r\nid\r\n\r\n", {
      outcome: { kind: "stream_broken", reason: ENDED },
      seen: [],
    });
    await readEveryWay(sseEvent(PROGRESS_1, { id: "e1" }) + "id:e2\n\n" + sseEvent(RESULT), {
      outcome: { ...RESPONSE_200, lastEventId: "e2" },
      seen: [PROGRESS_1],
    });
  });

  test("ignores an event id a Last-Event-ID header cannot carry as it is, keeping the id before it", async () => {
    // A control character (fetch refuses it in a header) or a space or HTAB at either end (fetch
    // strips it), with and without data; a space or HTAB inside, and text past ASCII, are kept.
    for (const id of ["a\u0001b", "del\u007f", " 7", "tab\tend\t", "\tlead"]) {
      await readEveryWay(`id: e1\n\nid: ${id}\n\n`, {
        outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e1" },
        seen: [],
      });
      await readEveryWay(sseEvent(PROGRESS_1, { id: "e1" }) + `id: ${id}\n${sseEvent(PROGRESS_1)}`, {
        outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e1" },
        seen: [PROGRESS_1, PROGRESS_1],
      });
    }
    await readEveryWay("id: e1\n\nid: tab\tin side\n\n" + sseEvent(PROGRESS_1, { id: "é\u00ff" }), {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "é\u00ff" },
      seen: [PROGRESS_1],
    });
    await readEveryWay("id: e1\n\nid: tab\tin side\n\n", {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "tab\tin side" },
      seen: [],
    });
  });

  test("takes a retry longer than a timer can wait as the longest wait", async () => {
    const text = "id: e1\nretry: 3000000000\ndata:\n\n";
    await readEveryWay(text, {
      outcome: { kind: "stream_broken", reason: ENDED, lastEventId: "e1", retryMs: 2_147_483_647 },
      seen: [],
    });
  });

  test("drops an event the stream cut off before its blank line", async () => {
    const response = JSON.stringify(RESULT);
    await readEveryWay(`data: ${response}\n`, {
      outcome: { kind: "stream_broken", reason: ENDED },
      seen: [],
    });
    await readEveryWay(`data: ${response}`, { outcome: { kind: "stream_broken", reason: ENDED }, seen: [] });
  });

  test("reports a stream that fails, with the error", async () => {
    const got = await read(cut(sseEvent(PROGRESS_1, { id: "e1" })), { ending: "error" });
    assert.deepEqual(got.outcome, {
      kind: "stream_broken",
      reason: "SSE stream failed before the response to request 7: TypeError: connection reset",
      lastEventId: "e1",
      failed: true,
    });
  });

  test("reports a stream that fails before any byte as one where nothing arrived", async () => {
    const got = await read([], { ending: "error" });
    assert.deepEqual(got.outcome, {
      kind: "stream_broken",
      reason: "SSE stream failed before the response to request 7: TypeError: connection reset",
      failed: true,
      nothingArrived: true,
    });
  });
});

describe("readResponse() limits on SSE events", () => {
  const base = '{"jsonrpc":"2.0","id":7,"result":{"s":""}}';
  const withText = (s: string) => `{"jsonrpc":"2.0","id":7,"result":{"s":"${s}"}}`;

  test("accepts an event of exactly maxEventBytes and refuses one byte more, counting UTF-8 bytes", async () => {
    assert.equal(base.length, 42);
    const fits = withText("✓✓"); // 48 bytes
    const over = withText("✓✓✓"); // 45 characters, 51 bytes
    await readEveryWay(`data: ${fits}\n\n`, {
      outcome: { kind: "response", message: { jsonrpc: "2.0", id: 7, result: { s: "✓✓" } }, status: 200 },
      seen: [],
    });
    for (const size of CHUNKINGS) {
      const got = await read(cut(`data: ${over}\n\n`, size), {}, { maxEventBytes: 48 });
      assert.deepEqual(got.outcome, {
        kind: "protocol_error",
        message: "SSE event is larger than 48 bytes (maxEventBytes)",
      });
    }
  });

  test("stops a line that never ends and cancels the body", async () => {
    const got = await read(cut("data: "), { forever: () => cut("a".repeat(100))[0]! }, { maxEventBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "SSE event is larger than 64 bytes (maxEventBytes)",
    });
    assert.deepEqual([got.pulled, got.cancels], [12, 1]);
  });

  test("stops an event whose data lines never end and cancels the body", async () => {
    const got = await read([], { forever: () => cut("data: aaaaaaaaaa\n")[0]! }, { maxEventBytes: 64 });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "SSE event is larger than 64 bytes (maxEventBytes)",
    });
    assert.equal(got.cancels, 1);
    assert.ok(got.pulled < 120, `pulled ${got.pulled} chunks`);
  });

  test("does not count keep-alive comments against the limit", async () => {
    const comments = Array.from({ length: 2000 }, () => cut(": keep-alive\n")[0]!);
    const got = await read([...comments, ...cut(sseEvent(RESULT))], {}, { maxEventBytes: 200 });
    assert.deepEqual(got.outcome, RESPONSE_200);
  });
});

describe("readResponse() with other statuses and content types", () => {
  test("returns accepted for 202 with no body", async () => {
    assert.deepEqual(await readResponse(new Response(null, { status: 202 }), { requestId: 7 }), {
      kind: "accepted",
    });
  });

  test("returns accepted for 202 and cancels any body", async () => {
    const got = await read(cut("queued"), { status: 202, contentType: "text/plain", ending: "hang" });
    assert.deepEqual([got.outcome, got.pulled, got.cancels], [{ kind: "accepted" }, 0, 1]);
  });

  test("returns a 400 carrying -32022 with data.supported as the response", async () => {
    const error = {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2025-11-25", "2025-06-18"], requested: "2026-07-28" },
      },
    };
    const got = await read(cut(JSON.stringify(error), 3), { status: 400, contentType: "application/json" });
    assert.deepEqual(got.outcome, { kind: "response", message: error, status: 400 });
  });

  test("returns a 404 carrying -32601 as the response", async () => {
    const error = { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found" } };
    const got = await read(cut(JSON.stringify(error)), { status: 404, contentType: "application/json" });
    assert.deepEqual(got.outcome, { kind: "response", message: error, status: 404 });
  });

  test("returns a 404 without a JSON body as an HTTP error with its text", async () => {
    const got = await read(cut("Not Found"), { status: 404, contentType: "text/plain" });
    assert.deepEqual(got.outcome, { kind: "http_error", status: 404, body: "Not Found" });
    const empty = await read([], { status: 404, contentType: null });
    assert.deepEqual(empty.outcome, { kind: "http_error", status: 404, body: "" });
  });

  test("keeps the first KiB of an error body, never half a character, and cancels the rest", async () => {
    const got = await read(cut("a" + "é".repeat(600), 100), {
      status: 502,
      contentType: "text/html",
      ending: "hang",
    });
    assert.deepEqual(got.outcome, { kind: "http_error", status: 502, body: "a" + "é".repeat(511) });
    assert.equal(got.cancels, 1);
  });

  test("returns an HTTP error for a JSON body that is not a JSON-RPC error response", async () => {
    const got = await read(cut('{"error":"bad token"}'), { status: 401, contentType: "application/json" });
    assert.deepEqual(got.outcome, { kind: "http_error", status: 401, body: '{"error":"bad token"}' });
    const result = await read(cut('{"jsonrpc":"2.0","id":7,"result":{}}'), {
      status: 500,
      contentType: "application/json",
    });
    assert.deepEqual(result.outcome, {
      kind: "http_error",
      status: 500,
      body: '{"jsonrpc":"2.0","id":7,"result":{}}',
    });
  });

  test("refuses an error status whose JSON-RPC error answers another id", async () => {
    const error = { jsonrpc: "2.0", id: 8, error: { code: -32022, message: "Unsupported protocol version" } };
    const got = await read(cut(JSON.stringify(error)), { status: 400, contentType: "application/json" });
    assert.deepEqual(got.outcome, {
      kind: "protocol_error",
      message: "HTTP 400 response body: expected the response to request 7, received a response to request 8",
    });
  });

  test("refuses an unexpected or missing content type and cancels the body", async () => {
    const html = await read(cut("<html>"), { contentType: "text/html; charset=utf-8", ending: "hang" });
    assert.deepEqual([html.outcome, html.cancels], [{
      kind: "protocol_error",
      message:
        'HTTP 200 response: expected content type "application/json" or "text/event-stream", received "text/html"',
    }, 1]);
    const none = await read([], { contentType: null });
    assert.deepEqual(none.outcome, {
      kind: "protocol_error",
      message:
        'HTTP 200 response: expected content type "application/json" or "text/event-stream", received none',
    });
  });

  test("refuses a limit that is not a positive integer", async () => {
    await assert.rejects(
      readResponse(new Response(null, { status: 202 }), { requestId: 7, maxEventBytes: 0 }),
      {
        name: "RangeError",
        message: 'readResponse(): "maxEventBytes" must be a positive integer, received "0"',
      },
    );
  });
});

describe("readResponse() and its caller", () => {
  test("returns aborted at once for a signal that already fired, and cancels the body", async () => {
    const got = await read(cut(sseEvent(RESULT)), {}, { signal: AbortSignal.abort() });
    assert.deepEqual(got, { outcome: { kind: "aborted" }, seen: [], cancels: 1, pulled: 0 });
  });

  test("stops a stream waiting for data when the signal fires, and cancels the body", async () => {
    const controller = new AbortController();
    const seen: JsonRpcMessage[] = [];
    const first = gate();
    const body = controlledResponse(cut(sseEvent(PROGRESS_1)), { ending: "hang" });
    const pending = readResponse(body.response, {
      requestId: 7,
      signal: controller.signal,
      onMessage: (message) => (seen.push(message), first.open()),
    });
    await first.opened;
    controller.abort();
    assert.deepEqual(await pending, { kind: "aborted" });
    assert.deepEqual([seen, body.cancels()], [[PROGRESS_1], 1]);
  });

  test("stops a JSON body waiting for data when the signal fires", async () => {
    const controller = new AbortController();
    const body = controlledResponse(cut('{"jsonrpc":'), { contentType: "application/json", ending: "hang" });
    const pending = readResponse(body.response, { requestId: 7, signal: controller.signal });
    controller.abort();
    assert.deepEqual(await pending, { kind: "aborted" });
    assert.equal(body.cancels(), 1);
  });

  test("delivers nothing more once onMessage aborts", async () => {
    const controller = new AbortController();
    const seen: JsonRpcMessage[] = [];
    const body = controlledResponse(cut(sseEvent(PROGRESS_1) + sseEvent(PROGRESS_2) + sseEvent(RESULT)));
    const outcome = await readResponse(body.response, {
      requestId: 7,
      signal: controller.signal,
      onMessage: (message) => (seen.push(message), controller.abort()),
    });
    assert.deepEqual([outcome, seen, body.cancels()], [{ kind: "aborted" }, [PROGRESS_1], 1]);
  });

  test("rethrows what onMessage throws, after cancelling the body", async () => {
    const body = controlledResponse(cut(sseEvent(PROGRESS_1) + sseEvent(RESULT)), { ending: "hang" });
    const failure = new Error("handler bug");
    await assert.rejects(
      readResponse(body.response, {
        requestId: 7,
        onMessage: () => {
          throw failure;
        },
      }),
      failure,
    );
    assert.equal(body.cancels(), 1);
  });
});
