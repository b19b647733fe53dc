// The front's legacy face, on the wire: a host speaking 2025-11-25 or 2025-06-18 Streamable HTTP
// opens a session with initialize and gets the transport spec to the letter (session ids,
// statuses, Accept, the GET stream, resumption, DELETE), input requests passed down as JSON-RPC
// requests on the call's stream with its answers post-checked, progress and logs, cancellation.
// Upstreams: the modern peer (@modelcontextprotocol/server 2.4.0) over HTTP, and the official
// server-everything over stdio (one child process per caller session).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { createClient, type Decision, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { everythingStdioCommand } from "../_support/everything.ts";
import { hostileStdioTransport } from "../_support/hostile-process.ts";
import { gate } from "../_support/gate.ts";
import {
  EventReader,
  type Fetch,
  holdingUpstream,
  initializeMessage,
  LegacyCaller,
  legacyHeaders,
} from "../_support/legacy-caller.ts";
import { schemaErrors } from "../protocol/_official-schema.ts";

const KEY = "front-legacy-callers-key-0123456789abcdef";
const PASS_ALL = ["sampling", "elicitation", "roots"] as const;

let peer: ModernPeer | undefined;
/** A loopback port nothing listens on (not 9: fetch blocks the ports the Fetch standard calls bad). */
let closedPort = 0;
before(async () => {
  peer = await startModernPeer();
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
after(async () => {
  await peer?.stop();
});

/**
 * A front over the modern peer ("modern"), server-everything and the hostile server over stdio
 * ("everything", "hostile") and a dead port ("down"), reaching its HTTP upstreams with
 * `upstreamFetch`.
 */
function gateway(policy: Partial<Policy> = {}, upstreamFetch: Fetch = globalThis.fetch) {
  const client = createClient({
    name: "gate",
    fetch: upstreamFetch,
    policies: [
      {
        server: "modern",
        transport: { url: peer?.url ?? "" },
        era: "modern",
        passDown: [...PASS_ALL],
        ...policy,
      },
      {
        server: "everything",
        transport: everythingStdioCommand(),
        era: "legacy",
        passDown: [...PASS_ALL],
        ...policy,
      },
      { server: "hostile", transport: hostileStdioTransport(), era: "legacy", passDown: [...PASS_ALL] },
      { server: "down", transport: { url: `http://127.0.0.1:${closedPort}/mcp` }, era: "modern" },
    ],
  });
  const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.test"], auth: "none" });
  const fetch: Fetch = async (url, init) => await app.fetch(new Request(url, init));
  const caller = (server: string, version?: string) =>
    new LegacyCaller(fetch, `http://gate.test/mcp/${server}`, version);
  return { client, fetch, caller };
}

/** A front over the modern peer whose callers are named by an `x-caller` header, at `maxSessions`. */
function principalsGateway(maxSessions: number) {
  const client = createClient({
    name: "gate",
    policies: [{ server: "modern", transport: { url: peer?.url ?? "" }, era: "modern", maxSessions }],
  });
  const app = createFront({
    client,
    stateKey: KEY,
    allowedHosts: ["gate.test"],
    auth: (request) => ({ subject: request.headers.get("x-caller") ?? "nobody" }),
  });
  const as = (who: string) =>
    new LegacyCaller(async (url, init) => {
      const request = new Request(url, init);
      request.headers.set("x-caller", who);
      return await app.fetch(request);
    }, "http://gate.test/mcp/modern");
  const ping = async (caller: LegacyCaller) =>
    (await caller.post({ jsonrpc: "2.0", id: 9, method: "ping" })).status;
  return { client, as, ping };
}

const CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/** A call of server-everything's tool that answers -32042 (a URL elicitation required) first. */
const URL_REQUIRED_CALL = {
  jsonrpc: "2.0",
  id: 4,
  method: "tools/call",
  params: {
    name: "trigger-url-elicitation",
    arguments: { url: "https://login.example.com/y", message: "m", errorPath: true, elicitationId: "e-1" },
  },
};

/** The headers of a POST whose request gets no response: an SSE stream that ends with no event. */
const UNANSWERED_HEADERS = {
  "cache-control": "no-cache",
  "content-type": "text/event-stream",
  "x-accel-buffering": "no",
};

/**
 * The body of an error response, once it is checked to fit JSON-RPC's error response as both
 * legacy versions' schemas define it (which require the id of a request whose id was readable).
 */
async function fittingError(response: Response): Promise<unknown> {
  const body: unknown = await response.json();
  assert.deepEqual(
    [
      schemaErrors("2025-06-18", "JSONRPCError", body),
      schemaErrors("2025-11-25", "JSONRPCErrorResponse", body),
    ],
    [[], []],
  );
  return body;
}

/** A host's `initialize` (id 1) at the gateway's "modern" server, declaring `capabilities`. */
function initializeWith(fetch: Fetch, version: string, capabilities: unknown): Promise<Response> {
  return fetch("http://gate.test/mcp/modern", {
    method: "POST",
    headers: legacyHeaders(),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities, clientInfo: { name: "host", version: "1" } },
    }),
  });
}

describe("the front's legacy face: sessions", () => {
  test("initialize opens a session: Mcp-Session-Id of visible ASCII, the version asked for, the upstream's capabilities", async () => {
    const { client, fetch } = gateway();
    const response = await initializeWith(fetch, "2025-06-18", {});
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.match(response.headers.get("mcp-session-id") ?? "", /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-06-18",
        // The modern peer's listChanged is not offered: the front relays no list changes of a
        // modern upstream (the modern era has them only on subscriptions/listen streams).
        capabilities: { logging: {}, tools: {}, prompts: {}, resources: {} },
        serverInfo: { name: "sluice-front", title: "sluice: modern", version: "0.1.0" },
      },
    });
    await client.close();
  });

  test("initialize with a version the front does not serve is answered with its latest, 2025-11-25", async () => {
    const { client, caller } = gateway();
    const host = caller("modern", "2024-11-05");
    const body = await host.initialize();
    assert.equal((body.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
    await client.close();
  });

  test("initialize whose capabilities break its version's schema is refused 400 -32602 naming the entry, and opens no session", async () => {
    const { client, fetch } = gateway();
    const initialize = async (version: string, capabilities: unknown) => {
      const response = await initializeWith(fetch, version, capabilities);
      return [response.status, response.headers.get("mcp-session-id"), await fittingError(response)];
    };
    const refused = (
      message: string,
    ) => [400, null, { jsonrpc: "2.0", id: 1, error: { code: -32602, message } }];
    assert.deepEqual(
      [
        await initialize("2025-11-25", { elicitation: { form: {} }, experimental: { feature: true } }),
        await initialize("2025-06-18", { roots: { listChanged: "yes" } }),
      ],
      [
        refused("Invalid params: capabilities.experimental.feature: expected Object, received true"),
        refused('Invalid params: capabilities.roots.listChanged: expected boolean, received "yes"'),
      ],
    );
    await client.close();
  });

  test("a request without Mcp-Session-Id is 400, an unknown one 404, each with its id, and DELETE ends the session (then 404)", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    const ping = { jsonrpc: "2.0", id: 5, method: "ping" };
    const none = await host.post(ping);
    assert.equal(none.status, 400);
    assert.deepEqual(await fittingError(none), {
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32000,
        message: "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
      },
    });
    host.session = "no-such-session";
    const unknown = await host.post({ ...ping, id: "five" });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await fittingError(unknown), {
      jsonrpc: "2.0",
      id: "five",
      error: { code: -32001, message: "Session not found: initialize a new session" },
    });
    await host.initialize();
    assert.deepEqual(await host.request(6, "ping"), { jsonrpc: "2.0", id: 6, result: {} });
    const deleted = await host.close();
    assert.equal(deleted.status, 200);
    assert.equal((await host.post(ping)).status, 404);
    await client.close();
  });

  test("a session is the server's it was opened on: the same id on another server's path is 404", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const other = caller("everything");
    other.session = host.session;
    assert.equal((await other.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
    await client.close();
  });

  test("initialize with the id of another server's session is answered as with no id (the session is not told)", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const other = caller("down");
    other.session = host.session;
    const response = await other.post(initializeMessage());
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 0,
      error: {
        code: -32010,
        message: 'Upstream server "down" is unavailable: connection refused',
        data: { serverId: "down", cause: "connection_refused" },
      },
    });
    assert.deepEqual([response.status, response.headers.get("mcp-session-id")], [200, null]);
    await client.close();
  });

  test("the transport's refusals, with the request's id: Accept without SSE 406, an unknown server 404, a body not JSON 415, an unsupported MCP-Protocol-Version 400, a second initialize 400", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const notAcceptable = await host.post(ping, { accept: "application/json" });
    assert.equal(notAcceptable.status, 406);
    assert.deepEqual(await fittingError(notAcceptable), {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message: "Not Acceptable: the client must accept both application/json and text/event-stream",
      },
    });
    assert.equal((await host.post(ping, { accept: "*/*" })).status, 200);
    // q=0 is "not acceptable" (RFC 9110), also where a wildcard would admit it.
    const refusedSse = await host.post(ping, { accept: "application/json, text/event-stream;q=0, */*" });
    assert.equal(refusedSse.status, 406);
    const unknown = await caller("nope").post(ping);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await fittingError(unknown), {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: 'Unknown server "nope"' },
    });
    const notJson = await host.post(ping, { "content-type": "text/plain" });
    assert.equal(notJson.status, 415);
    const version = await host.post(ping, { "mcp-protocol-version": "1999-01-01" });
    assert.equal(version.status, 400);
    assert.deepEqual(await fittingError(version), {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32022,
        message: 'Bad Request: unsupported MCP-Protocol-Version "1999-01-01"',
        data: { supported: ["2025-11-25", "2025-06-18"], requested: "1999-01-01" },
      },
    });
    const again = await host.post({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "host", version: "1" } },
    });
    assert.equal(again.status, 400);
    assert.deepEqual(await fittingError(again), {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32600, message: "Invalid request: this session is already initialized" },
    });
    await client.close();
  });

  test("a request whose id is readable but whose other parts are not valid is 400 -32600 with that id; one whose id is not readable, without one", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const readable = await host.post({ jsonrpc: "2.0", id: 6, method: "tools/list", params: [] });
    assert.deepEqual([readable.status, await fittingError(readable)], [400, {
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32600, message: "Invalid request: $.params: expected Object, received Array" },
    }]);
    const unreadable = await host.post({ jsonrpc: "2.0", id: 1.5, method: "tools/list" });
    assert.deepEqual([unreadable.status, await unreadable.json()], [400, {
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid request: $.id: expected a safe integer, received 1.5" },
    }]);
    await client.close();
  });

  test("a notification and a response are accepted with 202 and no body; an unknown method is -32601", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const notification = await host.post({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    assert.equal(notification.status, 202);
    assert.equal(await notification.text(), "");
    const stray = await host.post({ jsonrpc: "2.0", id: "sluice-99", result: {} });
    assert.equal(stray.status, 202);
    assert.deepEqual(await host.request(3, "sampling/createMessage"), {
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32601, message: 'Method not found: "sampling/createMessage"' },
    });
    await client.close();
  });

  test("the GET stream needs Accept: text/event-stream (406) and takes one connection at a time (409)", async () => {
    const { client, caller, fetch } = gateway();
    const host = caller("modern");
    await host.initialize();
    const wrong = await fetch(host.url, {
      method: "GET",
      headers: { accept: "application/json", "mcp-session-id": host.session ?? "" },
    });
    assert.equal(wrong.status, 406);
    const zero = await fetch(host.url, {
      method: "GET",
      headers: { accept: "text/event-stream;q=0", "mcp-session-id": host.session ?? "" },
    });
    assert.equal(zero.status, 406);
    const first = await host.listen();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/event-stream");
    const second = await host.listen();
    assert.equal(second.status, 409);
    await first.body?.cancel();
    await client.close();
  });

  test("a GET or DELETE under MCP-Protocol-Version 2026-07-28 is 405, Allow: POST, as that revision's transport says", async () => {
    const { client, fetch } = gateway();
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch("http://gate.test/mcp/modern", {
        method,
        headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" },
      });
      assert.deepEqual([response.status, response.headers.get("allow"), await response.json()], [
        405,
        "POST",
        {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message:
              "Method Not Allowed: MCP-Protocol-Version 2026-07-28 has no GET stream and no session to DELETE; POST each request",
          },
        },
      ], method);
    }
    await client.close();
  });

  test("a progressToken that is neither a string nor an integer is refused -32602, naming what it was; a valid one goes through", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const answers = [];
    for (const [id, progressToken] of [[1, { a: 1 }], [2, true], [3, 1.5], [4, "p-1"]] as const) {
      const answer = await host.request(id, "tools/list", { _meta: { progressToken } });
      answers.push(answer.error ?? "listed");
    }
    const refused = (received: string) => ({
      code: -32602,
      message: `Invalid params: _meta.progressToken: expected a string or an integer, received ${received}`,
    });
    assert.deepEqual(answers, [
      refused("an object"),
      refused("a boolean"),
      refused("a number that is not a safe integer"),
      "listed",
    ]);
    await client.close();
  });

  test("at maxSessions, the longest-unused idle session makes room for a new one", async () => {
    const { client, caller } = gateway({ maxSessions: 2 });
    const [oldest, newer, third] = [caller("modern"), caller("modern"), caller("modern")];
    await oldest.initialize();
    await newer.initialize();
    assert.deepEqual(await newer.request(1, "ping"), { jsonrpc: "2.0", id: 1, result: {} });
    const admitted = await third.initialize();
    assert.equal((admitted.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
    assert.equal((await oldest.post({ jsonrpc: "2.0", id: 2, method: "ping" })).status, 404);
    assert.equal((await newer.post({ jsonrpc: "2.0", id: 2, method: "ping" })).status, 200);
    await client.close();
  });

  test("at maxSessions, a caller's session takes the room of its own idle one, not another caller's, and one holding every session in use gives one up", async () => {
    const { client, as, ping } = principalsGateway(2);
    const [alice, bob1, bob2] = [as("alice"), as("bob"), as("bob")];
    await alice.initialize();
    await bob1.initialize();
    await bob2.initialize();
    // bob's second closed bob's first, not alice's older one.
    assert.deepEqual([await ping(alice), await ping(bob1), await ping(bob2)], [200, 404, 200]);
    // alice leaves; bob holds both sessions, their GET streams open: alice's next takes bob's
    // longest unused, and bob gets none back.
    assert.equal((await alice.close())?.status, 200);
    const bob3 = as("bob");
    await bob3.initialize();
    const streams = [await bob2.listen(), await bob3.listen()];
    const alice2 = as("alice");
    const admitted = await alice2.initialize();
    const refused = await as("bob").initialize();
    assert.deepEqual(
      [
        (admitted.result as { protocolVersion: string }).protocolVersion,
        (refused.error as { code?: number })?.code,
      ],
      ["2025-11-25", -32000],
    );
    assert.deepEqual([await ping(bob2), await ping(bob3), await ping(alice2)], [404, 200, 200]);
    for (const stream of streams) await stream.body?.cancel();
    await client.close();
  });

  test("at maxSessions, a new caller takes another caller's idle session, and at maxSessions 1 never a connected one's", async () => {
    const two = principalsGateway(2);
    const [alice, bob, carol] = [two.as("alice"), two.as("bob"), two.as("carol")];
    await alice.initialize();
    await bob.initialize();
    const admitted = await carol.initialize();
    assert.deepEqual(
      [
        (admitted.result as { protocolVersion: string }).protocolVersion,
        await two.ping(alice),
        await two.ping(bob),
      ],
      ["2025-11-25", 404, 200],
    );
    await two.client.close();
    const one = principalsGateway(1);
    const [connected, other] = [one.as("alice"), one.as("bob")];
    await connected.initialize();
    const stream = await connected.listen();
    const refused = await other.initialize();
    assert.deepEqual([(refused.error as { code?: number })?.code, await one.ping(connected)], [-32000, 200]);
    await stream.body?.cancel();
    await one.client.close();
  });

  test("at maxSessions with every session in use, initialize is refused 503 until one ends", async () => {
    const { client, caller } = gateway({ maxSessions: 2 });
    const hosts = [caller("modern"), caller("modern")];
    const streams: Response[] = [];
    for (const host of hosts) {
      await host.initialize();
      streams.push(await host.listen());
    }
    const third = caller("modern");
    const refused = await third.initialize();
    assert.deepEqual(refused, {
      jsonrpc: "2.0",
      id: 0,
      error: {
        code: -32000,
        message:
          'Too many sessions: all sessions of server "modern" are in use (maxSessions 2 in its policy); try again later',
      },
    });
    assert.equal(third.session, undefined);
    assert.equal((await hosts[0]?.close())?.status, 200);
    const admitted = await third.initialize();
    assert.equal((admitted.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
    for (const stream of streams) await stream.body?.cancel();
    await client.close();
  });

  test("at maxSessions, a session still starting is in use: initialize is refused 503 and the starting one stays", async () => {
    // The first session's server/discover is held upstream until the second initialize is answered.
    const discovering = gate();
    const released = gate();
    let held = false;
    const upstreamFetch: Fetch = async (url, init) => {
      if (!held && String(init.body).includes('"server/discover"')) {
        held = true;
        discovering.open();
        await released.opened;
      }
      return await globalThis.fetch(url, init);
    };
    const { client, caller } = gateway({ maxSessions: 1 }, upstreamFetch);
    const [starting, second] = [caller("modern"), caller("modern")];
    const started = starting.initialize();
    await discovering.opened;
    const refused = await second.initialize();
    released.open();
    await started;
    assert.deepEqual(
      [refused, second.session, await starting.request(1, "ping")],
      [
        {
          jsonrpc: "2.0",
          id: 0,
          error: {
            code: -32000,
            message:
              'Too many sessions: all sessions of server "modern" are in use (maxSessions 1 in its policy); try again later',
          },
        },
        undefined,
        { jsonrpc: "2.0", id: 1, result: {} },
      ],
    );
    await client.close();
  });

  test("a session counts as used when its slow start ends: at the cap, the one used longest ago makes room", async () => {
    // B's server/discover is held while A is used; the clock ticks between the steps.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const discovering = gate();
    const released = gate();
    let discovers = 0;
    const upstreamFetch: Fetch = async (url, init) => {
      if (String(init.body).includes('"server/discover"') && ++discovers === 2) {
        discovering.open();
        await released.opened;
      }
      return await globalThis.fetch(url, init);
    };
    const { client, fetch, caller } = gateway({ maxSessions: 2 }, upstreamFetch);
    const [a, b, c] = [caller("modern"), caller("modern"), caller("modern")];
    await a.initialize();
    await tick();
    // B sends no notifications/initialized (a host need not), so only its start's end marks it used.
    const startingB = fetch(b.url, {
      method: "POST",
      headers: legacyHeaders(),
      body: JSON.stringify(initializeMessage(b.version, {})),
    }).then((response) => b.session = response.headers.get("mcp-session-id") ?? undefined);
    await discovering.opened;
    await tick();
    await a.request(1, "ping");
    await tick();
    released.open();
    await startingB;
    await tick();
    await c.initialize();
    assert.deepEqual(
      [await a.request(2, "ping"), await b.request(3, "ping"), typeof c.session],
      [
        {
          jsonrpc: "2.0",
          id: 2,
          error: { code: -32001, message: "Session not found: initialize a new session" },
        },
        { jsonrpc: "2.0", id: 3, result: {} },
        "string",
      ],
    );
    await client.close();
  });

  test("initialize to an upstream that refuses connections names the cause, and opens no session", async () => {
    const { client, caller } = gateway();
    const host = caller("down");
    const body = await host.initialize();
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: 0,
      error: {
        code: -32010,
        message: 'Upstream server "down" is unavailable: connection refused',
        data: { serverId: "down", cause: "connection_refused" },
      },
    });
    assert.equal(host.session, undefined);
    await client.close();
  });
});

describe("the front's legacy face: calls to a modern upstream", () => {
  test("a call that asks nothing is answered with JSON, in the legacy shape (no resultType)", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const body = await host.request(1, "tools/call", { name: "add", arguments: { a: 2, b: 40 } });
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: 1,
      result: {
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
        content: [{ type: "text", text: "42" }],
      },
    });
    const tools = await host.request(2, "tools/list");
    const result = tools.result as Record<string, unknown>;
    assert.equal(result.resultType, undefined);
    assert.equal(result.ttlMs, undefined);
    assert.equal(result.cacheScope, undefined);
    await client.close();
  });

  test("a form passed down reaches the caller as elicitation/create on the call's stream; its answer goes upstream", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const response = await host.post({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "ask_form" },
    });
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = new EventReader(response);
    const priming = await events.next();
    assert.deepEqual(priming, { id: "1_0", event: undefined, data: "" });
    const asked = await events.message();
    assert.equal(asked?.method, "elicitation/create");
    assert.equal(asked?.id, "sluice-1");
    assert.equal((asked?.params as { message: string }).message, "Tell us about you");
    const answered = await host.post({
      jsonrpc: "2.0",
      id: "sluice-1",
      result: { action: "accept", content: { name: "Ada", age: 36 } },
    });
    assert.equal(answered.status, 202);
    const final = await events.message();
    assert.deepEqual(final, {
      jsonrpc: "2.0",
      id: 7,
      result: {
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
        // The form's default for "subscribe" is filled in by the post-checks.
        content: [{ type: "text", text: '{"name":"Ada","age":36,"subscribe":false}' }],
      },
    });
    assert.equal(await events.next(), undefined);
    await client.close();
  });

  test("the caller's answer is post-checked like a handler's: a field not in the form fails the call, and the request's second decision event says so", async () => {
    const { client, caller } = gateway();
    const decisions: Decision[] = [];
    client.onDecision((event) => void decisions.push(event));
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    await host.post({
      jsonrpc: "2.0",
      id: asked?.id,
      result: { action: "accept", content: { name: "Ada", city: "Paris" } },
    });
    assert.deepEqual(await events.message(), {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32603,
        message:
          'Input request "profile" (elicitation/create) from server "modern" refused by policy: Elicitation answer refused: field "city" is not in the form, expected only its fields',
      },
    });
    await client.close();
    // The deferral refuses nothing; the answer's check gives the second event (times vary).
    const form = {
      type: "input",
      client: "gate",
      server: "modern",
      era: "modern",
      method: "elicitation/create",
      mode: "form",
      changes: [],
    };
    assert.deepEqual(
      decisions.filter((event) => event.type === "input").map(({ time: _t, durationMs: _d, ...event }) => {
        const { handlerMs, ...rest } = event as typeof event & { handlerMs?: number };
        return { ...rest, timed: typeof handlerMs === "number" };
      }),
      [
        { ...form, outcome: "deferred", timed: true },
        {
          ...form,
          outcome: "policy",
          refusal: {
            code: -32603,
            message: 'Elicitation answer refused: field "city" is not in the form, expected only its fields',
          },
          timed: true,
        },
      ],
    );
  });

  test("an answer that is no JSON-RPC response is refused 400, and the request it answers is refused at once, not at its deadline", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    const garbled = await host.post({ jsonrpc: "2.0", id: asked?.id, result: "yes" });
    assert.deepEqual([garbled.status, await garbled.json()], [400, {
      jsonrpc: "2.0",
      error: { code: -32600, message: 'Invalid request: $.result: expected Object, received "yes"' },
    }]);
    // The policy's handlerTimeout for a form is 5 minutes: the call ends now, with why.
    assert.deepEqual(await events.message(), {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32603,
        message:
          'Input request "profile" (elicitation/create) from server "modern" failed in the handler: The caller\'s answer is no JSON-RPC response: $.result: expected Object, received "yes"',
      },
    });
    await client.close();
  });

  test("sampling is clamped before it reaches the caller; a URL elicitation gets an elicitationId in 2025-11-25", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const sampling = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask_sampling" } }),
    );
    const asked = await sampling.message();
    assert.equal((asked?.params as { maxTokens: number }).maxTokens, 4096);
    await host.post({
      jsonrpc: "2.0",
      id: asked?.id,
      result: { role: "assistant", content: { type: "text", text: "ok" }, model: "m" },
    });
    assert.deepEqual((await sampling.message())?.result, {
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
      content: [{ type: "text", text: "ok" }],
    });
    const url = new EventReader(
      await host.post({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "ask_url", arguments: { url: "https://example.com/consent" } },
      }),
    );
    const visit = (await url.message())?.params as Record<string, unknown>;
    assert.equal(visit.mode, "url");
    assert.equal(visit.url, "https://example.com/consent");
    assert.match(String(visit.elicitationId), /^[A-Za-z0-9_-]{16}$/);
    await url.drop();
    await client.close();
  });

  test("a 2025-06-18 host gets forms without mode, which its version does not have; one with a list field is refused upstream -32602", async () => {
    const { client, caller } = gateway();
    const host = caller("modern", "2025-06-18");
    await host.initialize({ elicitation: {} });
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    const params = asked?.params as Record<string, unknown>;
    assert.deepEqual([asked?.method, "mode" in params, params.message], [
      "elicitation/create",
      false,
      "Tell us about you",
    ]);
    await events.drop();
    const everything = caller("everything", "2025-06-18");
    await everything.initialize({ elicitation: {} });
    const answer = await everything.request(8, "tools/call", { name: "trigger-elicitation-request" });
    const text = (answer.result as { content: { text: string }[] }).content.map((part) => part.text).join(
      "\n",
    );
    assert.match(
      text,
      /the caller speaks 2025-06-18, whose forms have only primitive fields, and field "untitledMultipleSelectEnum" is a list/,
    );
    await client.close();
  });

  test("a legacy upstream's -32042 reaches a 2025-11-25 host that declared URL elicitation as elicitation/create on the call's stream; accepted, the call goes on", async () => {
    const { client, caller } = gateway();
    const host = caller("everything");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(await host.post(URL_REQUIRED_CALL));
    // server-everything's -32042 names its own page; the retry then asks for the tool's URL.
    const asked: unknown[] = [];
    let message = await events.message();
    while (message?.method === "elicitation/create") {
      const params = message.params as Record<string, unknown>;
      asked.push([params.mode, params.url]);
      await host.post({ jsonrpc: "2.0", id: message.id, result: { action: "accept" } });
      message = await events.message();
    }
    assert.deepEqual(asked, [["url", "https://modelcontextprotocol.io/"], [
      "url",
      "https://login.example.com/y",
    ]]);
    assert.equal(message?.id, 4);
    const text = (message?.result as { content: { text: string }[] }).content.map((part) => part.text).join(
      "\n",
    );
    assert.match(text, /Elicitation ID: e-1/);
    await client.close();
  });

  test("a legacy upstream's -32042 whose URL the 2025-11-25 host declines fails the call -32603, saying so: no -32042 without the elicitations it must carry", async () => {
    const { client, caller } = gateway();
    const host = caller("everything");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(await host.post(URL_REQUIRED_CALL));
    const asked = await events.message();
    assert.equal(asked?.method, "elicitation/create");
    await host.post({ jsonrpc: "2.0", id: asked?.id, result: { action: "decline" } });
    assert.deepEqual(await events.message(), {
      jsonrpc: "2.0",
      id: 4,
      error: {
        code: -32603,
        message: 'Server "everything" requires a URL elicitation first, and the user answered "decline"',
      },
    });
    await client.close();
  });

  test("what a caller did not declare is not declared upstream: the server's own -32021 reaches it", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize({ elicitation: {} });
    const body = await host.request(1, "tools/call", { name: "ask_roots" });
    assert.equal((body.error as { code: number }).code, -32021);
    assert.deepEqual((body.error as { data: unknown }).data, { requiredCapabilities: { roots: {} } });
    await client.close();
  });

  test("a broken connection cancels nothing: the caller resumes with Last-Event-ID and gets the rest", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "ask_form" } }),
    );
    const priming = await events.next();
    await events.drop();
    const resumed = new EventReader(await host.listen(priming?.id));
    const asked = await resumed.message();
    assert.equal(asked?.method, "elicitation/create");
    await host.post({ jsonrpc: "2.0", id: asked?.id, result: { action: "decline" } });
    const final = await resumed.message();
    assert.deepEqual((final?.result as { content: unknown }).content, [
      { type: "text", text: '{"action":"decline"}' },
    ]);
    assert.equal(await resumed.next(), undefined);
    await client.close();
  });

  test("progress reaches the caller under its own token", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    const events = new EventReader(
      await host.post({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "progress_twice", _meta: { progressToken: "host-token" } },
      }),
    );
    assert.deepEqual(await events.rest(), [
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "host-token", progress: 1, total: 2 },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "host-token", progress: 2, total: 2 },
      },
      {
        jsonrpc: "2.0",
        id: 4,
        result: {
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
          content: [{ type: "text", text: "progressed twice" }],
        },
      },
    ]);
    await client.close();
  });

  test("notifications/cancelled from the caller cancels the call, and the request sent down is cancelled too", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    const cancelled = await host.post({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 11, reason: "user stopped" },
    });
    assert.equal(cancelled.status, 202);
    assert.deepEqual(await events.rest(), [{
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: asked?.id, reason: "cancelled" },
    }]);
    await client.close();
  });

  test("a list the caller cancels gets no response: its POST is an SSE stream of no event, and the upstream request is aborted", async () => {
    const { upstreamFetch, reached, aborted } = holdingUpstream('"resources/list"');
    const { client, caller } = gateway({}, upstreamFetch);
    const host = caller("modern");
    await host.initialize();
    const pending = host.post({ jsonrpc: "2.0", id: 31, method: "resources/list" });
    await reached;
    await host.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 31 } });
    const response = await pending;
    assert.deepEqual(
      [response.status, Object.fromEntries(response.headers), await response.text(), aborted()],
      [200, UNANSWERED_HEADERS, "", true],
    );
    assert.deepEqual(await host.request(32, "ping"), { jsonrpc: "2.0", id: 32, result: {} });
    await client.close();
  });

  test("a request whose id a new request reuses gets no response (it would carry the new one's id); the new one is answered", async () => {
    const { upstreamFetch, reached, aborted } = holdingUpstream('"resources/list"');
    const { client, caller } = gateway({}, upstreamFetch);
    const host = caller("modern");
    await host.initialize();
    const first = host.post({ jsonrpc: "2.0", id: 41, method: "resources/list" });
    await reached;
    const second = await host.request(41, "tools/call", { name: "add", arguments: { a: 2, b: 40 } });
    const response = await first;
    assert.deepEqual(
      [response.status, Object.fromEntries(response.headers), await response.text(), aborted(), second],
      [200, UNANSWERED_HEADERS, "", true, {
        jsonrpc: "2.0",
        id: 41,
        result: {
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
          content: [{ type: "text", text: "42" }],
        },
      }],
    );
    await client.close();
  });

  test("a call past maxTotalTimeout after it streamed is told so on its stream: the request sent down is cancelled, then -32010", async () => {
    const { client, caller } = gateway({ maxTotalTimeout: "1s" });
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    assert.deepEqual(await events.rest(), [
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: asked?.id, reason: "cancelled" },
      },
      {
        jsonrpc: "2.0",
        id: 12,
        error: {
          code: -32010,
          message: 'Upstream server "modern" is unavailable: timed out',
          data: { serverId: "modern", cause: "timed_out" },
        },
      },
    ]);
    await client.close();
  });

  test("a tool the modern server runs only as a task is awaited within the call: its form reaches the caller on the call's stream, and the result comes as the call's", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({
        jsonrpc: "2.0",
        id: 14,
        method: "tools/call",
        params: { name: "slow_task", arguments: { workMs: 0 } },
      }),
    );
    const asked = await events.message();
    assert.equal(asked?.method, "elicitation/create");
    const answered = await host.post({
      jsonrpc: "2.0",
      id: asked?.id,
      result: { action: "accept", content: { confirm: true } },
    });
    assert.equal(answered.status, 202);
    assert.deepEqual(await events.rest(), [{
      jsonrpc: "2.0",
      id: 14,
      result: { content: [{ type: "text", text: '{"confirm":true}' }], isError: false },
    }]);
    await client.close();
  });

  test("a form the caller leaves unanswered past handlerTimeout fails the call -32603 naming the request, not as the upstream being unavailable", async () => {
    const { client, caller } = gateway({ handlerTimeout: { elicitation: "300ms" } });
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 13, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    assert.deepEqual(await events.rest(), [
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: asked?.id, reason: "timed out" },
      },
      {
        jsonrpc: "2.0",
        id: 13,
        error: {
          code: -32603,
          message:
            'Input request "profile" (elicitation/create) from server "modern": Handler timed out after 300ms (handlerTimeout.elicitation)',
        },
      },
    ]);
    await client.close();
  });

  test("DELETE with a call in flight ends the call as any failure: the request sent down is cancelled, then the call's error, on its stream", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize(CAPABILITIES);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 15, method: "tools/call", params: { name: "ask_form" } }),
    );
    const asked = await events.message();
    assert.equal((await host.close()).status, 200);
    assert.deepEqual(await events.rest(), [
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: asked?.id, reason: "cancelled" },
      },
      { jsonrpc: "2.0", id: 15, error: { code: -32603, message: "The call was cancelled" } },
    ]);
    await client.close();
  });

  test("logging/setLevel takes one of the eight levels; anything else is -32602", async () => {
    const { client, caller } = gateway();
    const host = caller("modern");
    await host.initialize();
    assert.deepEqual(await host.request(1, "logging/setLevel", { level: "error" }), {
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    assert.deepEqual(await host.request(2, "logging/setLevel", { level: "loud" }), {
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32602,
        message:
          'Invalid params: "level" must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"',
      },
    });
    await client.close();
  });
});

describe("the front's legacy face: a legacy upstream, one session per caller", () => {
  test("each caller gets its own upstream session: its roots, asked on its own stream, stay its own", async () => {
    const { client, caller } = gateway();
    const alice = caller("everything");
    const bob = caller("everything");
    await alice.initialize(CAPABILITIES);
    await bob.initialize(CAPABILITIES);
    const rootsOf = async (host: LegacyCaller, uri: string) => {
      const events = new EventReader(
        await host.post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get-roots-list" } }),
      );
      // server-everything also asks for roots on its own shortly after the handshake; on stdio that
      // request is tied to the call in flight, so under load it may come on this stream first.
      // Every roots/list on the stream is answered; the tool's answer ends the stream.
      let asked = 0;
      for (let message = await events.message(); message !== undefined; message = await events.message()) {
        if (message.method === "roots/list") {
          asked++;
          await host.post({ jsonrpc: "2.0", id: message.id, result: { roots: [{ uri, name: "mine" }] } });
        } else if (message.id === 1) {
          assert.ok(asked >= 1, "the tool asked for roots on the call's stream");
          return ((message.result as { content: { text: string }[] }).content[0]?.text ?? "").split("\n")[3];
        }
      }
      throw new Error("the call's stream ended without its response");
    };
    assert.equal(await rootsOf(alice, "file:///srv/alice"), "   URI: file:///srv/alice");
    assert.equal(await rootsOf(bob, "file:///srv/bob"), "   URI: file:///srv/bob");
    await client.close();
  });

  test("a request tied to no call (server-everything's roots/list at start-up) waits for the caller's notifications/initialized", async () => {
    const { client, caller } = gateway();
    const host = caller("everything");
    await host.initialize(CAPABILITIES, false);
    const events = new EventReader(await host.listen());
    assert.deepEqual(await events.next(), { id: "0_0", event: undefined, data: "" });
    // No request for a second while the caller has not said it is initialized (notifications may come).
    const quiet = Date.now() + 1000;
    let next = events.message();
    for (;;) {
      const early = await Promise.race([
        next,
        new Promise((resolve) => setTimeout(resolve, quiet - Date.now())),
      ]);
      if (early === undefined) break;
      assert.equal((early as { id?: unknown }).id, undefined, JSON.stringify(early));
      next = events.message();
    }
    await host.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    let asked = await next;
    while (asked?.id === undefined && asked !== undefined) asked = await events.message();
    assert.deepEqual([asked?.method, asked?.id], ["roots/list", "sluice-1"]);
    await events.drop();
    await client.close();
  });

  test("a call cancelled before anything was streamed gets no response: its POST is an SSE stream of no event, and the session goes on", async () => {
    const { client, caller } = gateway();
    const host = caller("everything");
    await host.initialize({});
    const started = performance.now();
    const pending = host.post({
      jsonrpc: "2.0",
      id: 21,
      method: "tools/call",
      params: { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 2 } },
    });
    await host.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 21 } });
    const response = await pending;
    assert.deepEqual(
      [response.status, Object.fromEntries(response.headers), await response.text()],
      [200, UNANSWERED_HEADERS, ""],
    );
    assert.ok(performance.now() - started < 10_000, "the cancelled call ended long before its 30 s");
    assert.deepEqual(
      await host.request(22, "tools/call", { name: "echo", arguments: { message: "still here" } }),
      {
        jsonrpc: "2.0",
        id: 22,
        result: { content: [{ type: "text", text: "Echo: still here" }] },
      },
    );
    await client.close();
  });

  test("a server's task-augmented sampling request reaches a host that hosts tasks without its task, and the host's answer goes upstream as the result", async () => {
    const { client, caller } = gateway();
    const host = caller("hostile");
    await host.initialize({ sampling: {}, tasks: { requests: { sampling: { createMessage: {} } } } });
    const messages = [{ role: "user", content: { type: "text", text: "Summarise" } }];
    const call = new EventReader(
      await host.post({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: {
          name: "flood",
          arguments: {
            method: "sampling/createMessage",
            params: { messages, maxTokens: 5, task: { ttl: 60_000 } },
          },
        },
      }),
    );
    const asked = await call.message();
    const sent = {
      jsonrpc: "2.0",
      id: "sluice-1",
      method: "sampling/createMessage",
      params: { messages, maxTokens: 5 },
    };
    assert.deepEqual(asked, sent);
    assert.deepEqual(schemaErrors("2025-11-25", "CreateMessageRequest", asked), []);
    await host.post({
      jsonrpc: "2.0",
      id: "sluice-1",
      result: { role: "assistant", content: { type: "text", text: "ok" }, model: "m" },
    });
    assert.deepEqual((await call.message())?.result, {
      content: [{ type: "text", text: "done" }],
      structuredContent: { tally: { result: 1 } },
    });
    await client.close();
  });

  test("roots are declared upstream with listChanged only when the host declared it: it tells the changes, the gateway cannot", async () => {
    const { client, caller } = gateway();
    const declared = async (roots: object) => {
      const host = caller("hostile");
      await host.initialize({ roots });
      const response = await host.request(1, "tools/call", { name: "capabilities" });
      return (response.result as { structuredContent: unknown }).structuredContent;
    };
    assert.deepEqual(
      [await declared({}), await declared({ listChanged: false }), await declared({ listChanged: true })],
      [
        { declared: { roots: {} } },
        { declared: { roots: {} } },
        { declared: { roots: { listChanged: true } } },
      ],
    );
    await client.close();
  });

  test("a host's notifications/roots/list_changed reaches the server only when the host declared listChanged, as the gateway did", async () => {
    const { client, caller } = gateway();
    const told = async (roots: object) => {
      const host = caller("hostile");
      await host.initialize({ roots });
      await host.post({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
      const response = await host.request(1, "tools/call", { name: "received" });
      return (response.result as { structuredContent: { notifications: string[] } }).structuredContent
        .notifications;
    };
    assert.deepEqual([await told({}), await told({ listChanged: true })], [
      ["notifications/initialized"],
      ["notifications/initialized", "notifications/roots/list_changed"],
    ]);
    await client.close();
  });

  test("tools/list shows every tool the caller's capabilities unlock (server-everything: 16 with roots)", async () => {
    const { client, caller } = gateway();
    const host = caller("everything");
    await host.initialize(CAPABILITIES);
    const names = ((await host.request(1, "tools/list")).result as { tools: { name: string }[] }).tools.map((
      t,
    ) => t.name);
    for (const name of ["get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"]) {
      assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
    }
    const plain = caller("everything");
    await plain.initialize({});
    const plainNames = ((await plain.request(1, "tools/list")).result as { tools: { name: string }[] }).tools
      .map((t) => t.name);
    assert.equal(plainNames.includes("trigger-elicitation-request"), false);
    await client.close();
  });
});
