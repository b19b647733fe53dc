// The front (createFront) between downstream callers (sluice's client and the official
// @modelcontextprotocol/client 2.4.0) and a real modern upstream (the modern peer process).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient, type Handler, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { toolCallHeaders } from "../_support/downstream.ts";

let peer: ModernPeer;
before(async () => {
  peer = await startModernPeer();
});
after(async () => {
  await peer?.stop();
});

const KEY = "front-test-state-key-0123456789abcdef";
const reply = {
  role: "assistant",
  content: { type: "text", text: "gate answered" },
  model: "gate-model",
} as const;

function front(handler: Handler, policy: Partial<Policy> = {}) {
  const upstream = createClient({
    name: "gate",
    handler,
    policies: [{ server: "modern", transport: { url: peer.url }, era: "modern", ...policy }],
  });
  const app = createFront({ client: upstream, stateKey: KEY, allowedHosts: ["gate.example"], auth: "none" });
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> =>
    await app.fetch(new Request(url, init));
  return { app, fetch, upstream };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/** One raw downstream POST, with the headers a modern client sends (overridable). */
async function post(
  fetch: ReturnType<typeof front>["fetch"],
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  server = "modern",
) {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const response = await fetch(`https://gate.example/mcp/${server}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": String(body.method),
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body }),
  });
  // deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON results
  return { status: response.status, body: await response.json() as Record<string, any> };
}

const callAskForm = (extra: Record<string, unknown> = {}) => ({
  method: "tools/call",
  params: { name: "ask_form", arguments: {}, _meta: META, ...extra },
});

describe("the front", () => {
  test("passes a deferred elicitation down with a sealed state, and carries the caller's answer upstream", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const first = await post(fetch, callAskForm());
    assert.equal(first.status, 200);
    const { resultType, inputRequests, requestState } = first.body.result;
    assert.deepEqual([resultType, Object.keys(inputRequests), inputRequests.profile.method], [
      "input_required",
      ["profile"],
      "elicitation/create",
    ]);
    assert.match(requestState, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const second = await post(
      fetch,
      callAskForm({
        inputResponses: { profile: { action: "accept", content: { name: "Grace", age: 85 } } },
        requestState,
      }),
    );
    assert.deepEqual(JSON.parse(second.body.result.content[0].text), {
      name: "Grace",
      age: 85,
      subscribe: false,
    });
  });

  test("ignores answers to requests the state did not ask, and asks again what was left unanswered", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const first = (await post(fetch, callAskForm())).body.result;
    await peer.clearRequests();
    const again =
      (await post(fetch, callAskForm({ inputResponses: { wrong: {} }, requestState: first.requestState })))
        .body.result;
    assert.deepEqual([again.resultType, again.inputRequests, again.requestState === first.requestState], [
      "input_required",
      first.inputRequests,
      false,
    ]);
    assert.deepEqual(await peer.requests(), []);
    // The first state was spent by the retry that got the question again.
    const replayed = await post(fetch, callAskForm({ inputResponses: {}, requestState: first.requestState }));
    assert.deepEqual(replayed.body.error, { code: -32602, message: "Invalid or expired requestState" });
    const answer = { action: "accept", content: { name: "Grace", age: 85 } };
    const done = await post(
      fetch,
      callAskForm({ inputResponses: { profile: answer, extra: answer }, requestState: again.requestState }),
    );
    assert.deepEqual(JSON.parse(done.body.result.content[0].text), {
      name: "Grace",
      age: 85,
      subscribe: false,
    });
  });

  test("refuses inputResponses that is no object -32602, with a state or without, before anything reaches upstream; the state still serves", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const first = (await post(fetch, callAskForm())).body.result;
    await peer.clearRequests();
    for (
      const [given, kind] of [["garbage", "a string"], [[], "an array"], [null, "null"], [
        5,
        "a number",
      ]] as const
    ) {
      for (const state of [{ requestState: first.requestState }, {}]) {
        const refused = await post(fetch, callAskForm({ inputResponses: given, ...state }));
        assert.deepEqual(refused.body.error, {
          code: -32602,
          message:
            `Invalid params: inputResponses must be an object keyed by the inputRequests' keys, received ${kind}`,
        });
      }
    }
    assert.deepEqual(await peer.requests(), []);
    const done = await post(
      fetch,
      callAskForm({
        inputResponses: { profile: { action: "accept", content: { name: "Grace", age: 85 } } },
        requestState: first.requestState,
      }),
    );
    assert.deepEqual(JSON.parse(done.body.result.content[0].text), {
      name: "Grace",
      age: 85,
      subscribe: false,
    });
  });

  test("refuses a tampered, replayed or truncated state with -32602, and nothing reaches upstream", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const first = await post(fetch, callAskForm());
    const state: string = first.body.result.requestState;
    const answer = { profile: { action: "accept", content: { name: "Grace" } } };
    await peer.clearRequests();
    const flipped = state.slice(0, 10) + (state[10] === "A" ? "B" : "A") + state.slice(11);
    const attempts = [
      callAskForm({ inputResponses: answer, requestState: flipped }),
      callAskForm({ inputResponses: answer, requestState: state.slice(0, -5) }),
      {
        method: "tools/call",
        params: {
          name: "ask_form",
          arguments: { other: 1 },
          _meta: META,
          inputResponses: answer,
          requestState: state,
        },
      },
    ];
    for (const attempt of attempts) {
      const refused = await post(fetch, attempt);
      assert.deepEqual(refused.body, {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Invalid or expired requestState" },
      });
    }
    assert.deepEqual(await peer.requests(), []);
  });

  test("post-checks the caller's answer like a handler's: an answer that breaks the form is refused before upstream", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const state = (await post(fetch, callAskForm())).body.result.requestState;
    await peer.clearRequests();
    const refused = await post(
      fetch,
      callAskForm({
        inputResponses: { profile: { action: "accept", content: { name: "G" } } },
        requestState: state,
      }),
    );
    assert.equal(refused.body.error.code, -32602);
    assert.match(
      refused.body.error.message,
      /^Answer to input request "profile" refused: Elicitation answer refused: field "name"/,
    );
    assert.deepEqual(await peer.requests(), []);
  });

  test("passes sampling down as the chain left it (maxTokens clamped, what was asked under _meta), when the policy passes it down", async () => {
    const { fetch } = front({}, { passDown: ["sampling"], sampling: { maxTokens: 512 } });
    const first = await post(fetch, {
      method: "tools/call",
      params: {
        name: "ask_sampling",
        arguments: {},
        _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": { sampling: {} } },
      },
    });
    const entries = Object.values(first.body.result.inputRequests) as Array<
      { method: string; params: { maxTokens: number; _meta?: Record<string, unknown> } }
    >;
    // What the server asked rides along under _meta, for the caller's person to see.
    assert.deepEqual(entries.map((e) => [e.method, e.params.maxTokens, e.params._meta]), [[
      "sampling/createMessage",
      512,
      { "sluice/changes": [{ field: "maxTokens", from: 999999, to: 512 }] },
    ]]);
  });

  test("fails with -32021 when a deferred entry needs a capability the caller did not declare", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer() });
    const refused = await post(fetch, {
      method: "tools/call",
      params: {
        name: "ask_form",
        arguments: {},
        _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": {} },
      },
    });
    assert.deepEqual(refused.body.error, {
      code: -32021,
      message:
        "The upstream server needs input that only the caller can give, and the caller did not declare it",
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  test("validates downstream requests as a modern server must", async () => {
    const { fetch } = front({});
    const list = { method: "tools/list", params: { _meta: META } };
    const cases: Array<[Record<string, unknown>, Record<string, string>, string, number, number]> = [
      [list, { "mcp-protocol-version": "2025-11-25" }, "modern", 400, -32020],
      [list, { "mcp-method": "tools/call" }, "modern", 400, -32020],
      [{ method: "tools/list", params: {} }, {}, "modern", 400, -32602],
      [
        {
          method: "tools/list",
          params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
        },
        { "mcp-protocol-version": "2025-11-25" },
        "modern",
        400,
        -32022,
      ],
      [list, {}, "nope", 404, -32601],
    ];
    for (const [body, headers, server, status, code] of cases) {
      const answer = await post(fetch, body, headers, server);
      assert.deepEqual([answer.status, answer.body.error?.code], [status, code], JSON.stringify(answer.body));
    }
    const version = await post(fetch, cases[3]?.[0] ?? {}, { "mcp-protocol-version": "2025-11-25" });
    assert.deepEqual(version.body.error.data, { supported: ["2026-07-28"], requested: "2025-11-25" });
  });

  test("streams the upstream's progress for the caller's token as SSE events when the caller accepts SSE, then the response", async () => {
    const { fetch } = front({});
    const response = await fetch("https://gate.example/mcp/modern", {
      method: "POST",
      headers: toolCallHeaders("progress_twice", "application/json, text/event-stream"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "progress_twice", arguments: {}, _meta: { ...META, progressToken: "caller-7" } },
      }),
    });
    assert.deepEqual([response.status, response.headers.get("content-type")], [200, "text/event-stream"]);
    const events = (await response.text()).split("\n\n").filter((e) => e !== "").map((event) => {
      assert.match(event, /^event: message\ndata: /);
      return JSON.parse(event.slice(event.indexOf("data: ") + 6));
    });
    assert.deepEqual(events.map((e) => e.method ?? e.result?.content?.[0]?.text), [
      "notifications/progress",
      "notifications/progress",
      "progressed twice",
    ]);
    assert.deepEqual(events.slice(0, 2).map((e) => e.params), [
      { progressToken: "caller-7", progress: 1, total: 2 },
      { progressToken: "caller-7", progress: 2, total: 2 },
    ]);
    assert.equal(events[2].id, 5);
  });

  test("answers plain JSON to a caller whose Accept gives SSE q=0 (not acceptable) or only a wildcard", async () => {
    const { fetch } = front({});
    const answers = [];
    for (
      const accept of [
        "application/json, text/event-stream;q=0",
        "application/json, text/event-stream; Q=0.000",
        "*/*",
      ]
    ) {
      const response = await fetch("https://gate.example/mcp/modern", {
        method: "POST",
        headers: toolCallHeaders("progress_twice", accept),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 5,
          method: "tools/call",
          params: { name: "progress_twice", arguments: {}, _meta: { ...META, progressToken: "caller-7" } },
        }),
      });
      const body = await response.json() as { result: { content: { text: string }[] } };
      answers.push([response.status, response.headers.get("content-type"), body.result.content[0]?.text]);
    }
    assert.deepEqual(answers, Array(3).fill([200, "application/json", "progressed twice"]));
  });

  test("answers with plain JSON when the caller accepts SSE but the upstream sent no notification", async () => {
    const { fetch } = front({});
    const answer = await fetch("https://gate.example/mcp/modern", {
      method: "POST",
      headers: toolCallHeaders("add", "application/json, text/event-stream"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "add", arguments: { a: 1, b: 2 }, _meta: META },
      }),
    });
    assert.deepEqual([answer.status, answer.headers.get("content-type")], [200, "application/json"]);
    assert.deepEqual((await answer.json()).result.content, [{ type: "text", text: "3" }]);
  });

  test("serves /healthz and /servers without URLs or credentials", async () => {
    const { app } = front({ sampling: () => reply });
    assert.deepEqual(await (await app.request("/healthz")).json(), { ok: true });
    const servers = await (await app.request("/servers")).text();
    // The upstream's origin only (what URL elicitations are compared with): no path, no credentials.
    assert.deepEqual(JSON.parse(servers).servers[0].elicitationOrigin, new URL(peer.url).origin);
    assert.doesNotMatch(
      servers.replaceAll(JSON.stringify(new URL(peer.url).origin), ""),
      /127\.0\.0\.1|http:/,
    );
    assert.deepEqual(JSON.parse(servers).servers.map((s: { id: string; era: string }) => [s.id, s.era]), [[
      "modern",
      "modern",
    ]]);
  });

  test("completes a deferred flow for sluice's client and the official client 2.4.0 downstream", async () => {
    const { fetch } = front({ elicitation: (_p, ctx) => ctx.defer(), sampling: () => reply });
    const ours = createClient({
      name: "host",
      handler: { elicitation: () => ({ action: "accept", content: { ok: true } }) },
      policies: [{ server: "gate", transport: { url: "https://gate.example/mcp/modern" }, era: "modern" }],
      fetch: (url, init) => fetch(url, init),
    });
    const expected = JSON.stringify({ action: "accept", content: { ok: true }, text: "gate answered" });
    assert.deepEqual((await ours.callTool("gate", "ask_two") as { content: unknown }).content, [{
      type: "text",
      text: expected,
    }]);
    const official = new OfficialClient({ name: "official-host", version: "2.4.0" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    official.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { ok: true } }));
    await official.connect(
      new StreamableHTTPClientTransport(new URL("https://gate.example/mcp/modern"), { fetch }),
    );
    const result = await official.callTool({ name: "ask_two", arguments: {} });
    assert.deepEqual(result.content, [{ type: "text", text: expected }]);
    await official.close();
  });

  test("answers a modern caller whose server cannot be reached -32010 connection_refused, a list and a call, era known or probed", async () => {
    // A loopback port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const answers = [];
    for (const era of ["modern", "auto"] as const) {
      const upstream = createClient({
        name: "gate",
        policies: [{ server: "down", transport: { url: `http://127.0.0.1:${port}/mcp` }, era }],
      });
      const app = createFront({
        client: upstream,
        stateKey: KEY,
        allowedHosts: ["gate.example"],
        auth: "none",
      });
      const fetch = async (url: string | URL | Request, init?: RequestInit) =>
        await app.fetch(new Request(url, init));
      answers.push(await post(fetch, { method: "tools/list", params: { _meta: META } }, {}, "down"));
      answers.push(
        await post(fetch, { method: "tools/call", params: { name: "x", _meta: META } }, {}, "down"),
      );
      await upstream.close();
    }
    const refused = {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32010,
          message: 'Upstream server "down" is unavailable: connection refused',
          data: { serverId: "down", cause: "connection_refused" },
        },
      },
    };
    assert.deepEqual(answers, [refused, refused, refused, refused]);
  });

  test("a retry refused on the way to a stopped server keeps its answers: the same retry goes through once the server is back", async () => {
    // The gateway reaches the peer through a relay on a port of its own, stopped and started again.
    const relay = new PeerRelay(new URL(peer.url));
    const port = await relay.start(0);
    const { fetch, upstream } = front({ elicitation: (_p, ctx) => ctx.defer() }, {
      transport: { url: `http://127.0.0.1:${port}/mcp` },
    });
    try {
      const { requestState } = (await post(fetch, callAskForm())).body.result;
      const retry = callAskForm({
        inputResponses: { profile: { action: "accept", content: { name: "Grace", age: 85 } } },
        requestState,
      });
      await relay.stop();
      const away = await post(fetch, retry);
      await relay.start(port);
      const back = await post(fetch, retry);
      assert.deepEqual(away.body.error, {
        code: -32010,
        message: 'Upstream server "modern" is unavailable: connection refused',
        data: { serverId: "modern", cause: "connection_refused" },
      });
      assert.deepEqual(JSON.parse(back.body.result.content[0].text), {
        name: "Grace",
        age: 85,
        subscribe: false,
      });
    } finally {
      await upstream.close();
      await relay.stop();
    }
  });
});

/** A TCP relay to the peer, on a loopback port that it can leave and take again. */
class PeerRelay {
  readonly #target: URL;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  constructor(target: URL) {
    this.#target = target;
  }

  /** Listens on `port` (0: a free one); resolves with the port. */
  async start(port: number): Promise<number> {
    const server = createServer((socket) => {
      const upstream = connect(Number(this.#target.port), this.#target.hostname);
      for (const end of [socket, upstream]) {
        this.#sockets.add(end);
        end.once("close", () => this.#sockets.delete(end));
        end.on("error", () => {
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream).pipe(socket);
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  /** Stops listening and ends every relayed connection: the port then refuses connections. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }
}
