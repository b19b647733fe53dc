// createNodeFetch() against a real loopback node:http server: what fetch would give, byte for
// byte, with a body buffered up to 64 KiB and streamed beyond, event streams streamed at once,
// aborts, refused connections and what reaches the server.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { createRequire } from "node:module";
import { Agent } from "undici";
import { createNodeFetch, type NodeFetchOptions } from "../../src/transport/node-fetch.ts";
import { discardBody } from "../../src/transport/body-reader.ts";
import { readResponse } from "../../src/transport/read-response.ts";
import { StreamedResponse } from "../../src/transport/_held-responses.ts";
import type { JsonRpcMessage } from "../../src/protocol/jsonrpc.ts";

/**
 * undici's own clock for its coarse timers (headersTimeout, bodyTimeout), and its `tick(ms)`, which
 * undici exposes for tests: it moves that clock on and fires what is due.
 */
const undiciTimers = createRequire(import.meta.url)("undici/lib/util/timers.js") as {
  tick(ms: number): void;
};

interface Seen {
  readonly method: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function deferred(): Deferred {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const seen: Seen[] = [];
/** Resolved when the server has received a request to a route that holds its answer. */
let arrived = deferred();
/** Lets `/large` send its second half, and `/sse` its events. */
let release = deferred();
const LARGE = Buffer.from(Array.from({ length: 200 * 1024 }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));

/** A JSON answer's text past the 64 KiB that createNodeFetch() reads before it returns. */
const LARGE_TEXT = "sluice ".repeat(15_000);

const PROGRESS = {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: 1 },
};

const routes: Record<string, (response: ServerResponse) => void> = {
  "/json": (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"jsonrpc":"2.0","id":1,"result":{"text":"héllo 😀"}}');
  },
  "/headers": (response) => {
    response.sendDate = false;
    response.setHeader("set-cookie", ["a=1; Path=/", "b=2"]);
    response.setHeader("x-multi", ["one", "two"]);
    response.writeHead(201, { "content-type": "text/plain", "content-length": "7" });
    response.end("created");
  },
  "/form": (response) => {
    response.writeHead(200, { "content-type": "application/x-www-form-urlencoded" });
    response.end("a=1&b=two");
  },
  "/empty": (response) => response.writeHead(204).end(),
  "/redirect": (response) => response.writeHead(307, { location: "/json" }).end("moved"),
  "/large": (response) => {
    response.writeHead(200, { "content-type": "application/octet-stream" });
    response.write(LARGE.subarray(0, 100 * 1024));
    void release.promise.then(() => response.end(LARGE.subarray(100 * 1024)));
  },
  "/large-json": (response) => {
    const json = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: LARGE_TEXT } });
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(json),
    });
    response.end(json);
  },
  "/sse": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" }).flushHeaders();
    void release.promise.then(() => {
      response.write("data: one\n\n");
      response.end("data: two\n\n");
    });
  },
  "/sse-held": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" }).write("data: one\n\n");
    arrived.resolve();
  },
  "/hold": () => arrived.resolve(),
  "/sse-rpc": (response) => {
    // A notification, then the response, and the stream left open.
    response.on("close", () => arrived.resolve());
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(`data: ${JSON.stringify(PROGRESS)}\n\n`);
    response.write('data: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n');
  },
  "/sse-rpc-held": (response) => {
    response.on("close", () => arrived.resolve());
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(`data: ${JSON.stringify(PROGRESS)}\n\n`);
  },
  "/sse-cancelled": (response) => {
    response.on("close", () => arrived.resolve());
    response.writeHead(200, { "content-type": "text/event-stream" }).write("data: one\n\n");
  },
};

let server: Server;
let origin: string;
before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      (routes[request.url ?? ""] ?? ((r: ServerResponse) => r.writeHead(404).end()))(response);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fetcher = createNodeFetch();
after(() => fetcher.close());

describe("createNodeFetch()", () => {
  test("takes options written as undefined as left out", async () => {
    const options: NodeFetchOptions = { keepAliveTimeoutMs: undefined, connectionsPerOrigin: undefined };
    const fetch = createNodeFetch(options);
    const response = await fetch(`${origin}/json`, { method: "POST", body: "{}" });
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: { text: "héllo 😀" } });
    await fetch.close();
  });

  test("returns a JSON body exactly, with its status and content type", async () => {
    const response = await fetcher(`${origin}/json`, { method: "POST", body: "{}" });
    assert.deepEqual([response.status, response.headers.get("content-type")], [200, "application/json"]);
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: { text: "héllo 😀" } });
  });

  test("returns the status and every header, a repeated one as separate values", async () => {
    const response = await fetcher(`${origin}/headers`, { method: "GET" });
    assert.equal(response.status, 201);
    assert.deepEqual([...response.headers], [
      ["connection", "keep-alive"],
      ["content-length", "7"],
      ["content-type", "text/plain"],
      ["keep-alive", "timeout=60"],
      ["set-cookie", "a=1; Path=/"],
      ["set-cookie", "b=2"],
      ["x-multi", "one, two"],
    ]);
    assert.equal(await response.text(), "created");
  });

  test("a body read in full reads as fetch's would: once, as bytes, text, a blob, form data or a clone", async () => {
    const get = () => fetcher(`${origin}/json`, { method: "GET" });
    const text = '{"jsonrpc":"2.0","id":1,"result":{"text":"héllo 😀"}}';
    const once = await get();
    assert.equal(await once.text(), text);
    assert.equal(once.bodyUsed, true);
    await assert.rejects(once.json(), TypeError);
    assert.throws(() => once.clone(), TypeError);
    const bytes = await (await get()).bytes();
    assert.equal(new TextDecoder().decode(bytes), text);
    const blob = await (await get()).blob();
    assert.deepEqual([blob.type, await blob.text()], ["application/json", text]);
    const original = await get();
    const copy = original.clone();
    assert.deepEqual([await original.text(), await copy.text()], [text, text]);
    const streamed = await get();
    assert.equal(await new Response(streamed.body).text(), text);
    assert.equal(streamed.bodyUsed, true);
    await assert.rejects(streamed.text(), TypeError);
    const form = await (await fetcher(`${origin}/form`, { method: "GET" })).formData();
    assert.deepEqual([...form], [["a", "1"], ["b", "two"]]);
  });

  test("gives a 204 a null body", async () => {
    const response = await fetcher(`${origin}/empty`, { method: "DELETE" });
    assert.deepEqual([response.status, response.body], [204, null]);
  });

  test("returns a 307 unfollowed, with its location", async () => {
    const before = seen.length;
    const response = await fetcher(`${origin}/redirect`, { method: "POST", body: "{}", redirect: "manual" });
    assert.deepEqual([response.status, response.headers.get("location"), await response.text()], [
      307,
      "/json",
      "moved",
    ]);
    assert.equal(seen.length, before + 1);
  });

  test(
    "returns a body over 64 KiB before it has all arrived, then streams it byte for byte",
    { timeout: 10_000 },
    async () => {
      release = deferred();
      const response = await fetcher(`${origin}/large`, { method: "GET" });
      // The server holds the second half until now: the Response came with 100 KiB of 200.
      release.resolve();
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(bytes.length, LARGE.length);
      assert.equal(Buffer.compare(bytes, LARGE), 0);
    },
  );

  test(
    "returns an event stream at once and streams its events as they come, to it and to a clone",
    { timeout: 10_000 },
    async () => {
      release = deferred();
      const response = await fetcher(`${origin}/sse`, { method: "GET" });
      assert.equal(response.bodyUsed, false);
      const copy = response.clone();
      // The server holds the events until now: the Response came with the headers alone.
      release.resolve();
      const events = "data: one\n\ndata: two\n\n";
      assert.deepEqual([await response.text(), await copy.text(), response.bodyUsed], [events, events, true]);
    },
  );

  test("rejects with the signal's reason when aborted before the response", async () => {
    arrived = deferred();
    const controller = new AbortController();
    const pending = fetcher(`${origin}/hold`, { method: "POST", body: "{}", signal: controller.signal });
    await arrived.promise;
    const reason = new Error("stop");
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
  });

  test("keeps waiting for an answer and a quiet event stream past undici's 300 s timeouts, until the signal ends them", async () => {
    // A pool with undici's defaults (headersTimeout and bodyTimeout 300 s), to show the clock moved.
    const defaults = new Agent();
    const controller = new AbortController();
    try {
      arrived = deferred();
      const timedOut = defaults.request({ origin, path: "/hold", method: "POST", body: "{}" }).catch((e) =>
        e.code
      );
      await arrived.promise;
      arrived = deferred();
      const answer = fetcher(`${origin}/hold`, { method: "POST", body: "{}", signal: controller.signal })
        .catch((e) => e);
      await arrived.promise;
      arrived = deferred();
      const stream = await fetcher(`${origin}/sse-held`, { method: "GET", signal: controller.signal });
      await arrived.promise;
      const reader = stream.body!.getReader();
      const first = await reader.read();
      const next = reader.read().catch((e) => e);
      // undici's clock, 300 s on (the first tick makes the timers just armed count).
      undiciTimers.tick(0);
      undiciTimers.tick(300_001);
      assert.equal(await timedOut, "UND_ERR_HEADERS_TIMEOUT");
      // A turn of the event loop: every socket undici's timers destroyed has closed by now.
      await new Promise((resolve) => setImmediate(resolve));
      const reason = new Error("callTimeout");
      controller.abort(reason);
      assert.deepEqual(
        [new TextDecoder().decode(first.value), await answer === reason, await next === reason],
        ["data: one\n\n", true, true],
      );
    } finally {
      controller.abort();
      await defaults.destroy();
    }
  });

  test("rejects with an AbortError when the signal had no reason", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await fetcher(`${origin}/json`, { method: "GET", signal: controller.signal }).catch((e) =>
      e
    );
    assert.deepEqual([error instanceof DOMException, (error as DOMException).name], [true, "AbortError"]);
  });

  test("errors the body's reader when aborted mid-stream", async () => {
    arrived = deferred();
    const controller = new AbortController();
    const response = await fetcher(`${origin}/sse-held`, { method: "GET", signal: controller.signal });
    await arrived.promise;
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), "data: one\n\n");
    const reason = new Error("enough");
    controller.abort(reason);
    await assert.rejects(reader.read(), (error) => error === reason);
  });

  test("closes the connection when a body is cancelled unread, raising no uncaught error", async () => {
    arrived = deferred();
    const response = await fetcher(`${origin}/sse-cancelled`, { method: "GET" });
    await response.body!.cancel();
    // The server sees the connection close; an uncaught error would have failed this test by then.
    await arrived.promise;
    assert.equal(response.bodyUsed, true);
  });

  test("discardBody() drops a body read in full as used, and cancels a streamed one, closing its connection", async () => {
    const held = await fetcher(`${origin}/json`, { method: "GET" });
    await discardBody(held);
    assert.equal(held.bodyUsed, true);
    await assert.rejects(held.text(), TypeError);
    arrived = deferred();
    const streamed = await fetcher(`${origin}/sse-cancelled`, { method: "GET" });
    await discardBody(streamed);
    await arrived.promise;
    assert.equal(streamed.bodyUsed, true);
  });

  test(
    "readResponse() reads an event stream as it comes, and closes the connection once it has the response",
    { timeout: 10_000 },
    async () => {
      arrived = deferred();
      const response = await fetcher(`${origin}/sse-rpc`, { method: "GET" });
      const messages: JsonRpcMessage[] = [];
      const outcome = await readResponse(response, { requestId: 1, onMessage: (m) => messages.push(m) });
      assert.deepEqual([outcome, messages], [
        { kind: "response", message: { jsonrpc: "2.0", id: 1, result: { ok: true } }, status: 200 },
        [PROGRESS],
      ]);
      await arrived.promise;
      assert.equal(response.bodyUsed, true);
      await assert.rejects(response.text(), TypeError);
    },
  );

  test("readResponse() reads a JSON answer over 64 KiB from the chunks it holds, exactly", async () => {
    const response = await fetcher(`${origin}/large-json`, { method: "POST", body: "{}" });
    assert.equal(response instanceof StreamedResponse, true);
    // Neither its web stream nor a whole read may be asked for: those would make a web stream.
    const asked: string[] = [];
    for (const name of ["body", "arrayBuffer"]) {
      Object.defineProperty(response, name, { configurable: true, get: () => asked.push(name) });
    }
    const outcome = await readResponse(response, { requestId: 1 });
    for (const name of ["body", "arrayBuffer"]) delete (response as unknown as Record<string, unknown>)[name];
    assert.deepEqual(asked, []);
    assert.deepEqual(outcome, {
      kind: "response",
      message: { jsonrpc: "2.0", id: 1, result: { text: LARGE_TEXT } },
      status: 200,
    });
    assert.equal(response.bodyUsed, true);
    await assert.rejects(response.text(), TypeError);
  });

  test(
    "readResponse() of an event stream ends as aborted when its signal fires mid-stream, closing the connection",
    { timeout: 10_000 },
    async () => {
      arrived = deferred();
      const controller = new AbortController();
      const response = await fetcher(`${origin}/sse-rpc-held`, { method: "GET" });
      const messages: JsonRpcMessage[] = [];
      const outcome = readResponse(response, {
        requestId: 1,
        signal: controller.signal,
        onMessage: (m) => {
          messages.push(m);
          controller.abort(new Error("enough"));
        },
      });
      assert.deepEqual([await outcome, messages], [{ kind: "aborted" }, [PROGRESS]]);
      await arrived.promise;
    },
  );

  test('rejects a refused connection with TypeError "fetch failed" and the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await fetcher(`http://127.0.0.1:${port}/`, { method: "GET" }).catch((e) => e);
    assert.deepEqual(
      [
        error instanceof TypeError,
        (error as Error).message,
        ((error as Error).cause as { code?: string }).code,
      ],
      [true, "fetch failed", "ECONNREFUSED"],
    );
  });

  test("sends the method, headers and body exactly, headers given as object, Headers or pairs", async () => {
    const url = `${origin}/json`;
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const from = seen.length;
    await fetcher(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tag": "a" },
      body,
    });
    await fetcher(url, {
      method: "POST",
      headers: new Headers({ "Content-Type": "application/json", "X-Tag": "b" }),
      body,
    });
    await fetcher(url, {
      method: "PUT",
      headers: [["content-type", "application/json"], ["x-tag", "c"]],
      body: new TextEncoder().encode(body),
    });
    const host = origin.slice("http://".length);
    assert.deepEqual(
      seen.slice(from),
      ["a", "b", "c"].map((tag) => ({
        method: tag === "c" ? "PUT" : "POST",
        headers: {
          host,
          connection: "keep-alive",
          "content-type": "application/json",
          "x-tag": tag,
          "content-length": "40",
        },
        body,
      })),
    );
  });

  test("rejects a body that is neither a string nor bytes, naming what it got", async () => {
    await assert.rejects(
      fetcher(`${origin}/json`, { method: "POST", body: new URLSearchParams("a=1") }),
      new TypeError(
        'createNodeFetch(): "init.body" must be a string, a Uint8Array or undefined, received "URLSearchParams"',
      ),
    );
  });

  test("refuses an option that is not a positive integer", () => {
    assert.throws(
      () => createNodeFetch({ keepAliveTimeoutMs: 0 }),
      new RangeError('createNodeFetch(): "keepAliveTimeoutMs" must be a positive integer, received "0"'),
    );
  });

  describe("a connection the server closes before it answers", () => {
    /** What the server read: the connection (numbered from 1) and the request's line and body. */
    type Read = readonly [connection: number, line: string, body: string];

    /**
     * A plain HTTP/1.1 server over node:net that answers 200 with the connection's number, but
     * closes the connection, answering nothing, when `closes(served)` says so (served: the answers
     * given on it so far): with a FIN, or with a reset.
     */
    async function scriptedServer(how: "FIN" | "RST", closes: (served: number) => boolean) {
      const reads: Read[] = [];
      let connections = 0;
      const tcp = createTcpServer((socket: Socket) => {
        const connection = ++connections;
        let served = 0;
        let pending = "";
        socket.on("data", (chunk: Buffer) => {
          pending += chunk.toString("latin1");
          for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
            const head = pending.slice(0, end);
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
            if (pending.length < end + 4 + length) return;
            reads.push([connection, head.split("\r\n")[0] ?? "", pending.slice(end + 4, end + 4 + length)]);
            pending = pending.slice(end + 4 + length);
            if (closes(served)) {
              if (how === "RST") socket.resetAndDestroy();
              else socket.destroy();
              return;
            }
            served++;
            const body = `{"connection":${connection}}`;
            socket.write(
              `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
            );
          }
        });
      });
      await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
      return {
        url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}/mcp`,
        reads,
        close: () => new Promise((resolve) => tcp.close(resolve)),
      };
    }

    const post = (n: number) => `{"n":${n}}`;

    /** How the server closes, and the cause a failed request then carries. */
    const CLOSES = [
      ["FIN", "UND_ERR_SOCKET", "other side closed"],
      ["RST", "ECONNRESET", "read ECONNRESET"],
    ] as const;

    for (const [how, code, message] of CLOSES) {
      for (const method of ["GET", "DELETE"]) {
        test(`sends a ${method} again, on a new connection, when a kept-alive one is closed under it (${how})`, async () => {
          // The race of an idle connection the server times out as the next request goes out on it.
          const server = await scriptedServer(how, (served) => served === 1);
          const fetch = createNodeFetch();
          try {
            const first = await fetch(server.url, { method });
            const answered = [first.status, await first.text()];
            // A turn of the event loop: the pool has taken the connection back as idle.
            await new Promise((resolve) => setTimeout(resolve, 0));
            const second = await fetch(server.url, { method });
            answered.push(second.status, await second.text());
            assert.deepEqual(answered, [200, '{"connection":1}', 200, '{"connection":2}']);
            assert.deepEqual(server.reads, [
              [1, `${method} /mcp HTTP/1.1`, ""],
              [1, `${method} /mcp HTTP/1.1`, ""],
              [2, `${method} /mcp HTTP/1.1`, ""],
            ]);
          } finally {
            await fetch.close();
            await server.close();
          }
        });
      }

      test(`does not send a POST again when a kept-alive one is closed after the server read it (${how})`, async () => {
        // The server read the whole request, and may have acted on it (a tool ran): sent again, it
        // would run twice. Nothing tells this from the idle-timeout race, so no POST is retried.
        const server = await scriptedServer(how, (served) => served === 1);
        const fetch = createNodeFetch();
        try {
          const first = await fetch(server.url, { method: "POST", body: post(1) });
          const answered: unknown[] = [first.status, await first.text()];
          await new Promise((resolve) => setTimeout(resolve, 0));
          const error = await fetch(server.url, { method: "POST", body: post(2) }).catch((e) => e);
          const cause = (error as Error).cause as { code?: string; message?: string };
          answered.push(error instanceof TypeError, (error as Error).message, cause.code, cause.message);
          assert.deepEqual(answered, [200, '{"connection":1}', true, "fetch failed", code, message]);
          assert.deepEqual(server.reads, [
            [1, "POST /mcp HTTP/1.1", post(1)],
            [1, "POST /mcp HTTP/1.1", post(2)],
          ]);
        } finally {
          await fetch.close();
          await server.close();
        }
      });

      test(`does not send the request again when a new connection is closed before any answer (${how})`, async () => {
        const server = await scriptedServer(how, () => true);
        const fetch = createNodeFetch();
        try {
          const error = await fetch(server.url, { method: "POST", body: post(1) }).catch((e) => e);
          const cause = (error as Error).cause as { code?: string; message?: string };
          assert.deepEqual(
            [error instanceof TypeError, (error as Error).message, cause.code, cause.message],
            [true, "fetch failed", code, message],
          );
          assert.deepEqual(server.reads, [[1, "POST /mcp HTTP/1.1", post(1)]]);
        } finally {
          await fetch.close();
          await server.close();
        }
      });
    }
  });

  test("rejects requests after close()", async () => {
    const closing = createNodeFetch();
    await closing.close();
    await closing.close();
    const error = await closing(`${origin}/json`, { method: "GET" }).catch((e) => e);
    assert.deepEqual([error instanceof TypeError, (error as Error).message], [true, "fetch failed"]);
  });
});
