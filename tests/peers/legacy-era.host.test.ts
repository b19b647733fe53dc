// Era detection, session expiry and roots with the legacy client (@sluice/mcp/legacy), against
// real servers: the modern peer, the scripted legacy HTTP server, server-everything and
// server-filesystem.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "../../src/legacy.ts";
import { type ModernPeer, nodeBinary, REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";
import { type LegacyHttpPeer, startLegacyHttpPeer } from "../_support/legacy-http-peer.ts";
import { eventually } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";

let modern: ModernPeer;
let legacy: LegacyHttpPeer;
before(async () => {
  [modern, legacy] = await Promise.all([startModernPeer(), startLegacyHttpPeer()]);
});
after(async () => {
  await Promise.all([modern?.stop(), legacy?.stop()]);
});

const methodsSent = (log: readonly { body?: unknown }[]) =>
  log.map((r) => (r.body as { method?: string } | undefined)?.method);

/** What an `"auto"` client sends a legacy server before its first call: the probe, the handshake, the tool list. */
const legacyStart = ["server/discover", "initialize", "notifications/initialized", "tools/list"];

describe("era: auto", () => {
  test("speaks the modern era to a server that answers server/discover", async () => {
    await modern.clearRequests();
    const client = createClient({
      name: "auto-test",
      handler: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
      policies: [{ server: "s", transport: { url: modern.url }, era: "auto" }],
    });
    const result = await client.callTool("s", "ask_form");
    assert.match(JSON.stringify(result), /Ada/);
    const sent = (await modern.requests()).map((r) => (r.body as { method?: string }).method);
    assert.deepEqual(sent.slice(0, 2), ["server/discover", "tools/list"]);
    assert.equal(sent.includes("initialize"), false);
    await client.close();
  });

  test("falls back to initialize on a legacy server, then keeps that era without probing again", async () => {
    await legacy.clearLog();
    const client = createClient({
      name: "auto-test",
      policies: [{ server: "s", transport: { url: legacy.url }, era: "auto" }],
    });
    await client.callTool("s", "echo", { text: "one" });
    await client.callTool("s", "echo", { text: "two" });
    const sent = methodsSent(await legacy.log()).filter((m) => m !== undefined);
    assert.deepEqual(sent, [...legacyStart, "tools/call", "tools/call"]);
    await client.close();
  });
});

/**
 * A fetch that answers the first request with `status` and no JSON-RPC answer, as a proxy in
 * front of the server might, then reaches the server.
 */
function firstAnswered(status: number): (url: string, init: RequestInit) => Promise<Response> {
  let first = true;
  return (url, init) => {
    if (!first) return fetch(url, init);
    first = false;
    return Promise.resolve(new Response("not now", { status }));
  };
}

/**
 * Three echo calls to the modern peer as an `"auto"` server whose probe meets `status` first.
 *
 * @returns How each call ended (its content, or its error's kind, code and message), and the
 *   methods the peer received.
 */
async function echoesAfterProxy(status: number): Promise<[unknown[], unknown[]]> {
  await modern.clearRequests();
  const client = createClient({
    name: "auto-test",
    policies: [{ server: "s", transport: { url: modern.url }, era: "auto" }],
    fetch: firstAnswered(status),
  });
  const outcomes: unknown[] = [];
  for (let i = 0; i < 3; i++) {
    outcomes.push(
      await client.callTool("s", "echo", { message: `hi ${i}` }).then(
        (result) => result.content,
        (error) => [error.kind, error.code, error.message],
      ),
    );
  }
  await client.close();
  return [outcomes, methodsSent(await modern.requests())];
}

/** The second and third echo calls answered. */
const echoed = [
  [{ type: "text", text: '{"message":"hi 1"}' }],
  [{ type: "text", text: '{"message":"hi 2"}' }],
];

describe("era: auto, a probe that met a proxy", () => {
  test("a modern server whose probe met HTTP 503 fails that call with it, then is probed again and spoken to in the modern era", async () => {
    assert.deepEqual(await echoesAfterProxy(503), [
      [["transport", undefined, 'Server "s" answered server/discover with HTTP 503'], ...echoed],
      ["server/discover", "tools/list", "tools/call", "tools/call"],
    ]);
  });

  test("a modern server whose probe met HTTP 404 is taken for legacy until its -32022 to initialize, then probed again", async () => {
    const refused =
      'Server "s" answered initialize with error -32022: "Unsupported protocol version: 2025-11-25"';
    assert.deepEqual(await echoesAfterProxy(404), [
      [["server", -32022, refused], ...echoed],
      ["initialize", "server/discover", "tools/list", "tools/call", "tools/call"],
    ]);
  });
});

describe("era: auto, a session forgotten after a failure", () => {
  test("is closed (DELETE) once its last call ends, the call still running on it going on, and the next call opens another", async () => {
    await legacy.clearLog();
    const rootsAsked = gate();
    const rootsAnswered = gate();
    let failNextCall = false;
    const client = createClient({
      name: "auto-test",
      handler: {
        roots: async () => {
          rootsAsked.open();
          await rootsAnswered.opened;
          return { roots: [] };
        },
      },
      policies: [{ server: "s", transport: { url: legacy.url }, era: "auto" }],
      fetch: (url: string, init: RequestInit) => {
        if (!failNextCall || !String(init.body).includes('"tools/call"')) return fetch(url, init);
        failNextCall = false;
        return Promise.resolve(new Response("bad gateway", { status: 502 }));
      },
    });
    const texts = (result: { content: unknown }) => result.content;
    const first = await client.callTool("s", "echo", { text: "one" }).then(texts);
    // A call in flight on the session (its roots/list answer held) while another fails on it.
    const asking = client.callTool("s", "ask").then(texts);
    await rootsAsked.opened;
    failNextCall = true;
    const failed = await client.callTool("s", "echo", { text: "two" }).catch((
      error,
    ) => [error.kind, error.message]);
    const deletesWhileAsking = (await legacy.log()).filter((r) => r.method === "DELETE").length;
    rootsAnswered.open();
    const asked = await asking;
    const firstSession = (await legacy.log()).find((r) => r.headers["mcp-session-id"])
      ?.headers["mcp-session-id"];
    await eventually(
      "the forgotten session ended",
      async () => (await legacy.log()).find((r) => r.method === "DELETE"),
    );
    const third = await client.callTool("s", "echo", { text: "three" }).then(texts);
    const beforeClose = await legacy.log();
    await client.close();
    const sessions = [...new Set(beforeClose.map((r) => r.headers["mcp-session-id"]).filter((id) => id))];
    const deletes = (log: readonly { method: string; headers: Record<string, string> }[]) =>
      log.filter((r) => r.method === "DELETE").map((r) => sessions.indexOf(r.headers["mcp-session-id"]));
    assert.deepEqual(
      [first, asked, failed, deletesWhileAsking, third],
      [
        [{ type: "text", text: "one" }],
        [{ type: "text", text: '[{"jsonrpc":"2.0","id":"ask-1","result":{"roots":[]}}]' }],
        [
          "transport",
          'Server "s": Request 5 ("tools/call") failed with HTTP 502: expected a JSON-RPC response, received "bad gateway"',
        ],
        0,
        [{ type: "text", text: "three" }],
      ],
    );
    assert.equal(sessions[0], firstSession);
    // Two sessions: the first ended once the call asking for roots did, the second by close().
    assert.deepEqual([sessions.length, deletes(beforeClose), deletes(await legacy.log())], [2, [0], [0, 1]]);
    assert.deepEqual(methodsSent(beforeClose).filter((m) => m !== undefined), [
      ...legacyStart,
      "tools/call",
      "tools/call",
      ...legacyStart,
      "tools/call",
    ]);
  });
  test("a call that takes the session as another call's failure forgets it runs on it, whatever the microtasks between (0 to 11)", async () => {
    const outcomes: unknown[] = [];
    for (let turns = 0; turns < 12; turns++) {
      let failCall: ((error: Error) => void) | undefined;
      const failing = gate();
      let armed = false;
      const client = createClient({
        name: "auto-test",
        policies: [{ server: "s", transport: { url: legacy.url }, era: "auto" }],
        fetch: (url: string, init: RequestInit) => {
          if (!armed || !String(init.body).includes('"tools/call"')) return fetch(url, init);
          armed = false;
          failing.open();
          return new Promise<Response>((_, reject) => (failCall = reject));
        },
      });
      await client.callTool("s", "echo", { text: "one" });
      armed = true;
      const failed = client.callTool("s", "echo", { text: "two" }).catch((error) => error.kind);
      await failing.opened;
      failCall?.(new TypeError("fetch failed"));
      // The failure forgets the session, and closes it once its call ends, some microtasks later.
      for (let turn = 0; turn < turns; turn++) await Promise.resolve();
      const taken = await client.callTool("s", "echo", { text: "three" }).then(
        (result) => result.content,
        (error) => `${error.kind}: ${error.message}`,
      );
      outcomes.push([turns, await failed, taken]);
      await client.close();
    }
    assert.deepEqual(
      outcomes,
      Array.from({ length: 12 }, (_, turns) => [turns, "transport", [{ type: "text", text: "three" }]]),
    );
  });
});

describe("legacy sessions", () => {
  test("initialize again after the server forgets the session (HTTP 404), and carry on", async () => {
    await legacy.clearLog();
    const client = createClient({
      name: "expiry-test",
      policies: [{ server: "s", transport: { url: legacy.url }, era: "legacy" }],
    });
    await client.callTool("s", "expire_session");
    const echoed = await client.callTool("s", "echo", { text: "after" });
    assert.match(JSON.stringify(echoed), /after/);
    const log = await legacy.log();
    assert.deepEqual(methodsSent(log).filter((m) => m === "initialize").length, 2);
    assert.ok(log.some((r) => r.status === 404));
    await client.close();
  });

  test("gives server-filesystem its allowed directories from the handler's roots, and tells it when they change", async () => {
    const first = realpathSync(mkdtempSync(join(tmpdir(), "sluice-roots-a-")));
    const second = realpathSync(mkdtempSync(join(tmpdir(), "sluice-roots-b-")));
    let roots = [first];
    const client = createClient({
      name: "roots-test",
      handler: { roots: () => ({ roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })) }) },
      policies: [{
        server: "fs",
        transport: {
          command: nodeBinary(),
          args: [join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")],
        },
        era: "legacy",
        // The server's stderr reaches the client as "info" log entries.
        logLevel: "info",
      }],
    });
    // server-filesystem asks for roots after the handshake (and again after list_changed) and
    // applies them asynchronously; once applied, it writes this line to stderr. The test waits
    // for the line, so what it lists next is the new set, however busy the machine.
    const applied: string[] = [];
    client.onNotification((entry) => {
      const line = entry.kind === "log" && entry.log.logger === "stderr" ? String(entry.log.data) : "";
      if (line.startsWith("Updated allowed directories from MCP roots")) applied.push(line);
    });
    const appliedTimes = (n: number) =>
      eventually(
        `server-filesystem applying roots ${n} time(s)`,
        () => applied.length >= n ? true : undefined,
      );
    const listed = async () => JSON.stringify(await client.callTool("fs", "list_allowed_directories"));
    try {
      // The first call starts the session, and with it the server's first request for roots.
      await client.callTool("fs", "list_allowed_directories");
      await appliedTimes(1);
      assert.match(await listed(), new RegExp(first));
      roots = [second];
      await client.rootsChanged("fs");
      await appliedTimes(2);
      const after = await listed();
      assert.match(after, new RegExp(second));
      assert.doesNotMatch(after, new RegExp(first));
      assert.deepEqual(applied, [
        "Updated allowed directories from MCP roots: 1 valid directories",
        "Updated allowed directories from MCP roots: 1 valid directories",
      ]);
    } finally {
      await client.close();
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });
});

describe("createClient() of the legacy entry", () => {
  test("options that are not an object get createClient()'s TypeError, not one from reading fetch", () => {
    for (
      const [options, received] of [[null, "null"], [undefined, "undefined"], ["x", "string"], [
        [],
        "an array",
      ]]
    ) {
      assert.throws(() => createClient(options as never), {
        name: "TypeError",
        message:
          `createClient(): the options must be an object { name, policies, handler?, … }, received ${received}`,
      });
    }
  });
});
