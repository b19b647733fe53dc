// Decision events through the gateway: one per input request the front's chain answers and one
// per call, with the caller; and the gateway writing them as JSON lines or for a person. Runs on
// every runtime, against the scripted upstream of tests/_support/gateway-caller.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type Decision, type Policy } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { buildGateway } from "../../src/adapters/gateway.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";
import { createClient as createLegacyClient } from "../../src/client/legacy/legacy-client.ts";
import {
  busyAndInvalidElicitations,
  legacyAskingServer,
  legacyHandshake,
  postsOnly,
  result,
  scriptedServer,
  toolsList,
} from "../_support/scripted-server.ts";
import { gate } from "../_support/gate.ts";
import { eventually } from "../_support/eventually.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";

const KEY = "front-decisions-state-key-0123456789abcdef";
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const clock = { now: () => NOW };
const handler = {
  roots: () => ({ roots: [{ uri: "file:///srv" }] }),
  elicitation: () => ({ action: "accept" as const, content: { name: "Ada" } }),
};

function call(name: string, user = "alice") {
  return modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", { name, arguments: {}, _meta: modernMeta() }, {
    "x-user": user,
  });
}

/**
 * A client of the scripted upstream for the gateway, passing `passDown` down to callers, and the
 * decision events it hears.
 */
function gateClient(answers: Partial<typeof handler> = handler, passDown: Policy["passDown"] = []) {
  const client = createClient({
    name: "gate",
    clock,
    handler: answers,
    fetch: toolsUpstream().fetch,
    policies: [{ server: "up", transport: { url: "https://upstream.example/mcp" }, era: "modern", passDown }],
  });
  const events: Decision[] = [];
  client.onDecision((event) => void events.push(event));
  return { client, events };
}

/** What every input event of alice's calls to "up" holds, at the fixed clock. */
const ALICE_INPUT = {
  type: "input",
  time: "2026-12-01T12:00:00.000Z",
  client: "gate",
  server: "up",
  caller: "alice",
  era: "modern",
  durationMs: 0,
} as const;

/**
 * A gateway passing elicitation down, over a legacy upstream reached with `fetch`, whose caller is
 * alice, and the decision events it hears.
 */
function parkedGateway(fetch: Parameters<typeof createLegacyClient>[0]["fetch"]) {
  const client = createLegacyClient({
    name: "gate",
    clock,
    fetch,
    policies: [{
      server: "up",
      transport: { url: "https://upstream.example/mcp" },
      era: "legacy",
      passDown: ["elicitation"],
    }],
  });
  const events: Decision[] = [];
  client.onDecision((event) => void events.push(event));
  const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
  return { client, events, app };
}

/**
 * Calls `tool` of the gateway's "up" as a 2025 host of `version` that declared no capabilities:
 * `initialize`, then `tools/call` in its session, read to its end.
 *
 * @returns The call's response body.
 */
async function hostCall(
  app: { request: (request: Request) => Response | Promise<Response> },
  version: string,
  tool: string,
): Promise<string> {
  const post = (message: Record<string, unknown>, session?: string) =>
    app.request(
      new Request(`${LOOPBACK}/mcp/up`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": version }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", ...message }),
      }),
    );
  const initialized = await post({
    id: 1,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "host", version: "1" } },
  });
  const session = initialized.headers.get("mcp-session-id") ?? "";
  return await (await post({ id: 2, method: "tools/call", params: { name: tool, arguments: {} } }, session))
    .text();
}

describe("decision events through the gateway", () => {
  test("a call whose upstream asks two inputs gives two input events and one call event, each naming the caller", async () => {
    const { client, events } = gateClient();
    const app = createFront({
      client,
      stateKey: KEY,
      auth: (request) => ({ subject: request.headers.get("x-user") ?? "" }),
    });
    try {
      const answer = await answerOf(await app.request(call("ask")));
      assert.equal((answer.body as { result: { resultType: string } }).result.resultType, "complete");
      await app.request(call("plain", "bob"));
    } finally {
      await client.close();
    }
    const common = { time: "2026-12-01T12:00:00.000Z", client: "gate", server: "up" };
    assert.deepEqual(
      events.sort((a, b) =>
        a.type.localeCompare(b.type) || JSON.stringify(a).localeCompare(JSON.stringify(b))
      ),
      [
        {
          type: "call",
          ...common,
          caller: "alice",
          method: "tools/call",
          name: "ask",
          outcome: "completed",
          rounds: 2,
          durationMs: 0,
        },
        {
          type: "call",
          ...common,
          caller: "bob",
          method: "tools/call",
          name: "plain",
          outcome: "completed",
          rounds: 1,
          durationMs: 0,
        },
        {
          type: "input",
          ...common,
          caller: "alice",
          era: "modern",
          method: "elicitation/create",
          mode: "form",
          outcome: "answered",
          changes: [],
          handlerMs: 0,
          durationMs: 0,
        },
        {
          type: "input",
          ...common,
          caller: "alice",
          era: "modern",
          method: "roots/list",
          outcome: "answered",
          changes: [],
          handlerMs: 0,
          durationMs: 0,
        },
      ],
    );
  });

  test("a call the gateway refuses for its headers gives its event, with the code the caller got", async () => {
    const { client, events } = gateClient({ elicitation: handler.elicitation });
    const app = createFront({ client, stateKey: KEY });
    try {
      const mismatch = 'Header mismatch: Mcp-Name "other" differs from the body\'s "ask"';
      const request = modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
        name: "ask",
        arguments: {},
        _meta: modernMeta(),
      }, { "mcp-name": "other" });
      assert.deepEqual(await answerOf(await app.request(request)), {
        status: 400,
        headers: {},
        body: { jsonrpc: "2.0", id: 1, error: { code: -32020, message: mismatch } },
      });
      assert.deepEqual(events, [{
        type: "call",
        time: "2026-12-01T12:00:00.000Z",
        client: "gate",
        server: "up",
        method: "tools/call",
        name: "ask",
        outcome: "failed",
        error: { kind: "gateway", code: -32020, message: mismatch },
        durationMs: 0,
      }]);
    } finally {
      await client.close();
    }
  });

  test("an input request of a kind the gateway did not declare gives its input event, then the call's", async () => {
    const { client, events } = gateClient({ elicitation: handler.elicitation });
    const app = createFront({ client, stateKey: KEY });
    try {
      const refused = 'Input request "where" asked for a capability this gateway did not declare';
      assert.deepEqual(await answerOf(await app.request(call("ask"))), {
        status: 200,
        headers: {},
        body: { jsonrpc: "2.0", id: 1, error: { code: -32603, message: refused } },
      });
      const common = { time: "2026-12-01T12:00:00.000Z", client: "gate", server: "up", durationMs: 0 };
      assert.deepEqual(events, [
        {
          type: "input",
          ...common,
          era: "modern",
          method: "roots/list",
          outcome: "capability",
          changes: [],
          refusal: {
            code: -32601,
            message: "Input request refused: this client did not declare the roots capability",
          },
        },
        {
          type: "call",
          ...common,
          method: "tools/call",
          name: "ask",
          outcome: "failed",
          error: { kind: "gateway", code: -32603, message: refused },
        },
      ]);
    } finally {
      await client.close();
    }
  });

  test("a legacy upstream's request refused busy and one whose params fail to decode each give an input event naming the caller", async () => {
    const { upstream, handler, inputEvents } = busyAndInvalidElicitations("2025-06-18");
    const client = createLegacyClient({
      name: "gate",
      clock,
      fetch: upstream.fetch,
      handler,
      policies: [{
        server: "up",
        transport: { url: "https://upstream.example/mcp" },
        era: "legacy",
        maxServerRequests: 1,
      }],
    });
    const events: Decision[] = [];
    client.onDecision((event) => void events.push(event));
    const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
    try {
      const answer = await answerOf(await app.request(call("ask")));
      assert.equal((answer.body as { result: { resultType: string } }).result.resultType, "complete");
    } finally {
      await client.close();
    }
    assert.deepEqual(
      events.filter((event) => event.type === "input"),
      inputEvents({ client: "gate", server: "up", caller: "alice" }, "2026-12-01T12:00:00.000Z"),
    );
  });

  test("the gateway writes each event as one JSON line, or one line for a person", async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
    const made = [];
    try {
      for (const decisions of ["json", "text"] as const) {
        const upstream = toolsUpstream();
        const gateway = buildGateway({
          name: "gate",
          stateKey: KEY,
          decisions,
          policies: [{ server: "up", transport: { url: "https://upstream.example/mcp" }, era: "modern" }],
        }, {
          createClient: (options) => createClient({ ...options, clock, fetch: upstream.fetch }),
          environment: () => undefined,
        });
        made.push(gateway);
        await gateway.app.request(
          modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
            name: "plain",
            arguments: {},
            _meta: modernMeta(),
          }),
        );
      }
    } finally {
      console.log = log;
      for (const gateway of made) await gateway.client.close();
    }
    assert.deepEqual(lines, [
      JSON.stringify({
        type: "call",
        time: "2026-12-01T12:00:00.000Z",
        client: "gate",
        server: "up",
        method: "tools/call",
        name: "plain",
        outcome: "completed",
        rounds: 1,
        durationMs: 0,
      }),
      "sluice call up tools/call plain completed 0 ms",
    ]);
  });

  test("a legacy caller's call gives the same call event, naming the caller", async () => {
    const { client, events } = gateClient();
    const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "carol" }) });
    try {
      await hostCall(app, "2025-06-18", "plain");
    } finally {
      await client.close();
    }
    assert.deepEqual(events, [
      {
        type: "call",
        time: "2026-12-01T12:00:00.000Z",
        client: "gate",
        server: "up",
        caller: "carol",
        method: "tools/call",
        name: "plain",
        outcome: "completed",
        durationMs: 0,
      },
    ]);
  });

  test("a request passed down to a 2025 host that did not declare what it needs ends capability, as on a 2026 caller's paths", async () => {
    const { client, events } = gateClient({ roots: handler.roots }, ["elicitation"]);
    const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
    let body = "";
    try {
      body = await hostCall(app, "2025-11-25", "ask");
    } finally {
      await client.close();
    }
    const form = { ...ALICE_INPUT, method: "elicitation/create", mode: "form", changes: [] };
    const refusal = {
      code: -32601,
      message: 'Method not found: the caller did not declare elicitation, which "elicitation/create" needs',
    };
    // Before: the second event said "policy", and the host was told the upstream broke the protocol.
    assert.deepEqual(
      events.filter((event) => event.type === "input" && event.method === "elicitation/create"),
      [{ ...form, outcome: "deferred", handlerMs: 0 }, { ...form, outcome: "capability", refusal }],
    );
    assert.deepEqual(JSON.parse(body), {
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32601,
        message:
          `Input request "who" (elicitation/create) from server "up" refused by policy: ${refusal.message}`,
      },
    });
  });

  test("calls that end before the upstream is reached give their call event with the real cause: the policy's access, an unreachable server found out by the era probe, a legacy server's failure", async () => {
    const refused = () =>
      Promise.reject(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") }));
    const client = createLegacyClient({
      name: "gate",
      clock,
      fetch: (url, init) =>
        url.startsWith("https://upstream.example/") ? toolsUpstream().fetch(url, init) : refused(),
      policies: [
        {
          server: "up",
          transport: { url: "https://upstream.example/mcp" },
          era: "modern",
          access: [{ subjects: ["alice"], tools: ["plain"] }],
        },
        { server: "probed", transport: { url: "https://down.example/mcp" } },
        { server: "old", transport: { url: "https://down.example/old" }, era: "legacy" },
      ],
    });
    const events: Decision[] = [];
    client.onDecision((event) => void events.push(event));
    const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
    const callOn = (server: string, name: string) =>
      modernRequest(`${LOOPBACK}/mcp/${server}`, "tools/call", { name, arguments: {}, _meta: modernMeta() });
    let answers: unknown[];
    try {
      answers = await Promise.all(
        [callOn("up", "ask"), callOn("probed", "plain"), callOn("old", "plain")].map(async (request) =>
          (await answerOf(await app.request(request))).body
        ),
      );
    } finally {
      await client.close();
    }
    const common = {
      time: "2026-12-01T12:00:00.000Z",
      client: "gate",
      caller: "alice",
      method: "tools/call",
    };
    const unavailable = (server: string) => ({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32010,
        message: `Upstream server "${server}" is unavailable: connection refused`,
        data: { serverId: server, cause: "connection_refused" },
      },
    });
    assert.deepEqual([answers, events], [[
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32602,
          message: 'Tool "ask" is not open to "alice" on server "up" (its policy\'s access)',
        },
      },
      unavailable("probed"),
      unavailable("old"),
    ], [
      {
        type: "call",
        ...common,
        server: "up",
        name: "ask",
        outcome: "failed",
        error: {
          kind: "policy",
          code: -32602,
          message: 'Tool "ask" is not open to "alice" on server "up" (its policy\'s access)',
        },
        durationMs: 0,
      },
      {
        type: "call",
        ...common,
        server: "probed",
        name: "plain",
        outcome: "failed",
        error: {
          kind: "transport",
          message:
            'Server "probed": request to https://down.example/mcp failed: fetch failed (connect ECONNREFUSED)',
        },
        durationMs: 0,
      },
      {
        type: "call",
        ...common,
        server: "old",
        name: "plain",
        outcome: "failed",
        error: {
          kind: "transport",
          message:
            'Server "old": initialize failed: request to https://down.example/old failed: fetch failed (connect ECONNREFUSED)',
        },
        durationMs: 0,
      },
    ]]);
  });

  test("a call the server's access does not let the caller make gives its event with what the caller was told: a server closed to it, a tool whose scopes it lacks; a list gives none, and a GET stream is refused at the gate", async () => {
    const client = createClient({
      name: "gate",
      clock,
      fetch: toolsUpstream().fetch,
      policies: [
        {
          server: "up",
          transport: { url: "https://upstream.example/mcp" },
          era: "modern",
          access: [{ subjects: ["alice"], tools: ["plain"] }, { scopes: ["up:ask"], tools: ["ask"] }],
        },
        {
          server: "closed",
          transport: { url: "https://upstream.example/mcp" },
          era: "modern",
          access: [{ subjects: ["alice"] }],
        },
      ],
    });
    const events: Decision[] = [];
    client.onDecision((event) => void events.push(event));
    const app = createFront({
      client,
      stateKey: KEY,
      auth: (request) => ({ subject: request.headers.get("x-user") ?? "" }),
    });
    const on = (server: string, user: string, method: string, params: Record<string, unknown>) =>
      modernRequest(`${LOOPBACK}/mcp/${server}`, method, { ...params, _meta: modernMeta() }, {
        "x-user": user,
        ...(typeof params.uri === "string" ? { "mcp-name": params.uri } : {}),
      });
    const closed = 'Forbidden: "bob" may not use server "closed" (its policy\'s access)';
    const scoped = 'Tool "ask" is not open to "alice" on server "up" (its policy\'s access)';
    let answers: unknown[];
    try {
      answers = [
        await answerOf(
          await app.request(on("closed", "bob", "tools/call", { name: "plain", arguments: {} })),
        ),
        await answerOf(await app.request(on("closed", "bob", "resources/read", { uri: "test://r" }))),
        await answerOf(await app.request(on("closed", "bob", "tools/list", {}))),
        await answerOf(await app.request(on("up", "alice", "tools/call", { name: "ask", arguments: {} })), [
          "www-authenticate",
        ]),
        await answerOf(
          await app.request(
            new Request(`${LOOPBACK}/mcp/closed`, {
              headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "x-user": "bob" },
            }),
          ),
        ),
      ];
    } finally {
      await client.close();
    }
    // A POST's refusal answers the request it read (its id); the GET stream's has none to answer.
    const forbidden = (id?: number) => ({
      status: 403,
      headers: {},
      body: { jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code: -32000, message: closed } },
    });
    const common = { time: "2026-12-01T12:00:00.000Z", client: "gate", outcome: "failed", durationMs: 0 };
    assert.deepEqual([answers, events], [[
      forbidden(1),
      forbidden(1),
      forbidden(1),
      {
        status: 403,
        headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="up:ask"' },
        body: { jsonrpc: "2.0", id: 1, error: { code: -32000, message: scoped } },
      },
      forbidden(),
    ], [
      {
        type: "call",
        ...common,
        server: "closed",
        caller: "bob",
        method: "tools/call",
        name: "plain",
        error: { kind: "policy", code: -32000, message: closed },
      },
      {
        type: "call",
        ...common,
        server: "closed",
        caller: "bob",
        method: "resources/read",
        name: "test://r",
        error: { kind: "policy", code: -32000, message: closed },
      },
      {
        type: "call",
        ...common,
        server: "up",
        caller: "alice",
        method: "tools/call",
        name: "ask",
        error: { kind: "policy", code: -32000, message: scoped },
      },
    ]]);
  });

  test("a read's event names its resource without the password and the query's values of its URI", async () => {
    const { client, events } = gateClient();
    const app = createFront({ client, stateKey: KEY });
    try {
      const uri = "https://user:pw@x.example/r?token=SECRET";
      await app.request(
        modernRequest(`${LOOPBACK}/mcp/up`, "resources/read", { uri, _meta: modernMeta() }, {
          "mcp-name": uri,
        }),
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(events, [{
      type: "call",
      time: "2026-12-01T12:00:00.000Z",
      client: "gate",
      server: "up",
      method: "resources/read",
      name: "https://user:…@x.example/r?token=…",
      outcome: "failed",
      error: {
        kind: "protocol",
        message:
          'Server "up" sent an invalid resources/read result: $.contents: expected a value (required), received undefined',
      },
      durationMs: 0,
    }]);
  });

  test("a request passed down to a 2026 caller gives a deferred event, with no refusal, and a second when the caller's answer is checked: answered with what the check changed, or refused", async () => {
    const client = createClient({
      name: "gate",
      clock,
      fetch: toolsUpstream().fetch,
      policies: [{
        server: "up",
        transport: { url: "https://upstream.example/mcp" },
        era: "modern",
        passDown: ["elicitation", "roots"],
      }],
    });
    const events: Decision[] = [];
    client.onDecision((event) => void events.push(event));
    const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
    const meta = modernMeta({ roots: {}, elicitation: { form: {} } });
    const ask = (extra: Record<string, unknown> = {}) =>
      modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
        name: "ask",
        arguments: {},
        _meta: meta,
        ...extra,
      });
    try {
      const first = (await answerOf(await app.request(ask()))).body as { result: { requestState: string } };
      const retry = (who: unknown) => ({
        inputResponses: { where: { roots: [{ uri: "file:///srv/../etc" }] }, who },
        requestState: first.result.requestState,
      });
      // A refused answer leaves the state for a corrected retry.
      await app.request(ask(retry({ action: "accept", content: { name: 7 } })));
      await app.request(ask(retry({ action: "accept", content: { name: "Ada" } })));
      // A replay is refused once its answers pass: they were never taken, and give no event.
      await app.request(ask(retry({ action: "accept", content: { name: "Ada" } })));
    } finally {
      await client.close();
    }
    const input = ALICE_INPUT;
    const roots = { ...input, method: "roots/list" };
    const form = { ...input, method: "elicitation/create", mode: "form" };
    const rewritten = [{ field: "roots[0].uri", from: "file:///srv/../etc", to: "file:///etc" }];
    assert.deepEqual(events.filter((event) => event.type === "input"), [
      { ...roots, outcome: "deferred", changes: [], handlerMs: 0 },
      { ...form, outcome: "deferred", changes: [], handlerMs: 0 },
      // The first retry is refused whole: its roots answer was not taken either.
      {
        ...form,
        outcome: "policy",
        changes: [],
        // What the caller was told, as the call's event says.
        refusal: {
          code: -32602,
          message:
            'Answer to input request "who" refused: Elicitation answer refused: field "name" expected a string, received a number',
        },
      },
      { ...roots, outcome: "answered", changes: rewritten },
      { ...form, outcome: "answered", changes: [] },
    ]);
    // The call took two requests upstream: the one whose round was passed down, and the retry.
    assert.deepEqual(
      events.flatMap((event) => event.type === "call" ? [[event.outcome, event.rounds]] : []),
      [["input_required", undefined], ["failed", undefined], ["completed", 2], ["failed", undefined]],
    );
  });

  test("a request passed down in a round that fails before it reaches the caller gives a second event: capability for the one the caller cannot take, cancelled for the others", async () => {
    const run = async (policy: Partial<Policy>, declared: Record<string, unknown>, answers = {}) => {
      const client = createClient({
        name: "gate",
        clock,
        handler: answers,
        fetch: toolsUpstream().fetch,
        policies: [{
          server: "up",
          transport: { url: "https://upstream.example/mcp" },
          era: "modern",
          ...policy,
        }],
      });
      const events: Decision[] = [];
      client.onDecision((event) => void events.push(event));
      const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
      try {
        const request = modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
          name: "ask",
          arguments: {},
          _meta: modernMeta(declared),
        });
        const { body } = await answerOf(await app.request(request));
        return {
          error: (body as { error: unknown }).error,
          inputs: events.filter((e) => e.type === "input"),
        };
      } finally {
        await client.close();
      }
    };
    const input = { ...ALICE_INPUT, changes: [] };
    const roots = { ...input, method: "roots/list" };
    const form = { ...input, method: "elicitation/create", mode: "form" };
    // The caller declared elicitation, not roots: the round fails -32021 once both are deferred.
    const undeclared = {
      code: -32021,
      message:
        "The upstream server needs input that only the caller can give, and the caller did not declare it",
    };
    assert.deepEqual(await run({ passDown: ["elicitation", "roots"] }, { elicitation: { form: {} } }), {
      error: { ...undeclared, data: { requiredCapabilities: { roots: {} } } },
      inputs: [
        { ...roots, outcome: "deferred", handlerMs: 0 },
        { ...form, outcome: "deferred", handlerMs: 0 },
        { ...roots, outcome: "capability", refusal: undeclared },
        { ...form, outcome: "cancelled", refusal: undeclared },
      ],
    });
    // The form goes down; the handler's roots answer is refused, which fails the round.
    const bad = {
      code: -32603,
      message:
        'Input request "where" refused by policy: Roots answer refused: expected an object { roots: [...] }, received "roots" as nothing',
    };
    const refusedRoots = await run({ passDown: ["elicitation"] }, { elicitation: { form: {} } }, {
      roots: () => ({ folders: [] }),
    });
    assert.deepEqual(refusedRoots.error, bad);
    // The two entries run side by side: the roots refusal and the form's deferral come in either order.
    const [one, two, last] = refusedRoots.inputs.map((
      e,
    ) => [e.method, e.outcome, (e as { refusal?: unknown }).refusal]);
    assert.deepEqual(
      [...[one, two].sort((a, b) => String(a?.[0]).localeCompare(String(b?.[0]))), last],
      [
        ["elicitation/create", "deferred", undefined],
        ["roots/list", "policy", {
          code: -32603,
          message: 'Roots answer refused: expected an object { roots: [...] }, received "roots" as nothing',
        }],
        ["elicitation/create", "cancelled", bad],
      ],
    );
  });

  test("a request a legacy upstream asks a 2026 caller that a limit ends before the caller's retry gives a second event: timeout, past the state's lifetime or maxTotalTimeout; so does one the gateway's own handler is still answering", async () => {
    const ended = async (limits: Pick<Policy, "stateTtl" | "maxTotalTimeout">) => {
      const time = new FakeTime(NOW);
      const upstream = legacyAskingServer("2025-11-25", [{
        jsonrpc: "2.0",
        id: 1,
        method: "elicitation/create",
        params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
      }, {
        jsonrpc: "2.0",
        id: 2,
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 5 },
      }]);
      const client = createLegacyClient({
        name: "gate",
        clock: time,
        timers: time,
        // The gateway's own handler answers sampling, and never does.
        handler: { sampling: () => new Promise(() => {}) },
        fetch: upstream.fetch,
        policies: [{
          server: "up",
          transport: { url: "https://upstream.example/mcp" },
          era: "legacy",
          passDown: ["elicitation"],
          ...limits,
        }],
      });
      const events: Decision[] = [];
      client.onDecision((event) => void events.push(event));
      const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
      const ask = modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
        name: "ask",
        arguments: {},
        _meta: modernMeta({ elicitation: { form: {} } }),
      });
      try {
        const first = await answerOf(await drive(time, Promise.resolve(app.request(ask)), { untilMs: 500 }));
        assert.equal((first.body as { result: { resultType: string } }).result.resultType, "input_required");
        // The caller never retries: the limit of 1 s ends the parked call and the requests.
        await time.advance(1000);
        await upstream.answered(2);
      } finally {
        await client.close();
      }
      return events.filter((event) => event.type === "input");
    };
    const form = {
      type: "input",
      client: "gate",
      server: "up",
      caller: "alice",
      era: "legacy",
      method: "elicitation/create",
      mode: "form",
      changes: [],
    } as const;
    const deferred = {
      ...form,
      time: "2026-12-01T12:00:00.000Z",
      outcome: "deferred",
      handlerMs: 0,
      durationMs: 0,
    };
    const timedOut = {
      ...form,
      time: "2026-12-01T12:00:01.000Z",
      outcome: "timeout",
      refusal: {
        code: -32603,
        message: "The request was not answered: the call it belongs to has ended",
      },
      durationMs: 0,
    };
    const { mode: _form, ...noMode } = timedOut;
    const sampled = { ...noMode, method: "sampling/createMessage", handlerMs: 1000, durationMs: 1000 };
    // Before: the state's lifetime ended the sampling request "cancelled", "Request cancelled".
    assert.deepEqual(await ended({ stateTtl: "1s" }), [deferred, timedOut, sampled]);
    assert.deepEqual(await ended({ maxTotalTimeout: "1s" }), [deferred, timedOut, sampled]);
  });

  test("a request passed down in a round that maxTotalTimeout ends gives timeout; one whose state is too large to seal gives cancelled, with what the call is told", async () => {
    const time = new FakeTime(NOW);
    const timed = createClient({
      name: "gate",
      clock: time,
      timers: time,
      // The roots handler never answers: the round waits until the call's deadline.
      handler: { roots: () => new Promise<never>(() => {}) },
      fetch: toolsUpstream().fetch,
      policies: [{
        server: "up",
        transport: { url: "https://upstream.example/mcp" },
        era: "modern",
        passDown: ["elicitation"],
        maxTotalTimeout: "1s",
      }],
    });
    const big = "x".repeat(1_200_000);
    const tooLarge = createClient({
      name: "gate",
      clock,
      fetch: scriptedServer((request) =>
        request.body.method === "tools/list"
          ? toolsList(request.body.id, [{ name: "ask", inputSchema: { type: "object" } }])
          : result(request.body.id, {
            resultType: "input_required",
            requestState: big,
            inputRequests: {
              who: {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: "Name?",
                  requestedSchema: { type: "object", properties: {} },
                },
              },
            },
          })
      ).fetch,
      policies: [{
        server: "up",
        transport: { url: "https://upstream.example/mcp" },
        era: "modern",
        passDown: ["elicitation"],
      }],
    });
    const outcomes = async (client: typeof timed, drives: boolean) => {
      const events: Decision[] = [];
      client.onDecision((event) => void events.push(event));
      const app = createFront({ client, stateKey: KEY, auth: () => ({ subject: "alice" }) });
      try {
        const asked = Promise.resolve(app.request(modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
          name: "ask",
          arguments: {},
          _meta: modernMeta({ elicitation: { form: {} } }),
        })));
        const { body } = await answerOf(await (drives ? drive(time, asked, { untilMs: 5_000 }) : asked));
        const inputs = events.filter((event) =>
          event.type === "input" && event.method === "elicitation/create"
        );
        return [
          (body as { error: unknown }).error,
          inputs.map((event) => [event.outcome, (event as { refusal?: unknown }).refusal]),
        ];
      } finally {
        await client.close();
      }
    };
    const timedOut = { code: -32010, message: 'Upstream server "up" is unavailable: timed out' };
    assert.deepEqual(await outcomes(timed, true), [
      { ...timedOut, data: { serverId: "up", cause: "timed_out" } },
      [["deferred", undefined], ["timeout", timedOut]],
    ]);
    const large = { code: -32603, message: "The continuation state is too large to pass to the caller" };
    assert.deepEqual(await outcomes(tooLarge, false), [large, [["deferred", undefined], [
      "cancelled",
      large,
    ]]]);
  });

  test("of two requests a legacy upstream asks a 2026 caller, one whose answer passes while the other's is refused gives cancelled, not answered: its answer never goes upstream", async () => {
    const form = (message: string) => ({
      message,
      requestedSchema: { type: "object", properties: { n: { type: "string" } } },
    });
    const upstream = legacyAskingServer("2025-11-25", [
      { jsonrpc: "2.0", id: 1, method: "elicitation/create", params: form("first") },
      { jsonrpc: "2.0", id: 2, method: "elicitation/create", params: form("second") },
    ]);
    const { client, events, app } = parkedGateway(upstream.fetch);
    const ask = (extra: Record<string, unknown> = {}) =>
      modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
        name: "ask",
        arguments: {},
        _meta: modernMeta({ elicitation: { form: {} } }),
        ...extra,
      });
    try {
      const first = (await answerOf(await app.request(ask()))).body as { result: { requestState: string } };
      await app.request(ask({
        inputResponses: {
          "input-1": { action: "accept", content: { n: "ok" } },
          "input-2": { action: "bogus" },
        },
        requestState: first.result.requestState,
      }));
      await upstream.answered(2);
    } finally {
      await client.close();
    }
    const ended = "The request was not answered: the call it belongs to has ended";
    assert.deepEqual(
      events.filter((event) => event.type === "input").map((event) => [
        event.outcome,
        (event as { refusal?: { message: string } }).refusal?.message,
      ]),
      [
        ["deferred", undefined],
        ["deferred", undefined],
        [
          "policy",
          'Answer to input request "input-2" refused: Elicitation answer refused: "action" expected "accept", "decline" or "cancel", received "bogus"',
        ],
        ["cancelled", ended],
      ],
    );
    // Neither answer reached the server: each request is refused, as its event says.
    assert.deepEqual(
      upstream.answers().sort((a, b) => Number((a as { id: number }).id) - Number((b as { id: number }).id)),
      [
        { jsonrpc: "2.0", id: 1, error: { code: -32603, message: ended } },
        { jsonrpc: "2.0", id: 2, error: { code: -32603, message: ended } },
      ],
    );
  });

  test("a request a legacy upstream asks a 2026 caller, then answers the call without waiting for, ends cancelled because the call has ended, as the server is told", async () => {
    const answer = gate();
    const event = (message: unknown) =>
      new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    const server = scriptedServer((request) => {
      const { id, method } = request.body;
      const handshake = legacyHandshake(request.body, "2025-11-25", "ask");
      if (id === undefined || method === undefined || handshake !== undefined) {
        return handshake ?? new Response(null, { status: 202 });
      }
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(event({
            jsonrpc: "2.0",
            id: 7,
            method: "elicitation/create",
            params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
          }));
          void answer.opened.then(() => {
            controller.enqueue(event({ jsonrpc: "2.0", id, result: { content: [] } }));
            controller.close();
          });
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const { client, events, app } = parkedGateway(postsOnly(server));
    const ended = "The request was not answered: the call it belongs to has ended";
    try {
      const first = await answerOf(
        await app.request(
          modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
            name: "ask",
            arguments: {},
            _meta: modernMeta({ elicitation: { form: {} } }),
          }),
        ),
      );
      assert.equal((first.body as { result: { resultType: string } }).result.resultType, "input_required");
      answer.open();
      await eventually(
        "the server told of its request",
        () => server.requests.some((request) => request.body.id === 7) || undefined,
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(
      events.filter((event) => event.type === "input").map((event) => [
        event.outcome,
        (event as { refusal?: { message: string } }).refusal?.message,
      ]),
      [["deferred", undefined], ["cancelled", ended]],
    );
    assert.deepEqual(
      server.requests.filter((request) => request.body.id === 7).map((request) => request.body),
      [{ jsonrpc: "2.0", id: 7, error: { code: -32603, message: ended } }],
    );
  });

  test("a request a legacy upstream asks a 2026 caller that cannot take it ends capability, with what the server is answered: a kind it did not declare -32601, a mode -32602", async () => {
    const run = async (declared: Record<string, unknown>) => {
      const upstream = legacyAskingServer("2025-11-25", [{
        jsonrpc: "2.0",
        id: 1,
        method: "elicitation/create",
        params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
      }]);
      const { client, events, app } = parkedGateway(upstream.fetch);
      try {
        const { body } = await answerOf(
          await app.request(modernRequest(`${LOOPBACK}/mcp/up`, "tools/call", {
            name: "ask",
            arguments: {},
            _meta: modernMeta(declared),
          })),
        );
        await upstream.answered(1);
        return { error: (body as { error: unknown }).error, answers: upstream.answers(), events };
      } finally {
        await client.close();
      }
    };
    const form = { ...ALICE_INPUT, era: "legacy", method: "elicitation/create", mode: "form", changes: [] };
    const undeclared = {
      code: -32021,
      message:
        "The upstream server needs input that only the caller can give, and the caller did not declare it",
    };
    const called = {
      type: "call",
      time: "2026-12-01T12:00:00.000Z",
      client: "gate",
      server: "up",
      caller: "alice",
      method: "tools/call",
      name: "ask",
      outcome: "failed",
      error: { kind: "gateway", ...undeclared },
      durationMs: 0,
    };
    const ended = (refusal: { code: number; message: string }, required: Record<string, unknown>) => ({
      error: { ...undeclared, data: { requiredCapabilities: { elicitation: required } } },
      answers: [{ jsonrpc: "2.0", id: 1, error: refusal }],
      events: [
        { ...form, outcome: "deferred", handlerMs: 0 },
        { ...form, outcome: "capability", refusal },
        called,
      ],
    });
    assert.deepEqual(
      await run({}),
      ended({
        code: -32601,
        message: 'Method not found: the caller did not declare elicitation, which "elicitation/create" needs',
      }, { form: {} }),
    );
    assert.deepEqual(
      await run({ elicitation: { url: {} } }),
      ended({
        code: -32602,
        message:
          'Invalid params: the caller did not declare elicitation.form, which this "elicitation/create" needs',
      }, { form: {} }),
    );
  });

  test("an unknown decisions setting is refused naming what is expected", () => {
    assert.throws(
      () =>
        buildGateway({
          stateKey: KEY,
          decisions: "jsonl" as never,
          policies: [{ server: "up", transport: { url: "https://upstream.example/mcp" } }],
        }, { createClient, environment: () => undefined }),
      {
        name: "TypeError",
        message: 'sluice gateway: "decisions" must be "json", "text", false or a function, received "jsonl"',
      },
    );
  });
});
