// What the front relays, in the caller's era: list results with resultType, ttlMs and cacheScope
// for modern callers of a legacy upstream (every tool listed), progress from a legacy upstream to
// a modern caller under its token, and log entries within the server's budget at the level each
// caller asked for (modern: the request's logLevel _meta; legacy: logging/setLevel, never below
// the policy's logLevel). Also the idle legacy session closed after sessionIdleTimeout.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import type { GatewayAuth } from "../../src/front/downstream-auth.ts";
import { everythingStdioCommand } from "../_support/everything.ts";
import { type HostileHttpServer, startHostileHttp } from "../_support/hostile-process.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { EventReader, type Fetch, LegacyCaller } from "../_support/legacy-caller.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { askScriptedFront, scriptedFront } from "../_support/gateway-caller.ts";
import { result } from "../_support/scripted-server.ts";

const KEY = "front-relay-test-key-0123456789abcdef0123";
const PASS_ALL = ["sampling", "elicitation", "roots"] as const;

let hostile: HostileHttpServer<unknown> | undefined;
let peer: ModernPeer | undefined;
before(async () => {
  [hostile, peer] = await Promise.all([startHostileHttp("hostile-modern-server.ts"), startModernPeer()]);
});
after(async () => {
  await Promise.all([hostile?.stop(), peer?.stop()]);
});

function gateway(extra: Partial<Policy> = {}, time?: FakeTime, auth: GatewayAuth = "none") {
  const client = createClient({
    name: "gate",
    ...(time === undefined ? {} : { timers: time, clock: time }),
    policies: [
      { server: "everything", transport: everythingStdioCommand(), era: "legacy", passDown: [...PASS_ALL] },
      // A log budget that does not refill within a test: what passes is counted exactly.
      {
        server: "hostile",
        transport: { url: hostile?.url ?? "" },
        era: "modern",
        logRateLimit: { rate: 1, per: "1h", burst: 100 },
        ...extra,
      },
      { server: "modern", transport: { url: peer?.url ?? "" }, era: "modern", ...extra },
    ],
  });
  const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.test"], auth });
  const fetch: Fetch = async (url, init) => await app.fetch(new Request(url, init));
  return { client, fetch };
}

/** A modern request's params `_meta`. */
function meta(extra: Record<string, unknown> = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    ...extra,
  };
}

/** POSTs a modern request; resolves with the response. */
function modern(
  fetch: Fetch,
  server: string,
  method: string,
  params: Record<string, unknown>,
  accept?: string,
) {
  const name = method === "tools/call" ? String(params.name) : undefined;
  return fetch(`http://gate.test/mcp/${server}`, {
    method: "POST",
    headers: name === undefined
      ? {
        "content-type": "application/json",
        accept: accept ?? "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
      }
      : toolCallHeaders(name, accept),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

const note = (n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", logger: "hostile", data: `note ${n}` },
});

describe("the front relays to a modern caller", () => {
  test("tools/list of a legacy upstream: every tool (one session, declaring every kind passed down), with resultType, ttlMs and cacheScope", async () => {
    const { client, fetch } = gateway();
    const response = await modern(fetch, "everything", "tools/list", { _meta: meta() });
    const result = (await response.json() as { result: Record<string, unknown> }).result;
    const { tools, ...rest } = result as { tools: { name: string }[] };
    assert.deepEqual(rest, { resultType: "complete", ttlMs: 0, cacheScope: "private" });
    assert.equal(tools.length, 17);
    for (const name of ["get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"]) {
      assert.ok(tools.some((tool) => tool.name === name), name);
    }
    await client.close();
  });

  test("progress of a legacy upstream reaches a modern caller under the caller's token", async () => {
    const { client, fetch } = gateway();
    const response = await modern(fetch, "everything", "tools/call", {
      name: "trigger-long-running-operation",
      arguments: { duration: 0.3, steps: 3 },
      _meta: meta({ progressToken: "caller-1" }),
    }, "application/json, text/event-stream");
    const messages = await new EventReader(response).rest();
    assert.deepEqual(
      messages.slice(0, 3).map((m) => m.params),
      [1, 2, 3].map((progress) => ({
        progress,
        total: 3,
        progressToken: "caller-1",
      })),
    );
    assert.equal((messages[3]?.result as { resultType: string }).resultType, "complete");
    assert.equal(messages.length, 4);
    await client.close();
  });

  test("a modern caller without roots gets its stdio call's result; the roots/list the server asks on its own meanwhile gets -32601", async () => {
    // server-everything asks roots/list 350 ms after the handshake, naming no call: on stdio it
    // ties to this call only because it is the one in flight, so the caller is not failed for it.
    const client = createClient({
      name: "gate",
      handler: { log: () => {} },
      policies: [{
        server: "everything",
        transport: everythingStdioCommand(),
        era: "legacy",
        passDown: [...PASS_ALL],
        logLevel: "debug",
      }],
    });
    // server-everything writes the error it got for roots/list to its stderr.
    const rootsFailed = new Promise<unknown>((resolve) =>
      client.onNotification((entry) => {
        const line = entry.kind === "log" && entry.log.logger === "stderr" ? String(entry.log.data) : "";
        if (line.includes("roots")) resolve(line);
      })
    );
    const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.test"], auth: "none" });
    const response = await modern(
      async (url, init) => await app.fetch(new Request(url, init)),
      "everything",
      "tools/call",
      {
        name: "trigger-long-running-operation",
        arguments: { duration: 1, steps: 2 },
        _meta: meta(),
      },
    );
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [{ type: "text", text: "Long running operation completed. Duration: 1 seconds, Steps: 2." }],
        resultType: "complete",
      },
    });
    assert.equal(
      await rootsFailed,
      'Failed to request roots from client undefined: MCP error -32601: Method not found: the caller did not declare roots, which "roots/list" needs',
    );
    await client.close();
  });

  test("log entries reach a modern caller that asked with logLevel, sanitized, within the server's budget", async () => {
    const { client, fetch } = gateway();
    const call = (logs: number, level?: string) =>
      modern(fetch, "hostile", "tools/call", {
        name: "chatty",
        arguments: { logs },
        _meta: meta(level === undefined ? {} : { "io.modelcontextprotocol/logLevel": level }),
      }, "application/json, text/event-stream");
    const asked = await new EventReader(await call(3, "info")).rest();
    assert.deepEqual(asked.slice(0, 3), [note(1), note(2), note(3)]);
    assert.equal(asked.length, 4);
    // None asked, or only warnings and above: no log entry, so a plain JSON answer.
    for (const level of [undefined, "warning"]) {
      const response = await call(3, level);
      assert.equal(response.headers.get("content-type"), "application/json");
      await response.body?.cancel();
    }
    // The policy's log budget (burst 100) holds across one caller's calls.
    const flood = await new EventReader(await call(150, "debug")).rest();
    assert.equal(flood.filter((m) => m.method === "notifications/message").length, 97);
    await client.close();
  });

  test("each caller of a modern upstream has its own log budget: one that spends the burst leaves another's entries", async () => {
    const { client, fetch } = gateway({}, undefined, (request) => {
      const subject = request.headers.get("x-user");
      return subject === null ? new Response(null, { status: 401 }) : { subject };
    });
    const call = (user: string, logs: number) =>
      modern(
        (url, init) =>
          fetch(url, { ...init, headers: { ...init?.headers as Record<string, string>, "x-user": user } }),
        "hostile",
        "tools/call",
        { name: "chatty", arguments: { logs }, _meta: meta({ "io.modelcontextprotocol/logLevel": "debug" }) },
        "application/json, text/event-stream",
      );
    const flood = await new EventReader(await call("alice", 120)).rest();
    assert.equal(flood.filter((m) => m.method === "notifications/message").length, 100);
    const other = await new EventReader(await call("bob", 3)).rest();
    assert.deepEqual(other.slice(0, 3), [note(1), note(2), note(3)]);
    // Alice's budget stays spent: no entry, so a plain JSON answer.
    const again = await call("alice", 3);
    assert.equal(again.headers.get("content-type"), "application/json");
    await again.body?.cancel();
    await client.close();
  });
});

/**
 * The four lists the front relays, each with what its result must hold (an upstream leaving it
 * out, `{ resultType: "complete" }`, sends a result sluice's client refuses).
 */
const LISTS = [
  ["tools/list", "tools"],
  ["resources/list", "resources"],
  ["resources/templates/list", "resourceTemplates"],
  ["prompts/list", "prompts"],
] as const;

/** What the caller is answered for a list the client would refuse: the upstream broke the protocol. */
const BROKE_THE_PROTOCOL = {
  code: -32010,
  message: 'Upstream server "up" is unavailable: it broke the protocol',
  data: { serverId: "up", cause: "protocol" },
};

describe("the front relays a modern upstream's lists to a modern caller only as its client takes them", () => {
  for (const [method, key] of LISTS) {
    test(`${method} without "${key}" is answered -32010 (the upstream broke the protocol); with it, relayed`, async () => {
      let listed = false;
      const front = scriptedFront(({ body }) =>
        result(body.id, { resultType: "complete", ...(listed ? { [key]: [] } : {}) })
      );
      const refused = await askScriptedFront(front, method, {});
      listed = true;
      const relayed = await askScriptedFront(front, method, {});
      assert.deepEqual([refused, relayed], [
        { status: 200, body: { jsonrpc: "2.0", id: 1, error: BROKE_THE_PROTOCOL } },
        {
          status: 200,
          body: {
            jsonrpc: "2.0",
            id: 1,
            result: { resultType: "complete", [key]: [], ttlMs: 0, cacheScope: "private" },
          },
        },
      ]);
      await front.client.close();
    });
  }
});

describe("the front relays to a legacy caller", () => {
  test("log entries of its calls reach it at the policy's level until it sets its own", async () => {
    const { client, fetch } = gateway();
    const host = new LegacyCaller(fetch, "http://gate.test/mcp/hostile");
    await host.initialize();
    const chatty = async (id: number) => {
      const response = await host.post({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "chatty", arguments: { logs: 2 } },
      });
      return response.headers.get("content-type") === "application/json"
        ? [await response.json() as Record<string, unknown>]
        : await new EventReader(response).rest();
    };
    const before = await chatty(1);
    assert.deepEqual(before.slice(0, 2), [note(1), note(2)]);
    assert.deepEqual(await host.request(2, "logging/setLevel", { level: "error" }), {
      jsonrpc: "2.0",
      id: 2,
      result: {},
    });
    assert.deepEqual(await chatty(3), [{
      jsonrpc: "2.0",
      id: 3,
      result: { content: [{ type: "text", text: "chatted 2" }] },
    }]);
    await client.close();
  });

  test("a session unused for sessionIdleTimeout is closed (then 404); one in use is kept", async () => {
    const time = new FakeTime(Date.now());
    const { client, fetch } = gateway({ sessionIdleTimeout: "1m" }, time);
    const idle = new LegacyCaller(fetch, "http://gate.test/mcp/modern");
    const listening = new LegacyCaller(fetch, "http://gate.test/mcp/modern");
    await idle.initialize();
    await listening.initialize();
    const stream = await listening.listen();
    await time.advance(2 * 60_000);
    assert.equal((await idle.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
    assert.equal((await listening.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 200);
    await stream.body?.cancel();
    await client.close();
  });
});
