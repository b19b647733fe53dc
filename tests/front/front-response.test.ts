// respondStreaming() on every runtime (workerd included): a call's notifications turn its answer
// into an SSE stream, whenever the first one comes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { type FrontAnswer, respondStreaming } from "../../src/front/_front-response.ts";
import { within } from "../_support/eventually.ts";

const PROGRESS = {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: 1 },
} as const;
const FINAL: FrontAnswer = { status: 200, body: { jsonrpc: "2.0", id: 7, result: { content: [] } } };

function appWith(
  work: Parameters<typeof respondStreaming>[1],
  onCancel: (reason: unknown) => void = () => {},
) {
  const streamed: Promise<unknown>[] = [];
  const app = new Hono();
  app.post("/", (c) => respondStreaming(c, work, { onStream: (done) => void streamed.push(done), onCancel }));
  return { app, streamed };
}

const EXPECTED_SSE = `event: message\ndata: ${JSON.stringify(PROGRESS)}\n\n` +
  `event: message\ndata: ${JSON.stringify(FINAL.body)}\n\n`;

describe("respondStreaming()", () => {
  test("streams a notification sent before the work's first await, then the final answer", async () => {
    const { app, streamed } = appWith((emit) => {
      emit(PROGRESS);
      return Promise.resolve(FINAL);
    });
    const response = await app.request("/", { method: "POST" });
    assert.deepEqual([response.status, response.headers.get("content-type")], [200, "text/event-stream"]);
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
});
