// The server side of a legacy SSE stream: event ids, priming, replay after Last-Event-ID, events
// kept while no connection is attached, the heartbeat's comments, and the lazy answer of one POST.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { endedStreamResponse, parseEventId, PostReply, SseStream } from "../../src/front/sse-stream.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { readUpTo } from "../_support/eventually.ts";

const message = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/message", params: { n } });

/**
 * Reads a still-open response's body until it holds as many characters as `expected`, then
 * drops the connection (as a caller whose network broke would).
 */
async function readThenDrop(response: Response, expected: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (text.length < expected.length) {
    const next = await reader.read();
    if (next.done) break;
    text += new TextDecoder().decode(next.value);
  }
  await reader.cancel();
  return text;
}

const event = (key: string, seq: number, n: number) =>
  `id: ${key}_${seq}\nevent: message\ndata: ${JSON.stringify(message(n))}\n\n`;

const BEAT = ": heartbeat\n\n";

/** A stream beating every 1000 ms of fake time. */
function beatingStream(key: string, priming: boolean): { time: FakeTime; stream: SseStream } {
  const time = new FakeTime();
  return {
    time,
    stream: new SseStream({ key, priming, maxEvents: 10, heartbeat: { ms: 1000, timers: time } }),
  };
}

describe("SseStream", () => {
  test("SseStream.connect() primes a 2025-11-25 stream with an id and empty data, then sends events live", async () => {
    const stream = new SseStream({ key: "4", priming: true, maxEvents: 10 });
    const response = stream.connect(undefined);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    stream.write(message(1));
    stream.write(message(2));
    stream.finish();
    assert.equal(await response.text(), `id: 4_0\ndata: \n\n${event("4", 1, 1)}${event("4", 2, 2)}`);
  });

  test("SseStream.connect() sends no priming event to a 2025-06-18 caller", async () => {
    const stream = new SseStream({ key: "1", priming: false, maxEvents: 10 });
    const response = stream.connect(undefined);
    stream.write(message(1));
    stream.finish();
    assert.equal(await response.text(), event("1", 1, 1));
  });

  test("SseStream keeps events written while no connection is attached, and replays those after Last-Event-ID", async () => {
    const stream = new SseStream({ key: "2", priming: true, maxEvents: 10 });
    const first = stream.connect(undefined);
    stream.write(message(1));
    const seen = `id: 2_0\ndata: \n\n${event("2", 1, 1)}`;
    assert.equal(await readThenDrop(first, seen), seen);
    assert.equal(stream.connected, false);
    stream.write(message(2));
    stream.write(message(3));
    const resumed = stream.connect(1);
    assert.equal(stream.connected, true);
    stream.write(message(4));
    stream.finish();
    assert.equal(await resumed.text(), event("2", 2, 2) + event("2", 3, 3) + event("2", 4, 4));
  });

  test("SseStream.connect(undefined) on the GET stream sends only what no connection got yet", async () => {
    const stream = new SseStream({ key: "0", priming: false, maxEvents: 10 });
    stream.write(message(1));
    const first = stream.connect(undefined);
    assert.equal(await readThenDrop(first, event("0", 1, 1)), event("0", 1, 1));
    stream.write(message(2));
    const second = stream.connect(undefined);
    stream.finish();
    assert.equal(await second.text(), event("0", 2, 2));
  });

  test("SseStream primes each new connection with an id of its own, which resumes after what that connection started after", async () => {
    const stream = new SseStream({ key: "0", priming: true, maxEvents: 10 });
    stream.write(message(1));
    const first = `id: 0_0\ndata: \n\n${event("0", 1, 1)}`;
    assert.equal(await readThenDrop(stream.connect(undefined), first), first);
    stream.write(message(2));
    const second = `id: 0_1_2\ndata: \n\n${event("0", 2, 2)}`;
    assert.equal(await readThenDrop(stream.connect(undefined), second), second);
    const third = "id: 0_2_3\ndata: \n\n";
    assert.equal(await readThenDrop(stream.connect(undefined), third), third);
    stream.write(message(3));
    // Resuming from the second connection's priming replays what came after event 1 only.
    const resumed = stream.connect((parseEventId("0_1_2") as { seq: number }).seq);
    stream.finish();
    assert.equal(await resumed.text(), event("0", 2, 2) + event("0", 3, 3));
  });

  test("SseStream keeps at most maxEvents for a resumption, the newest", async () => {
    const stream = new SseStream({ key: "3", priming: false, maxEvents: 2 });
    for (const n of [1, 2, 3]) stream.write(message(n));
    stream.finish();
    assert.equal(await stream.connect(0).text(), event("3", 2, 2) + event("3", 3, 3));
  });

  test("past maxEvents SseStream forgets the oldest notification, not a request the caller may have missed, and counts the bytes it keeps", async () => {
    const stream = new SseStream({ key: "6", priming: false, maxEvents: 3 });
    const ask = { jsonrpc: "2.0" as const, id: "s-1", method: "elicitation/create", params: {} };
    const asked = `id: 6_2\nevent: message\ndata: ${JSON.stringify(ask)}\n\n`;
    stream.write(message(1));
    stream.write(ask);
    for (const n of [3, 4, 5]) stream.write(message(n));
    stream.finish();
    const replay = asked + event("6", 4, 4) + event("6", 5, 5);
    assert.deepEqual([stream.keptBytes, await stream.connect(0).text()], [replay.length, replay]);
  });

  test("past maxEvents of requests and responses only, SseStream forgets the oldest", async () => {
    const stream = new SseStream({ key: "8", priming: false, maxEvents: 2 });
    const ask = (id: number) => ({ jsonrpc: "2.0" as const, id, method: "roots/list", params: {} });
    for (const id of [1, 2, 3]) stream.write(ask(id));
    stream.finish();
    const kept = [2, 3].map((id) => `id: 8_${id}\nevent: message\ndata: ${JSON.stringify(ask(id))}\n\n`);
    assert.equal(await stream.connect(0).text(), kept.join(""));
  });

  test("SseStream.connect() closes the connection it replaces", async () => {
    const stream = new SseStream({ key: "5", priming: false, maxEvents: 10 });
    const first = stream.connect(undefined);
    const second = stream.connect(undefined);
    assert.equal(await first.text(), "");
    stream.write(message(1));
    stream.finish();
    assert.equal(await second.text(), event("5", 1, 1));
  });

  test("with a heartbeat, an attached connection carries a comment every beat, which is neither kept nor replayed", async () => {
    const { time, stream } = beatingStream("3", true);
    assert.equal(time.pending, 0);
    const reader = (stream.connect(undefined).body as ReadableStream<Uint8Array>).getReader();
    await time.advance(1000);
    stream.write(message(1));
    await time.advance(1000);
    const seen = `id: 3_0\ndata: \n\n${BEAT}${event("3", 1, 1)}${BEAT}`;
    assert.equal(await readUpTo(reader, seen), seen);
    // The caller's network breaks: no beats for a connection that is gone.
    await reader.cancel();
    assert.deepEqual([stream.connected, time.pending], [false, 0]);
    stream.write(message(2));
    const resumed = stream.connect(0);
    assert.equal(time.pending, 1);
    stream.finish();
    assert.equal(time.pending, 0);
    assert.equal(await resumed.text(), `${event("3", 1, 1)}${event("3", 2, 2)}`);
  });

  test("with a heartbeat, a connection that replaces another beats alone, a beat after it attached", async () => {
    const { time, stream } = beatingStream("0", false);
    const first = stream.connect(undefined);
    await time.advance(600);
    const second = (stream.connect(undefined).body as ReadableStream<Uint8Array>).getReader();
    assert.equal(await first.text(), "");
    await time.advance(999);
    assert.equal(time.pending, 1);
    await time.advance(1);
    assert.equal(await readUpTo(second, BEAT), BEAT);
    stream.finish();
    assert.equal(time.pending, 0);
  });
});

describe("parseEventId()", () => {
  test("parseEventId() reads <stream>_<n> and a priming's <stream>_<n>_<k>, and refuses anything else", () => {
    assert.deepEqual(parseEventId("3_12"), { key: "3", seq: 12 });
    assert.deepEqual(parseEventId(" 0_0 "), { key: "0", seq: 0 });
    assert.deepEqual(parseEventId("0_6_2"), { key: "0", seq: 6 });
    for (const bad of ["", "3", "3_", "_1", "a_1", "3_1_", "3_1_2_4", "3_1_x", "1234567890_1", "3_-1"]) {
      assert.equal(parseEventId(bad), undefined, bad);
    }
  });

  test("endedStreamResponse() is an SSE response with nothing in it", async () => {
    const response = endedStreamResponse();
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(await response.text(), "");
  });
});

describe("PostReply", () => {
  test("PostReply answers JSON when the response comes before anything else", async () => {
    const reply = new PostReply(() => assert.fail("no stream expected"));
    reply.end({ jsonrpc: "2.0", id: 1, result: {} });
    const response = await reply.response;
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(reply.stream, undefined);
  });

  test("PostReply turns into a stream at the first message, which the response ends", async () => {
    const reply = new PostReply(() => new SseStream({ key: "7", priming: true, maxEvents: 10 }));
    reply.send(message(1));
    const response = await reply.response;
    reply.end({ jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(
      await response.text(),
      `id: 7_0\ndata: \n\n${
        event("7", 1, 1)
      }id: 7_2\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n`,
    );
    assert.equal(reply.stream?.finished, true);
  });

  test("with a heartbeat, a PostReply still waiting at the first beat answers with a stream that beats until the response", async () => {
    const time = new FakeTime();
    const heartbeat = { ms: 1000, timers: time };
    // A 2025-06-18 caller's stream: no priming event, so the beat is its first byte.
    const reply = new PostReply(
      () => new SseStream({ key: "5", priming: false, maxEvents: 10, heartbeat }),
      heartbeat,
    );
    let answered = false;
    void reply.response.then(() => (answered = true));
    await time.advance(999);
    assert.equal(answered, false);
    await time.advance(1);
    assert.equal(answered, true);
    const response = await reply.response;
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    await time.advance(1000);
    reply.end({ jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(time.pending, 0);
    assert.equal(
      await response.text(),
      `${BEAT}${BEAT}id: 5_1\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n`,
    );
  });

  test("with a heartbeat, a PostReply whose response comes before the first beat answers JSON and leaves no timer", async () => {
    const time = new FakeTime();
    const reply = new PostReply(() => assert.fail("no stream expected"), { ms: 1000, timers: time });
    await time.advance(999);
    reply.end({ jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(time.pending, 0);
    const response = await reply.response;
    assert.deepEqual([response.headers.get("content-type"), await response.json()], [
      "application/json",
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
  });

  test("PostReply.endUnanswered() before anything was sent answers with an SSE stream of no event, and leaves no timer", async () => {
    const time = new FakeTime();
    const reply = new PostReply(() => assert.fail("no stream expected"), { ms: 1000, timers: time });
    reply.endUnanswered();
    assert.equal(time.pending, 0);
    const response = await reply.response;
    assert.deepEqual(
      [response.status, Object.fromEntries(response.headers), await response.text(), reply.stream],
      [
        200,
        { "cache-control": "no-cache", "content-type": "text/event-stream", "x-accel-buffering": "no" },
        "",
        undefined,
      ],
    );
  });

  test("PostReply.endUnanswered() on an open stream ends it after what was sent, with no response", async () => {
    const reply = new PostReply(() => new SseStream({ key: "7", priming: true, maxEvents: 10 }));
    reply.send(message(1));
    const response = await reply.response;
    reply.endUnanswered();
    assert.deepEqual([await response.text(), reply.stream?.finished], [
      `id: 7_0\ndata: \n\n${event("7", 1, 1)}`,
      true,
    ]);
  });
});
