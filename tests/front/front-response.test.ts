// respondStreaming() on every runtime (workerd included): a call's notifications, or its
// heartbeat, turn its answer into an SSE stream, whenever the first one comes, with the headers
// of every SSE answer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { type FrontAnswer, respondStreaming } from "../../src/front/_front-response.ts";
import { within } from "../_support/eventually.ts";
import { FakeTime } from "../_support/fake-time.ts";
import type { Heartbeat } from "../../src/front/heartbeat.ts";

const PROGRESS = {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: 1 },
} as const;
const FINAL: FrontAnswer = { status: 200, body: { jsonrpc: "2.0", id: 7, result: { content: [] } } };

function appWith(
  work: Parameters<typeof respondStreaming>[1],
  onCancel: (reason: unknown) => void = () => {},
  heartbeat?: Heartbeat,
) {
  const streamed: Promise<unknown>[] = [];
  const app = new Hono();
  app.post(
    "/",
    (c) => respondStreaming(c, work, { onStream: (done) => void streamed.push(done), onCancel, heartbeat }),
  );
  return { app, streamed };
}

const BEAT = ": heartbeat\n\n";

/** The headers of every SSE answer, the legacy streams' too: proxies (nginx) must not buffer it. */
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

const EXPECTED_SSE = `event: message\ndata: ${JSON.stringify(PROGRESS)}\n\n` +
  `event: message\ndata: ${JSON.stringify(FINAL.body)}\n\n`;

describe("respondStreaming()", () => {
  test("streams a notification sent before the work's first await, then the final answer", async () => {
    const { app, streamed } = appWith((emit) => {
      emit(PROGRESS);
      return Promise.resolve(FINAL);
    });
    const response = await app.request("/", { method: "POST" });
    assert.deepEqual([response.status, Object.fromEntries(response.headers)], [200, SSE_HEADERS]);
    assert.equal(await response.text(), EXPECTED_SSE);
    assert.equal(streamed.length, 1);
  });

  test("streams a notification sent after an await the same way", async () => {
    const { app, streamed } = appWith(async (emit) => {
      await Promise.resolve();
      emit(PROGRESS);
      return FINAL;
    });
    const response = await app.request("/", { method: "POST" });
    assert.equal(await response.text(), EXPECTED_SSE);
    assert.equal(streamed.length, 1);
  });

  test("a caller that closes the stream before its end is told to onCancel, which ends the work", async () => {
    let cancel: (reason: unknown) => void = () => {};
    const cancelled = new Promise<unknown>((resolve) => cancel = resolve);
    const { app, streamed } = appWith(async (emit) => {
      emit(PROGRESS);
      return {
        status: 200,
        body: { jsonrpc: "2.0", id: 7, error: { code: -32603, message: String(await cancelled) } },
      };
    }, (reason) => cancel(reason));
    const response = await app.request("/", { method: "POST" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.equal(
      new TextDecoder().decode(first.value),
      `event: message\ndata: ${JSON.stringify(PROGRESS)}\n\n`,
    );
    await reader.cancel("gone");
    assert.equal(await within("onCancel", cancelled, 10_000), "gone");
    await Promise.all(streamed);
    assert.equal(streamed.length, 1);
  });

  test("answers with JSON when no notification came", async () => {
    const { app, streamed } = appWith(() => Promise.resolve(FINAL));
    const response = await app.request("/", { method: "POST" });
    assert.deepEqual([response.status, await response.json()], [200, FINAL.body]);
    assert.equal(streamed.length, 0);
  });

  test("with a heartbeat, a call that ends before the first beat answers with JSON and leaves no timer", async () => {
    const time = new FakeTime();
    const { app, streamed } = appWith(() => Promise.resolve(FINAL), undefined, { ms: 1000, timers: time });
    const response = await app.request("/", { method: "POST" });
    assert.deepEqual([response.status, await response.json(), streamed.length, time.pending], [
      200,
      FINAL.body,
      0,
      0,
    ]);
  });

  test("each beat is an SSE comment, the first opening the stream, until the final answer ends it", async () => {
    const call = beating();
    const pending = call.app.request("/", { method: "POST" });
    await call.time.advance(999);
    assert.equal(call.time.pending, 1);
    await call.time.advance(1);
    const response = await pending;
    assert.deepEqual([response.status, Object.fromEntries(response.headers)], [200, SSE_HEADERS]);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const read = async () => new TextDecoder().decode((await reader.read()).value);
    assert.equal(await read(), BEAT);
    // A caller that reads every beat keeps its call, however many beats it takes.
    for (let i = 0; i < 3; i++) {
      await call.time.advance(1000);
      assert.equal(await read(), BEAT);
    }
    call.end();
    assert.equal(await read(), `event: message\ndata: ${JSON.stringify(FINAL.body)}\n\n`);
    assert.deepEqual([(await reader.read()).done, call.streamed.length, call.time.pending, call.reasons], [
      true,
      1,
      0,
      [],
    ]);
  });

  test("a stream nobody reads is told to onCancel at the beat after the unread one", async () => {
    const call = beating();
    const pending = call.app.request("/", { method: "POST" });
    await call.time.advance(1000);
    assert.deepEqual([(await pending).status, call.reasons], [200, []]);
    await call.time.advance(1000);
    await Promise.all(call.streamed);
    assert.deepEqual([call.reasons, call.time.pending], [["The caller stopped reading the stream"], 0]);
  });

  test("a reader behind a burst keeps its call while it reads, and is told to onCancel once it stops", async () => {
    const call = beating(3);
    const reader = ((await call.app.request("/", { method: "POST" })).body as ReadableStream<Uint8Array>)
      .getReader();
    await reader.read();
    // Two events and then a beat wait unread, but one was read since the stream opened.
    await call.time.advance(1000);
    assert.deepEqual(call.reasons, []);
    // Nothing read for a whole beat.
    await call.time.advance(1000);
    await Promise.all(call.streamed);
    assert.deepEqual([call.reasons, call.time.pending], [["The caller stopped reading the stream"], 0]);
  });

  test("a caller that closes the stream after a beat is told to onCancel, and the beats stop with the work", async () => {
    const call = beating();
    const pending = call.app.request("/", { method: "POST" });
    await call.time.advance(1000);
    const reader = ((await pending).body as ReadableStream<Uint8Array>).getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), BEAT);
    await reader.cancel("gone");
    await Promise.all(call.streamed);
    assert.deepEqual([call.reasons, call.time.pending], [["gone"], 0]);
  });
});

/**
 * A call beating every 1000 ms of fake time that sends `progress` notifications at once and then
 * runs until `end()` or until it is told to cancel (the reason kept in `reasons`).
 */
function beating(progress = 0) {
  const time = new FakeTime();
  const reasons: unknown[] = [];
  let end: (answer: FrontAnswer) => void = () => {};
  const { app, streamed } = appWith((emit) => {
    for (let i = 0; i < progress; i++) emit(PROGRESS);
    return new Promise((resolve) => (end = resolve));
  }, (reason) => {
    reasons.push(reason);
    end(FINAL);
  }, { ms: 1000, timers: time });
  return { app, streamed, time, reasons, end: () => end(FINAL) };
}
