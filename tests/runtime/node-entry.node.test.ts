// The Node entry (@sluice/mcp/node) over real HTTP: @hono/node-server in front of the modern peer
// (the cases every entry shares, in ./_entry-cases.ts, stdout readers that close, fall behind or
// stall among them) and the scripted legacy stdio server.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { createGateway, type RunningGateway, serve } from "../../src/adapters/node.ts";
import { type ModernPeer, nodeBinary, REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";
import {
  callTool,
  describeEntry,
  describeStdoutReaders,
  gatewayScript,
  KEY,
  withEnvironment,
} from "./_entry-cases.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

const modern = () => ({ server: "modern", transport: { url: peer.url }, era: "modern" as const });

describeEntry("Node", { serve, createGateway }, {
  peer: () => peer,
  bindingsFrom: (address) => ({ incoming: { socket: { remoteAddress: address } } }),
});

describe("serve() on Node with a legacy stdio server", () => {
  let gateway: RunningGateway;
  before(async () => {
    gateway = await serve({
      port: 0,
      stateKey: KEY,
      handler: {},
      policies: [modern(), {
        server: "legacy",
        transport: {
          command: nodeBinary(),
          args: ["--import", "tsx", "tests/peers/legacy-stdio-server.ts"],
          cwd: REPO_ROOT,
        },
        era: "legacy",
      }],
    });
  });
  after(async () => {
    await gateway?.close();
  });

  test("serve() lists the stdio server in /servers and reaches it through the legacy-capable client", async () => {
    const servers = await (await fetch(`${gateway.url}/servers`)).json() as {
      servers: { id: string; era: string; transport: string }[];
    };
    assert.deepEqual(servers.servers.map((s) => [s.id, s.era, s.transport]), [
      ["modern", "modern", "http"],
      ["legacy", "legacy", "stdio"],
    ]);
    const call = { server: "legacy", name: "echo", arguments: { text: "over stdio" } };
    assert.deepEqual(await callTool(gateway.url, call), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          content: [{ type: "text", text: '{"text":"over stdio"}' }],
          structuredContent: { text: "over stdio" },
        },
      },
    });
  });
});

describe("serve() on Node keeps a caller's idle connection", () => {
  test("open 65 s and says so, so that the caller drops it first (Node's default is 5 s)", async () => {
    const gateway = await serve({ port: 0, stateKey: KEY, playground: false, policies: [modern()] });
    try {
      const response = await fetch(`${gateway.url}/servers`);
      await response.body?.cancel();
      assert.deepEqual([response.status, response.headers.get("keep-alive")], [200, "timeout=65"]);
    } finally {
      await gateway.close();
    }
  });
});

describe("serve() on Node closing", () => {
  test("close() ends a connection that has sent nothing yet, and an idle kept-alive one, at once", async () => {
    const gateway = await serve({ port: 0, stateKey: KEY, playground: false, policies: [modern()] });
    const { port } = new URL(gateway.url);
    // A kept-alive connection that answered one request, and a fresh one that sent nothing, as a
    // client's pool opens once a stream of its was aborted (Node holds one for its 60 s for headers).
    const idle = connect(Number(port), "127.0.0.1");
    await once(idle, "connect");
    idle.write("GET /servers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await once(idle, "data");
    const fresh = connect(Number(port), "127.0.0.1");
    await once(fresh, "connect");
    const ended = [once(idle, "close"), once(fresh, "close")];
    // Real time is the point: without the fix, close() waits about 62 s for the fresh connection.
    const late = new Promise((resolve) => setTimeout(() => resolve("still open after 10 s"), 10_000).unref());
    assert.equal(
      await Promise.race([gateway.close().then(() => Promise.all(ended)).then(() => "closed"), late]),
      "closed",
    );
  });
});

describe("Node gateway PORT checks", () => {
  test("serve() refuses a PORT that is not a port, naming it", async () => {
    await withEnvironment({ PORT: "80a" }, async () => {
      await assert.rejects(serve({ stateKey: KEY, policies: [modern()] }), {
        name: "TypeError",
        message: 'sluice serve(): PORT must be an integer from 0 to 65535, received "80a"',
      });
    });
  });
});

/**
 * A gateway in a process of its own, in front of the modern peer, with its stdout a pipe the test
 * reads (or not): it says its URL on stderr, and closes and exits 0 when its stdin ends.
 */
function gatewayProcess(peerUrl: string): ChildProcessWithoutNullStreams {
  const script = gatewayScript("./src/adapters/node.ts", peerUrl, "process");
  return spawn(nodeBinary(), ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

describeStdoutReaders("Node", () => peer, gatewayProcess);
