/**
 * The cases every self-hosted entry (`@sluice/mcp/node`, `/deno`, `/bun`) must pass, registered
 * once per runtime by its test file: serving over real HTTP to the modern peer, closing, and the
 * settings read from options and the environment. Also the fixtures those files share.
 *
 * @module
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { Buffer } from "node:buffer";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { type Gateway, GATEWAY_OPTION_KEYS, type GatewayOptions } from "../../src/adapters/gateway.ts";
import type { RunningGateway, ServeOptions } from "../../src/adapters/serve-options.ts";
import { createClient } from "../../src/client/create-client.ts";
import type { ModernPeer } from "../_support/modern-peer.ts";
import { toolCallHeaders } from "../_support/downstream.ts";
import { type HostilePeer, startHostilePeer } from "../hardening/_hostile-peer.ts";
import { eventually, readUpTo, within } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";
import {
  type Answer,
  answerOf,
  hostRefusal,
  loopbackHostRefused,
  modernRequest,
  peerRefused,
} from "../_support/gateway-caller.ts";
import { EventReader, LegacyCaller } from "../_support/legacy-caller.ts";
import { PROFILE_SCHEMA } from "../_support/profile-form.ts";

/** The runtimes with a self-hosted entry, as named in test names. */
export type Runtime = "Node" | "Deno" | "Bun";

/** What an entry exports: `serve()` and `createGateway()`. */
export interface Entry {
  readonly serve: (options: ServeOptions) => Promise<RunningGateway>;
  readonly createGateway: (options: GatewayOptions) => Gateway;
}

/** The state key the entry tests pass, or set in `SLUICE_STATE_KEY`. */
export const KEY = "entry-test-state-key-0123456789abcdef";

/**
 * The whole message of the TypeError thrown when no state key is given nor set: the same on every
 * entry (the Workers entry answers it with a 500, tests/runtime/workers-entry.test.ts).
 */
export const NO_KEY =
  'sluice: "SLUICE_STATE_KEY" is not set: expected at least 32 bytes of random data, the same on every instance, make one with `openssl rand -base64 32`';

/** The gateway's whole answer to `callTool(url, "modern", "add", { a: 2, b: 3 })`. */
export const ADD_ANSWER: { readonly status: number; readonly body: unknown } = {
  status: 200,
  body: {
    jsonrpc: "2.0",
    id: 1,
    result: {
      content: [{ type: "text", text: "5" }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
    },
  },
};

export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/**
 * Sends a `tools/call` as a modern client sends it, straight to the gateway at `url`.
 *
 * @returns The HTTP status and the parsed body.
 */
export async function callTool(
  url: string,
  call: { server: string; name: string; arguments: Record<string, unknown> },
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/mcp/${call.server}`, {
    method: "POST",
    headers: toolCallHeaders(call.name),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: call.name, arguments: call.arguments, _meta: META },
    }),
  });
  return { status: response.status, body: await response.json() as unknown };
}

/** Serves a gateway (with `options`) in front of a hostile peer of its own for `body`, then stops both. */
async function withHostileRelay(
  serve: Entry["serve"],
  body: (relay: RunningGateway, hostile: HostilePeer) => Promise<void>,
  options: Partial<ServeOptions> = {},
  era: "modern" | "legacy" = "modern",
): Promise<void> {
  const hostile = await startHostilePeer();
  try {
    const policy = { server: "hostile", transport: { url: `${hostile.origin}/${era}` }, era };
    const relay = await serve({ port: 0, stateKey: KEY, policies: [policy], ...options });
    try {
      await body(relay, hostile);
    } finally {
      await relay.close();
    }
  } finally {
    await hostile.stop();
  }
}

/**
 * A modern caller's `tools/call` of the hostile peer's `tool` through the gateway at `base` (which
 * serves the peer as `hostile`), accepting SSE.
 */
export function hostileCall(base: string, tool: string, meta: Record<string, unknown> = META): Request {
  return modernRequest(`${base}/mcp/hostile`, "tools/call", {
    name: tool,
    arguments: {},
    _meta: meta,
  }, { accept: "application/json, text/event-stream" });
}

/**
 * Sends `request` over a connection of its own and returns the connection: destroying it is the
 * caller hanging up. `Deno.serve` (2.9.6) hears a caller leave before its answer starts only for
 * a request whose body came with its head and is a few hundred bytes at most (the README says what
 * that means on Deno): so head and body go in one write, or with `apart` in two, the body once
 * the head has been written and 50 ms have passed.
 */
export async function sendRaw(request: Request, apart = false): Promise<Socket> {
  const { host, pathname, port } = new URL(request.url);
  const body = await request.text();
  const head = [`POST ${pathname} HTTP/1.1`, `host: ${host}`, `content-length: ${Buffer.byteLength(body)}`];
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
  const socket = connect(Number(port), "127.0.0.1");
  await once(socket, "connect");
  const headText = `${head.join("\r\n")}\r\n\r\n`;
  if (!apart) {
    socket.write(headText + body);
    return socket;
  }
  await new Promise((written) => socket.write(headText, written));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(body);
  return socket;
}

/** Runs `body` with the environment variables set (`undefined`: unset), then restores them. */
export async function withEnvironment<T>(
  values: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (from: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(from)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  try {
    return await body();
  } finally {
    apply(saved);
  }
}

/**
 * Registers the shared cases for `runtime`'s entry: suites `serve() on <runtime>`,
 * `closing a <runtime> gateway`, `<runtime> gateway settings` and `<runtime> gateway for this
 * machine only`.
 *
 * @param runtime The runtime, named in every suite.
 * @param entry The entry's `serve` and `createGateway`.
 * @param options `peer`: the running modern peer (started by the caller's `before`);
 *   `bindingsFrom`: this runtime's bindings for a request from an address.
 */
export function describeEntry(
  runtime: Runtime,
  entry: Entry,
  options: { peer: () => ModernPeer; bindingsFrom: BindingsFrom },
): void {
  const modern = () => ({ server: "modern", transport: { url: options.peer().url }, era: "modern" as const });
  describeServing(runtime, entry, modern);
  describeClosing(runtime, entry, modern);
  describeSettings(runtime, entry, modern);
  describePeers(runtime, entry, modern, options.bindingsFrom);
}

/**
 * The bindings this runtime's server hands a gateway's `fetch` with a request that came from
 * `address` (Deno's handler info, Bun's server, `@hono/node-server`'s Node objects), as far as
 * the entry reads them.
 */
export type BindingsFrom = (address: string) => unknown;

/** The policy of the modern peer, built once the peer runs. */
type ModernPolicy = () => { server: string; transport: { url: string }; era: "modern" };

function describeServing(runtime: Runtime, { serve }: Entry, modern: ModernPolicy): void {
  describe(`serve() on ${runtime}`, () => {
    let gateway: RunningGateway;
    before(async () => {
      gateway = await serve({ port: 0, stateKey: KEY, policies: [modern()] });
    });
    after(async () => {
      await gateway?.close();
    });

    test("serve() listens on 127.0.0.1 with a real port and answers /healthz and /servers", async () => {
      assert.match(gateway.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const health = await fetch(`${gateway.url}/healthz`);
      assert.deepEqual([health.status, await health.text()], [200, '{"ok":true}']);
      const servers = await (await fetch(`${gateway.url}/servers`)).json() as {
        servers: { id: string; era: string; transport: string }[];
      };
      assert.deepEqual(servers.servers.map((s) => [s.id, s.era, s.transport]), [[
        "modern",
        "modern",
        "http",
      ]]);
    });

    test("serve() answers /healthz to an HTTP/1.0 request that names no Host, as a health checker sends it", async () => {
      // HAProxy's httpchk does by default; Bun gave such a request a relative URL.
      const socket = connect(Number(new URL(gateway.url).port), "127.0.0.1");
      await once(socket, "connect");
      socket.write("GET /healthz HTTP/1.0\r\n\r\n");
      let text = "";
      socket.on("data", (chunk) => text += String(chunk));
      await once(socket, "close");
      const [head = "", body] = text.split("\r\n\r\n");
      assert.deepEqual([head.split(" ")[1], body], ["200", '{"ok":true}']);
    });

    test("serve() answers an absolute request target of another host than its Host header as that Host's, or refuses it: never as the target's", async () => {
      // Node and Deno take the target's host for the URL (RFC 9112), which the guard checks too;
      // Bun builds the URL from the Host header, so the request is the Host's, as if the target were
      // in origin form.
      const socket = connect(Number(new URL(gateway.url).port), "127.0.0.1");
      await once(socket, "connect");
      socket.write(
        "GET http://victim.example.com/servers HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n",
      );
      let text = "";
      socket.on("data", (chunk) => text += String(chunk));
      await once(socket, "close");
      const [head = "", body] = text.split("\r\n\r\n");
      const status = head.split(" ")[1];
      assert.deepEqual(
        status === "200" ? [status, runtime] : [status, JSON.parse(body ?? "null")],
        runtime === "Bun" ? ["200", "Bun"] : [
          "403",
          {
            jsonrpc: "2.0",
            error: {
              code: -32000,
              message:
                'Forbidden: the request\'s URL host "victim.example.com" is not served here: expected a loopback name (localhost, 127.0.0.1, [::1]) or one in "allowedHosts"',
            },
          },
        ],
      );
    });

    test("serve() passes a raw modern tools/call of add to the modern peer and answers its result", async () => {
      const call = { server: "modern", name: "add", arguments: { a: 2, b: 3 } };
      assert.deepEqual(await callTool(gateway.url, call), ADD_ANSWER);
    });

    test("a caller that goes away mid-call ends the upstream request at once", async () => {
      await withHostileRelay(serve, async (relay, hostile) => {
        const caller = await sendRaw(hostileCall(relay.url, "keepalive"));
        // The upstream answers with an SSE stream of comments that never ends.
        await hostile.waitFor("modern tools/call keepalive");
        caller.destroy();
        // Left to itself the upstream request would last callTimeout, 60 s.
        await within(
          "the upstream request's end",
          hostile.waitFor("keepalive: closed by the client"),
          10_000,
        );
      });
    });

    for (const era of ["modern", "legacy"] as const) {
      test(`a caller that goes away mid-call, its body sent apart from its head, ends the ${era} upstream request (on Deno, at the first beat)`, async () => {
        await withHostileRelay(
          serve,
          async (relay, hostile) => {
            // Sent so, Deno.serve does not tell the gateway that the caller left before the answer
            // started: the next beat's write does.
            const caller = await sendRaw(hostileCall(relay.url, "keepalive"), true);
            await hostile.waitFor(`${era} tools/call keepalive`);
            caller.destroy();
            // Left to itself the upstream request would last callTimeout, 60 s.
            await within(
              "the upstream request's end",
              hostile.waitFor("keepalive: closed by the client"),
              10_000,
            );
          },
          { heartbeat: "200ms" },
          era,
        );
      });
    }

    test("a caller that closes its stream mid-call ends the upstream request at once", async () => {
      await withHostileRelay(serve, async (relay, hostile) => {
        const response = await fetch(
          hostileCall(relay.url, "progress-forever", { ...META, progressToken: "p" }),
        );
        assert.deepEqual([response.status, response.headers.get("content-type")], [200, "text/event-stream"]);
        const events = new EventReader(response);
        assert.deepEqual(await events.message(), {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "p", progress: 1 },
        });
        await events.drop();
        // Left to itself the upstream request would last callTimeout, 60 s.
        await within(
          "the upstream request's end",
          hostile.waitFor("progress-forever: closed by the client"),
          10_000,
        );
      });
    });

    test("serve() answers sluice's own client calling add through /mcp/modern", async () => {
      const downstream = createClient({
        name: "host",
        policies: [{ server: "gate", transport: { url: `${gateway.url}/mcp/modern` }, era: "modern" }],
      });
      try {
        const result = await downstream.callTool("gate", "add", { a: 40, b: 2 }) as { content: unknown };
        assert.deepEqual(result.content, [{ type: "text", text: "42" }]);
      } finally {
        await downstream.close();
      }
    });
  });
}

/** What a 2025 caller gets for call `id` of a modern peer's tool whose result is the text `text`. */
function legacyPeerAnswer(id: number, text: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      content: [{ type: "text", text }],
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
    },
  };
}

function describeClosing(runtime: Runtime, { serve }: Entry, modern: ModernPolicy): void {
  describe(`closing a ${runtime} gateway`, () => {
    test("close() stops listening, so a fetch to the port rejects, and a second close() resolves", async () => {
      const gateway = await serve({ port: 0, stateKey: KEY, policies: [modern()] });
      try {
        assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
      } finally {
        await gateway.close();
      }
      await assert.rejects(fetch(`${gateway.url}/healthz`), TypeError);
      await gateway.close();
    });

    test("close() ends a legacy caller's GET stream cleanly, lets the call in flight answer, then stops listening", async () => {
      const asked = gate();
      const released = gate();
      const gateway = await serve({
        port: 0,
        stateKey: KEY,
        policies: [modern()],
        handler: {
          elicitation: async () => {
            asked.open();
            await released.opened;
            return { action: "decline" };
          },
        },
      });
      let closed = false;
      let stream: ReadableStreamDefaultReader<Uint8Array> | undefined;
      try {
        const caller = new LegacyCaller(fetch, `${gateway.url}/mcp/modern`);
        await caller.initialize();
        const listening = await caller.listen();
        assert.equal(listening.status, 200);
        stream = (listening.body as ReadableStream<Uint8Array>).getReader();
        const call = caller.post({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "ask_form" },
        });
        await asked.opened;
        const closing = gateway.close().then(() => (closed = true));
        // A host holds its GET stream open for as long as it is let: the gateway ends it.
        assert.equal(await readUpTo(stream, "id: 0_0\ndata: \n\n", 10_000), "id: 0_0\ndata: \n\n");
        assert.deepEqual(await within("the GET stream's end", stream.read(), 10_000), {
          done: true,
          value: undefined,
        });
        assert.equal(closed, false);
        released.open();
        assert.deepEqual(await (await call).json(), legacyPeerAnswer(1, '{"action":"decline"}'));
        await within("close()", closing, 10_000);
      } finally {
        released.open();
        // Hung up here, the stream lets a gateway that did not end it close.
        await stream?.cancel().catch(() => {});
        await gateway.close();
      }
      await assert.rejects(fetch(`${gateway.url}/healthz`), TypeError);
    });

    test("close() closes a kept-alive connection as its GET stream ends: a request the host sends on it next gets no answer", async () => {
      const gateway = await serve({ port: 0, stateKey: KEY, policies: [modern()] });
      const { host, port } = new URL(gateway.url);
      let socket: Socket | undefined;
      try {
        const caller = new LegacyCaller(fetch, `${gateway.url}/mcp/modern`);
        await caller.initialize();
        socket = connect(Number(port), "127.0.0.1");
        await once(socket, "connect");
        let received = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => (received += chunk));
        // Writing on a connection the gateway closed fails: the close is what is looked for.
        socket.on("error", () => {});
        const hungUp = once(socket, "close");
        socket.write(
          `GET /mcp/modern HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\nmcp-session-id: ${caller.session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n`,
        );
        await eventually(
          "the GET stream's priming event",
          () => received.includes("id: 0_0") || undefined,
          10_000,
        );
        const closing = gateway.close();
        await eventually(
          "the GET stream's end",
          () => received.endsWith("\r\n0\r\n\r\n") || undefined,
          10_000,
        );
        // A host sends its next request on the connection it keeps alive: a closing gateway
        // answered it, and kept the connection, and so itself, open a second longer.
        socket.write(`GET /healthz HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
        await within("the connection's close", hungUp, 10_000);
        await within("close()", closing, 10_000);
        assert.deepEqual([received.split("\r\n")[0], received.slice(received.indexOf("\r\n\r\n") + 4)], [
          "HTTP/1.1 200 OK",
          "10\r\nid: 0_0\ndata: \n\n\r\n0\r\n\r\n",
        ]);
      } finally {
        socket?.destroy();
        await gateway.close();
      }
    });

    test("close() takes a legacy caller's answer to a form passed down to its call in flight, refuses new requests 503 (a 2026 retry too), then stops", async () => {
      const gateway = await serve({
        port: 0,
        stateKey: KEY,
        // Without the caller's answer the call would wait out this, and close() with it.
        policies: [{ ...modern(), passDown: ["elicitation"], handlerTimeout: { elicitation: "5s" } }],
      });
      const url = `${gateway.url}/mcp/modern`;
      const refusal = {
        status: 503,
        headers: {},
        body: {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message:
              "Service Unavailable: this gateway is closing and takes no new request, expected only answers to what it asked on a session: send the request again once it has restarted",
          },
        },
      };
      let closed = false;
      const caller = new LegacyCaller(fetch, url);
      try {
        const meta = { ...META, "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } };
        // A 2026 caller's first round: the form comes back in input_required, sealed.
        const first = await answerOf(
          await fetch(modernRequest(url, "tools/call", { name: "ask_form", _meta: meta })),
        );
        const { requestState } = (first.body as { result: { requestState: string } }).result;
        await caller.initialize({ elicitation: { form: {} } });
        const events = new EventReader(
          await caller.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_form" } }),
        );
        // The modern peer's form, passed down whole under the gateway's own id.
        assert.deepEqual(await events.message(), {
          jsonrpc: "2.0",
          id: "sluice-1",
          method: "elicitation/create",
          params: { mode: "form", message: "Tell us about you", requestedSchema: PROFILE_SCHEMA },
        });
        const closing = gateway.close().then(() => (closed = true));
        const retry = modernRequest(url, "tools/call", {
          name: "ask_form",
          _meta: meta,
          inputResponses: { profile: { action: "accept", content: { name: "Ada", age: 36 } } },
          requestState,
        });
        assert.deepEqual(await answerOf(await fetch(retry)), refusal);
        assert.deepEqual(await answerOf(await caller.post({ jsonrpc: "2.0", id: 8, method: "tools/list" })), {
          ...refusal,
          body: { jsonrpc: "2.0", id: 8, error: refusal.body.error },
        });
        assert.equal(closed, false);
        const answered = await caller.post({
          jsonrpc: "2.0",
          id: "sluice-1",
          result: { action: "accept", content: { name: "Ada", age: 36 } },
        });
        assert.equal(answered.status, 202);
        assert.deepEqual(
          await events.message(),
          legacyPeerAnswer(7, '{"name":"Ada","age":36,"subscribe":false}'),
        );
        await within("close()", closing, 10_000);
      } finally {
        // Ending the session ends its call, which a failed step left waiting for its answer.
        if (!closed && caller.session !== undefined) await caller.close().catch(() => {});
        await gateway.close();
      }
      await assert.rejects(fetch(`${gateway.url}/healthz`), TypeError);
    });

    test("aborting the signal closes the gateway, and an aborted signal rejects with its reason before binding", async () => {
      const controller = new AbortController();
      const gateway = await serve({
        port: 0,
        stateKey: KEY,
        policies: [modern()],
        signal: controller.signal,
      });
      try {
        assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
        controller.abort();
      } finally {
        await gateway.close();
      }
      await assert.rejects(fetch(`${gateway.url}/healthz`), TypeError);
      const reason = new Error("not now");
      await assert.rejects(
        serve({ port: 0, stateKey: KEY, policies: [modern()], signal: AbortSignal.abort(reason) }),
        (error) => error === reason,
      );
    });
  });
}

function describeSettings(runtime: Runtime, { serve, createGateway }: Entry, modern: ModernPolicy): void {
  describe(`${runtime} gateway settings`, () => {
    test("createGateway() without stateKey and with SLUICE_STATE_KEY unset throws a TypeError naming it", async () => {
      await withEnvironment({ SLUICE_STATE_KEY: undefined }, () => {
        assert.throws(() => createGateway({ policies: [modern()] }), { name: "TypeError", message: NO_KEY });
        return Promise.resolve();
      });
      await withEnvironment({ SLUICE_STATE_KEY: KEY }, async () => {
        const gateway = createGateway({ policies: [modern()] });
        assert.equal((await gateway.fetch(new Request("http://gateway.test/healthz"))).status, 200);
        await gateway.client.close();
      });
      // A key set too short is named as it was set, not as createFront()'s "stateKey".
      await withEnvironment({ SLUICE_STATE_KEY: "short" }, () => {
        assert.throws(() => createGateway({ policies: [modern()] }), {
          name: "TypeError",
          message:
            'sluice: "SLUICE_STATE_KEY" must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`',
        });
        return Promise.resolve();
      });
    });

    test('createGateway() hands "signInUser" to the front, which refuses it without auth', () => {
      const signInUser = (request: Request) => request.headers.get("x-sso-user") ?? undefined;
      assert.throws(
        () => createGateway({ stateKey: KEY, policies: [modern()], playground: false, signInUser }),
        {
          name: "TypeError",
          message:
            'createFront(): "signInUser" needs "auth": with auth "none" callers have no subject to compare a browser\'s user with, expected bearer secrets, JWT settings or a function',
        },
      );
    });

    test("createGateway() and serve() refuse a misspelt option, naming the one meant", async () => {
      assert.throws(
        () =>
          createGateway({ stateKey: KEY, policies: [modern()], alowedHosts: ["gate.example.com"] } as never),
        {
          name: "TypeError",
          message: `sluice gateway: "alowedHosts" is not an option (did you mean "allowedHosts"?); expected ${
            GATEWAY_OPTION_KEYS.map((key) => `"${key}"`).join(", ")
          }`,
        },
      );
      await assert.rejects(serve({ stateKey: KEY, policies: [modern()], prot: 0 } as never), {
        name: "TypeError",
        message: `sluice serve(): "prot" is not an option (did you mean "port"?); expected ${
          [...GATEWAY_OPTION_KEYS, "port", "hostname", "signal"].map((key) => `"${key}"`).join(", ")
        }`,
      });
    });

    test("serve() without port listens on PORT", async () => {
      const probe = await serve({ port: 0, stateKey: KEY, policies: [modern()] });
      const port = Number(new URL(probe.url).port);
      await probe.close();
      await withEnvironment({ PORT: String(port) }, async () => {
        const gateway = await serve({ stateKey: KEY, policies: [modern()] });
        try {
          assert.equal(gateway.url, `http://127.0.0.1:${port}`);
          assert.equal(await (await fetch(`${gateway.url}/healthz`)).text(), '{"ok":true}');
        } finally {
          await gateway.close();
        }
      });
    });

    test("serve() rejects a taken port with an error naming the address, and an invalid port option with a TypeError", async () => {
      const first = await serve({ port: 0, stateKey: KEY, policies: [modern()] });
      try {
        const port = Number(new URL(first.url).port);
        await assert.rejects(serve({ port, stateKey: KEY, policies: [modern()] }), {
          name: "Error",
          message:
            `sluice serve(): cannot listen on "127.0.0.1" port "${port}": EADDRINUSE, expected a free port this process may bind`,
        });
      } finally {
        await first.close();
      }
      await assert.rejects(serve({ port: 70000, stateKey: KEY, policies: [modern()] }), {
        name: "TypeError",
        message: 'sluice serve(): "port" must be an integer from 0 to 65535, received "70000"',
      });
    });
  });
}

/**
 * The gateway's whole answer to `GET /servers` when it serves `policy` alone, with every limit at
 * its default.
 *
 * @param policy The modern peer's policy.
 * @returns The status, the content type and the parsed body.
 */
function serversAnswer(policy: ReturnType<ModernPolicy>): Answer {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: {
      servers: [{
        id: policy.server,
        era: "modern",
        transport: "http",
        elicitationOrigin: new URL(policy.transport.url).origin,
        capabilities: {},
        passDown: [],
        limits: {
          inputRateLimit: { rate: 10, perMs: 1000, burst: 20 },
          maxRounds: 10,
          callTimeoutMs: 60000,
          maxTotalTimeoutMs: 600000,
          stateTtlMs: 600000,
          maxMessageBytes: 4194304,
          maxEventBytes: 4194304,
          maxJsonDepth: 64,
          maxInputRequests: 16,
          sampling: { maxTokens: 4096 },
        },
      }],
    },
  };
}

function describePeers(
  runtime: Runtime,
  { createGateway }: Entry,
  modern: ModernPolicy,
  from: BindingsFrom,
): void {
  describe(`${runtime} gateway for this machine only`, () => {
    const servers = (gateway: Gateway, address: string) =>
      gateway.fetch(new Request("http://127.0.0.1:8787/servers"), from(address));

    test("createGateway() without auth and allowedHosts refuses a request from another machine 403, though it names a loopback Host", async () => {
      const gateway = createGateway({ stateKey: KEY, policies: [modern()], playground: false });
      try {
        const refused = [];
        for (const address of ["192.0.2.7", "::ffff:10.0.0.5", "2001:db8::1"]) {
          refused.push(await answerOf(await servers(gateway, address), ["content-type"]));
        }
        const healthz = await gateway.fetch(new Request("http://127.0.0.1:8787/healthz"), from("192.0.2.7"));
        const answered = [];
        for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
          answered.push(await answerOf(await servers(gateway, address), ["content-type"]));
        }
        const listed = serversAnswer(modern());
        assert.deepEqual([refused, healthz.status, await healthz.text(), answered], [
          ["192.0.2.7", "::ffff:10.0.0.5", "2001:db8::1"].map(peerRefused),
          200,
          '{"ok":true}',
          [listed, listed, listed],
        ]);
      } finally {
        await gateway.client.close();
      }
    });

    test("createGateway() with auth, or with auth none and allowedHosts, answers another machine by a name it allows, and by a loopback name only when allowedHosts lists it", async () => {
      const subject = () => ({ subject: "ada" });
      const allowed = { auth: "none" as const, allowedHosts: ["gate.example.com"] };
      const answers = [];
      for (
        const options of [{ auth: subject }, allowed, { auth: subject, allowedHosts: ["localhost:8787"] }]
      ) {
        const gateway = createGateway({ stateKey: KEY, policies: [modern()], playground: false, ...options });
        const at = async (url: string, address = "192.0.2.7") =>
          await answerOf(await gateway.fetch(new Request(url), from(address)), ["content-type"]);
        try {
          answers.push([
            await at("http://gate.example.com/servers"),
            await at("http://127.0.0.1:8787/servers"),
            await at("http://localhost:8787/servers"),
            await at("http://[::1]:8787/servers", "2001:db8::1"),
            await at("http://127.0.0.1:8787/servers", "127.0.0.1"),
          ].map((answer) => answer.status === 200 ? "answered" : answer));
        } finally {
          await gateway.client.close();
        }
      }
      const hostRefused = hostRefusal("gate.example.com");
      const loopbackRefused = [
        loopbackHostRefused("192.0.2.7", "127.0.0.1:8787"),
        loopbackHostRefused("192.0.2.7", "localhost:8787"),
        loopbackHostRefused("2001:db8::1", "[::1]:8787"),
      ];
      assert.deepEqual(answers, [
        [hostRefused, ...loopbackRefused, "answered"],
        ["answered", ...loopbackRefused, "answered"],
        [hostRefused, loopbackRefused[0], "answered", loopbackRefused[2], "answered"],
      ]);
    });
  });
}
