// The Node entry (@sluice/mcp/node) over real HTTP: @hono/node-server in front of the modern peer
// (the cases every entry shares, in ./_entry-cases.ts) and the scripted legacy stdio server.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { createGateway, type RunningGateway, serve } from "../../src/adapters/node.ts";
import {
  awaitLine,
  type ModernPeer,
  nodeBinary,
  REPO_ROOT,
  startModernPeer,
  stopChild,
} from "../_support/modern-peer.ts";
import { ADD_ANSWER, callTool, describeEntry, KEY, withEnvironment } from "./_entry-cases.ts";
import { bigName, lineNamesOf, marksOf, refusedBig, refusedInTurn } from "../_support/decision-lines.ts";

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
function gatewayProcess(): ChildProcessWithoutNullStreams {
  const script = `
    import { serve } from "./src/adapters/node.ts";
    const gateway = await serve({
      port: 0,
      stateKey: ${JSON.stringify(KEY)},
      playground: false,
      decisions: "json",
      policies: [{ server: "modern", transport: { url: process.argv[1] }, era: "modern" }],
    });
    console.error("GATEWAY_URL " + gateway.url);
    process.stdin.on("end", () => void gateway.close().then(() => process.exit(0)));
    process.stdin.resume();
  `;
  return spawn(nodeBinary(), ["--import", "tsx", "--input-type=module", "-e", script, peer.url], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

describe("serve() on Node whose stdout is closed", () => {
  test("a reader that closes stdout stops the decision lines, not the gateway", async () => {
    const child = gatewayProcess();
    try {
      const url = await awaitLine(child, "stderr", /^GATEWAY_URL (\S+)$/);
      child.stdout.destroy();
      const call = { server: "modern", name: "add", arguments: { a: 2, b: 3 } };
      // Each call's decision line is written after its answer: the first meets the closed pipe.
      const answers = [await callTool(url, call), await callTool(url, call), await callTool(url, call)];
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.stdin.end();
      assert.deepEqual([answers, await exited], [[ADD_ANSWER, ADD_ANSWER, ADD_ANSWER], 0]);
    } finally {
      await stopChild(child);
    }
  });
});

describe("serve() on Node whose stdout reader falls behind", () => {
  test("every decision line reaches the reader, also those written while it was behind, and none stays in the process at exit", async () => {
    const child = gatewayProcess();
    try {
      const url = await awaitLine(child, "stderr", /^GATEWAY_URL (\S+)$/);
      // Nothing reads stdout until the calls are sent: three lines of about 300 kB fill the pipe.
      child.stdout.pause();
      const statuses = Promise.all(["a", "b", "c"].map((mark) => refusedBig(url, mark)));
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      setTimeout(() => child.stdout.resume(), 300);
      assert.deepEqual(await statuses, [400, 400, 400]);
      child.stdin.end();
      assert.deepEqual([await exited, lineNamesOf(chunks)], [0, [bigName("a"), bigName("b"), bigName("c")]]);
    } finally {
      await stopChild(child);
    }
  });

  test("a reader that stalls costs the process at most 4 MiB of lines: the gateway goes on answering, the lines past it are dropped, and their count is said on stderr", async () => {
    const child = gatewayProcess();
    try {
      const url = await awaitLine(child, "stderr", /^GATEWAY_URL (\S+)$/);
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // 40 lines of 300 kB, 12 MB, while nothing reads: the process keeps 4 MiB and the pipe's fill.
      child.stdout.pause();
      const marks = marksOf(40);
      const statuses = await refusedInTurn(url, marks);
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.stdout.resume();
      child.stdin.end();
      const code = await exited;
      const names = lineNamesOf(chunks);
      const told = /^sluice: (\d+) decision lines dropped: stdout was not read fast enough$/m.exec(stderr);
      const dropped = Number(told?.[1]);
      // Whole lines, the first ones in order (the rest were dropped), and every line accounted for.
      assert.deepEqual(
        [code, statuses, names, names.length + dropped, dropped > 0, stderr.match(/dropped/g)?.length],
        [0, Array(40).fill(400), marks.slice(0, names.length).map(bigName), 40, true, 1],
      );
    } finally {
      await stopChild(child);
    }
  });
});
