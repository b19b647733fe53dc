// The legacy client's default fetch on Node: its own createNodeFetch() pool, not the global
// fetch, closed by client.close(). Against a minimal legacy-era server over loopback node:http.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createClient } from "../../../src/client/legacy/legacy-client.ts";

const received: string[] = [];
const sockets = new Set<Socket>();
let server: Server;
let url: string;

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST") return void response.writeHead(405).end();
      const message = JSON.parse(Buffer.concat(chunks).toString()) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string };
      };
      received.push(message.method);
      if (message.id === undefined) return void response.writeHead(202).end();
      const result = message.method === "initialize"
        ? {
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "loopback", version: "1.0.0" },
        }
        : { tools: [] };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Counts calls of the global fetch while `body` runs. */
async function countingGlobalFetch(body: () => Promise<void>): Promise<number> {
  const original = globalThis.fetch;
  let calls = 0;
  globalThis.fetch = (input, init) => (calls++, original(input, init));
  try {
    await body();
  } finally {
    globalThis.fetch = original;
  }
  return calls;
}

/** Resolves `true` once every connection open now has closed, `false` if one is still open after `ms`. */
function connectionsClosedWithin(ms: number): Promise<boolean> {
  const closed = [...sockets].map((socket) =>
    new Promise<void>((resolve) => socket.destroyed ? resolve() : socket.once("close", () => resolve()))
  );
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void Promise.all(closed).then(() => (clearTimeout(timer), resolve(true)));
  });
}

describe("createClient() of the legacy entry on Node", () => {
  test("sends through its own pool, never the global fetch, and close() closes the pool's sockets", async () => {
    received.length = 0;
    let openBeforeClose = 0;
    const calls = await countingGlobalFetch(async () => {
      const client = createClient({
        name: "pool-test",
        policies: [{ server: "s", transport: { url }, era: "legacy" }],
      });
      assert.deepEqual((await client.listTools("s")).tools, []);
      openBeforeClose = sockets.size;
      await client.close();
    });
    assert.deepEqual([calls, received], [0, ["initialize", "notifications/initialized", "tools/list"]]);
    // Keep-alive sockets (60 s on the server) were open, and closing the client closed them
    // (10 s: far below the keep-alive, with room for a busy machine).
    assert.notEqual(openBeforeClose, 0);
    assert.equal(await connectionsClosedWithin(10_000), true);
  });

  test("uses a fetch given in its options (the global one here) instead", async () => {
    received.length = 0;
    const calls = await countingGlobalFetch(async () => {
      const client = createClient({
        name: "given-fetch",
        fetch: (input, init) => fetch(input, init),
        policies: [{ server: "s", transport: { url }, era: "legacy" }],
      });
      assert.deepEqual((await client.listTools("s")).tools, []);
      await client.close();
    });
    // initialize, notifications/initialized, the GET stream (answered 405), tools/list.
    assert.deepEqual([calls, received], [4, ["initialize", "notifications/initialized", "tools/list"]]);
  });
});
