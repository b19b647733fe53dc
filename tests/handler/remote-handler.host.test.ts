// remoteHandler() against handlerApp() served on a real loopback HTTP server (node:http, which
// Node, Deno and Bun all have), through a tiny adapter from node:http to the app's `fetch`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { Hono } from "hono";
import { handlerApp } from "../../src/handler/handler-app.ts";
import { remoteHandler } from "../../src/handler/remote-handler.ts";
import { contextOf, deferred, reply, samplingParams, SECRET } from "./_remote-fixtures.ts";
import { within } from "../_support/eventually.ts";
import { collectGarbage } from "../_support/heap.ts";

const started = deferred();
const handlerAborted = deferred<boolean>();
const app = handlerApp({
  sampling: (params) => ({ ...reply, model: `m-${params.maxTokens}` }),
  elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
  roots: (ctx) =>
    ctx.assigns.hang === true
      ? new Promise(() => {
        ctx.signal.addEventListener("abort", () => handlerAborted.resolve(true));
        started.resolve();
      })
      : { roots: [{ uri: "file:///srv/project" }] },
}, { sharedSecret: SECRET });

let server: Server;
let url: string;

before(async () => {
  server = createServer((request, response) => void serve(app, request, response));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

after(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

describe("remoteHandler() over loopback HTTP", () => {
  const remote = () => remoteHandler(url, { headers: { authorization: `Bearer ${SECRET}` } });

  test("answers each kind through a real handlerApp server", async () => {
    assert.deepEqual(await remote().sampling?.(samplingParams, contextOf({})), { ...reply, model: "m-100" });
    const form = {
      mode: "form",
      message: "Who?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    } as const;
    const fields = { mode: "form", fields: { name: { sensitiveSuspected: false } } } as const;
    assert.deepEqual(await remote().elicitation?.(form, contextOf(fields)), {
      action: "accept",
      content: { name: "Ada" },
    });
    assert.deepEqual(await remote().roots?.(contextOf({})), { roots: [{ uri: "file:///srv/project" }] });
  });

  test("throws on 401 without the shared secret", async () => {
    await assert.rejects(async () => await remoteHandler(url).roots?.(contextOf({})), {
      message:
        'remoteHandler(): the endpoint answered HTTP 401, expected 200: "Authorization refused: no Bearer credentials"',
    });
  });

  test("aborting the caller's signal rejects the call and the server's handler sees its signal fire", async () => {
    const controller = new AbortController();
    const call = remote().roots?.(contextOf({ assigns: { hang: true } }, controller.signal));
    await within("the server's handler to start", started.promise);
    // The handler now waits on a promise nothing settles: a collection here is what hung one CI run,
    // when the app's Request went and took the link from the adapter's abort to its signal with it.
    collectGarbage();
    const reason = new Error("the caller gave up");
    controller.abort(reason);
    await assert.rejects(
      async () => await within("the call to reject", Promise.resolve(call)),
      (error) => error === reason,
    );
    // The adapter aborts the request once its connection closes, so this needs the client's abort
    // to close it and the adapter to have kept the app's Request (see serve): bounded, so that a
    // signal that never fires fails naming it.
    assert.equal(await within("the server's handler to see its signal fire", handlerAborted.promise), true);
  });
});

/**
 * Serves one node:http request with the app: the request aborts when the connection closes early.
 *
 * Node's `Request` follows the `signal` it is made with only while the `Request` itself is
 * reachable (undici holds the controller behind `request.signal` through a `WeakRef`). A handler
 * waiting on a promise that nothing settles leaves nothing else holding the app's `Request`, so a
 * garbage collection before the close would cut `request.signal` off from the adapter's abort and
 * the handler would never see it fire: the connection's close listener holds the `Request` until
 * then. (`@hono/node-server` hands the app its own controller's signal, so it has no such link.)
 */
async function serve(hono: Hono, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const controller = new AbortController();
  let served: Request | undefined;
  response.on("close", () => {
    if (!response.writableFinished) controller.abort();
    served = undefined;
  });
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of request) chunks.push(new Uint8Array(chunk as Uint8Array));
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const method = request.method ?? "GET";
  served = new Request(`http://127.0.0.1${request.url ?? "/"}`, {
    method,
    headers,
    signal: controller.signal,
    ...(method === "GET" || method === "HEAD" ? {} : { body: new Blob(chunks) }),
  });
  const answer = await hono.fetch(served);
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(new Uint8Array(await answer.arrayBuffer()));
}
