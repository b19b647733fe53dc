// fetchWithRedirects() against real loopback servers (node:http, which Node, Deno and Bun all
// have) that redirect: plain http leaves loopback only with the policy's allowHttp. The fetch
// passed in is the runtime's own, wrapped to record every URL sluice asks for; a name off
// loopback (example.invalid) is answered by the wrapper, never looked up.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { HttpTransport } from "../../src/policy/policy.ts";
import { type Fetcher, fetchWithRedirects } from "../../src/transport/fetch-with-redirects.ts";

/** One request a server received. */
interface Received {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

let redirecting: Server;
let other: Server;
let base: string;
let otherBase: string;
const received: { redirecting: Received[]; other: Received[] } = { redirecting: [], other: [] };

/** Answers a request after reading its body, and records it. */
function serve(
  log: Received[],
  answer: (path: string) => { status: number; headers: Record<string, string> },
) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    for await (const chunk of request) body += String(chunk);
    const path = request.url ?? "";
    log.push({ method: request.method ?? "", path, body });
    const { status, headers } = answer(path);
    response.writeHead(status, headers);
    response.end(status === 200 ? `answered at ${path}` : "");
  };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
}

before(async () => {
  other = createServer((request, response) => {
    void serve(received.other, () => ({ status: 200, headers: {} }))(request, response);
  });
  otherBase = await listen(other);
  redirecting = createServer((request, response) => {
    void serve(received.redirecting, (path) => ({
      status: path === "/found" ? 302 : 307,
      headers: { location: path === "/off-loopback" ? "http://example.invalid/mcp" : `${otherBase}/mcp` },
    }))(request, response);
  });
  base = await listen(redirecting);
});

after(async () => {
  await close(redirecting);
  await close(other);
});

/** The runtime's fetch, recording each URL; example.invalid is answered here, not fetched. */
function recordingFetch(): { fetch: Fetcher; asked: string[] } {
  const asked: string[] = [];
  const recording: Fetcher = (url, init) => {
    asked.push(url);
    if (new URL(url).hostname === "example.invalid") {
      return Promise.resolve(new Response("answered off loopback"));
    }
    return fetch(url, init);
  };
  return { fetch: recording, asked };
}

/** Sends to `path` of the redirecting server with the policy's transport options; a POST carries `{}`. */
function send(method: "POST" | "GET", path: string, options: Omit<HttpTransport, "url">, fetch: Fetcher) {
  const { transport } = compilePolicy({ server: "s", transport: { url: `${base}${path}`, ...options } });
  if (transport.kind !== "http") throw new Error("expected an HTTP transport");
  return fetchWithRedirects({
    transport,
    fetch,
    method,
    headers: { "content-type": "application/json" },
    ...(method === "POST" ? { body: "{}" } : {}),
    signal: new AbortController().signal,
  });
}

describe("fetchWithRedirects() and plain http", () => {
  test('a redirect from loopback to plain http off loopback is refused under "any" without allowHttp, and nothing is sent there', async () => {
    received.redirecting.length = 0;
    const { fetch, asked } = recordingFetch();
    assert.deepEqual(await send("POST", "/off-loopback", { redirect: "any" }, fetch), {
      kind: "redirect_refused",
      message:
        'redirect to http://example.invalid refused: a plain http URL must have a loopback host unless the policy\'s "transport.allowHttp" is true',
    });
    assert.deepEqual(asked, [`${base}/off-loopback`]);
    assert.deepEqual(received.redirecting, [{ method: "POST", path: "/off-loopback", body: "{}" }]);
  });

  test("with allowHttp the same redirect is followed: the POST is asked for at the plain http URL", async () => {
    const { fetch, asked } = recordingFetch();
    const result = await send("POST", "/off-loopback", { redirect: "any", allowHttp: true }, fetch);
    assert.equal(result.kind, "fetched");
    assert.equal(result.kind === "fetched" ? await result.response.text() : "", "answered off loopback");
    assert.deepEqual(asked, [`${base}/off-loopback`, "http://example.invalid/mcp"]);
  });

  test('a redirect from loopback to plain http on another loopback port is followed under "any"', async () => {
    received.other.length = 0;
    const { fetch, asked } = recordingFetch();
    const result = await send("POST", "/next-port", { redirect: "any" }, fetch);
    assert.equal(result.kind, "fetched");
    assert.equal(result.kind === "fetched" ? await result.response.text() : "", "answered at /mcp");
    assert.deepEqual(asked, [`${base}/next-port`, `${otherBase}/mcp`]);
    assert.deepEqual(received.other, [{ method: "POST", path: "/mcp", body: "{}" }]);
  });
});

describe("fetchWithRedirects() and the redirect status", () => {
  test("a 302 to a POST is refused, since following it would turn the POST into a GET", async () => {
    received.other.length = 0;
    const { fetch, asked } = recordingFetch();
    assert.deepEqual(await send("POST", "/found", { redirect: "any" }, fetch), {
      kind: "redirect_refused",
      message: "HTTP 302 would turn the POST into a GET; only 307 and 308 are followed",
    });
    assert.deepEqual(asked, [`${base}/found`]);
    assert.deepEqual(received.other, []);
  });

  test("a 302 to a GET is followed", async () => {
    received.other.length = 0;
    const { fetch, asked } = recordingFetch();
    const result = await send("GET", "/found", { redirect: "any" }, fetch);
    assert.equal(result.kind === "fetched" ? await result.response.text() : result.kind, "answered at /mcp");
    assert.deepEqual(asked, [`${base}/found`, `${otherBase}/mcp`]);
    assert.deepEqual(received.other, [{ method: "GET", path: "/mcp", body: "" }]);
  });
});

describe("fetchWithRedirects() and a cancelled request", () => {
  /** A fetch that records each URL it is asked for and answers every one with a 307 to /next. */
  function redirectingFetch(onCall: () => void = () => {}): { fetch: Fetcher; asked: string[] } {
    const asked: string[] = [];
    const recording: Fetcher = (url) => {
      asked.push(url);
      onCall();
      return Promise.resolve(new Response(null, { status: 307, headers: { location: "/next" } }));
    };
    return { fetch: recording, asked };
  }

  function sendWith(fetch: Fetcher, signal: AbortSignal) {
    const { transport } = compilePolicy({ server: "s", transport: { url: `${base}/mcp` } });
    if (transport.kind !== "http") throw new Error("expected an HTTP transport");
    return fetchWithRedirects({ transport, fetch, method: "GET", headers: {}, signal });
  }

  test("a request whose signal was aborted before it starts never calls fetch and ends aborted", async () => {
    const { fetch, asked } = redirectingFetch();
    assert.deepEqual(await sendWith(fetch, AbortSignal.abort()), { kind: "aborted" });
    assert.deepEqual(asked, []);
  });

  test("a request aborted while a redirect is answered does not follow it and ends aborted", async () => {
    const controller = new AbortController();
    const { fetch, asked } = redirectingFetch(() => controller.abort());
    assert.deepEqual(await sendWith(fetch, controller.signal), { kind: "aborted" });
    assert.deepEqual(asked, [`${base}/mcp`]);
  });
});
