// readRequestBytes(): an incoming body within a byte limit, by its declared length or chunk by chunk.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readRequestBytes } from "../../src/transport/body-reader.ts";

const encoder = new TextEncoder();

/** A POST whose body arrives as the given chunks, with or without a Content-Length. */
function post(chunks: readonly string[], contentLength?: string): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const headers = contentLength === undefined ? {} : { "content-length": contentLength };
  return new Request(
    "http://127.0.0.1/mcp",
    { method: "POST", body, headers, duplex: "half" } as RequestInit,
  );
}

describe("readRequestBytes()", () => {
  test("reads a body of declared length within the limit whole", async () => {
    assert.deepEqual(await readRequestBytes(post(['{"a":', "1}"], "7"), 7), encoder.encode('{"a":1}'));
  });

  test("refuses a declared length over the limit without reading the body", async () => {
    const request = post(["x".repeat(9)], "9");
    assert.equal(await readRequestBytes(request, 8), "over_limit");
    assert.equal(request.bodyUsed, false);
  });

  test("refuses a body longer than the limit whose declared length lies, as a Request made in the process may", async () => {
    assert.equal(await readRequestBytes(post(["x".repeat(5000)], "10"), 1000), "over_limit");
  });

  test("reads a body of unknown length chunk by chunk, and stops once past the limit", async () => {
    assert.deepEqual(await readRequestBytes(post(["ab", "cd"]), 4), encoder.encode("abcd"));
    assert.equal(await readRequestBytes(post(["ab", "cd", "e"]), 4), "over_limit");
  });

  test("answers incomplete when a body of unknown length fails midway", async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new TypeError("connection reset"));
        sent = true;
        controller.enqueue(encoder.encode("ab"));
      },
    });
    const request = new Request(
      "http://127.0.0.1/mcp",
      { method: "POST", body, duplex: "half" } as RequestInit,
    );
    assert.equal(await readRequestBytes(request, 100), "incomplete");
  });
});
