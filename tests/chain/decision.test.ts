// Decision events of the chain (one per input request: what the checks changed, how it ended,
// the handler's time) and of the client (one per tool call: how it ended, the real cause of a
// failure), with exact objects. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createChain } from "../../src/chain/chain.ts";
import {
  type Decision,
  decisionJson,
  describeDecision,
  type InputDecision,
} from "../../src/chain/decision.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import type { Handler } from "../../src/handler/handler.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";
import { createClient } from "../../mod.ts";
import { createClient as createLegacyClient } from "../../src/client/legacy/legacy-client.ts";
import { FakeTime } from "../_support/fake-time.ts";
import {
  busyAndInvalidElicitations,
  result,
  rpcError,
  scriptedServer,
  toolsList,
} from "../_support/scripted-server.ts";

const START = Date.UTC(2026, 11, 1, 12, 0, 0);
const reply = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" } as const;

function chainFor(handler: Handler | undefined, policy: Partial<Policy> = {}, time = new FakeTime(START)) {
  const events: InputDecision[] = [];
  const chain = createChain({
    policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, ...policy }),
    handler,
    client: "agent",
    store: createMemoryStore({ clock: time }),
    timers: time,
    clock: time,
    decisions: { listening: true, decide: (event) => void events.push(event as InputDecision) },
  });
  return { chain, events, time };
}

const sampling = (params: Record<string, unknown>): InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 100, ...params },
} as InputRequest);

describe("decision events of the chain", () => {
  test("a clamped maxTokens and a coerced includeContext are named with what the server asked and what passed, with the handler's time", async () => {
    const time = new FakeTime(START);
    const { chain, events } = chainFor(
      {
        sampling: async () => {
          await time.advance(250);
          return reply;
        },
      },
      { sampling: { maxTokens: 1024 } },
      time,
    );
    const answered = await chain.run(
      sampling({ maxTokens: 100_000, includeContext: "allServers" }),
      { version: "2026-07-28", principal: { subject: "alice", scopes: [], claims: {} } },
    );
    assert.equal(answered.ok, true);
    assert.deepEqual(events, [{
      type: "input",
      time: "2026-12-01T12:00:00.250Z",
      client: "agent",
      server: "demo",
      caller: "alice",
      era: "modern",
      method: "sampling/createMessage",
      outcome: "answered",
      changes: [
        { field: "maxTokens", from: 100_000, to: 1024 },
        { field: "includeContext", from: "allServers", to: "none" },
      ],
      handlerMs: 250,
      durationMs: 250,
    }]);
    assert.equal(
      describeDecision(events[0] as Decision),
      "input demo caller alice sampling/createMessage answered [maxTokens 100000 → 1024, includeContext allServers → none] 250 ms",
    );
  });

  test("a refusal by the capability gate and one by a check carry their stage, code and message, and no handler time", async () => {
    const { chain, events } = chainFor({
      elicitationModes: ["url"],
      elicitation: () => ({ action: "accept" }),
    });
    await chain.run(sampling({}), { version: "2025-11-25" });
    await chain.run({
      method: "elicitation/create",
      params: { mode: "url", message: "Log in", url: "http://login.example.com/" },
    } as InputRequest, { version: "2025-11-25" });
    assert.deepEqual(events.map(({ time: _t, ...rest }) => rest), [
      {
        type: "input",
        client: "agent",
        server: "demo",
        era: "legacy",
        method: "sampling/createMessage",
        outcome: "capability",
        changes: [],
        refusal: {
          code: -32601,
          message: "Input request refused: this client did not declare the sampling capability",
        },
        durationMs: 0,
      },
      {
        type: "input",
        client: "agent",
        server: "demo",
        era: "legacy",
        method: "elicitation/create",
        mode: "url",
        outcome: "policy",
        changes: [],
        refusal: {
          code: -32602,
          message:
            'Elicitation URL "http://login.example.com/" refused: expected the scheme "https", received "http"',
        },
        durationMs: 0,
      },
    ]);
  });

  test("a handler that throws gives the server the fixed -32603, and the event what it threw, without a URL's secrets", async () => {
    const { chain, events } = chainFor({
      roots: () => {
        throw new Error("store down at https://ops:hunter2@db.example/roots?key=abc", {
          cause: new Error("connect ECONNREFUSED"),
        });
      },
      sampling: () => Promise.reject("x".repeat(600)),
    });
    const answered = await chain.run({ method: "roots/list", params: {} }, { version: "2025-11-25" });
    await chain.run(sampling({}), { version: "2025-11-25" });
    const refusal = { code: -32603, message: "Internal error while answering the input request" };
    assert.deepEqual([answered.ok === false && answered.refusal, events.map((event) => event.cause)], [
      refusal,
      [
        "store down at https://ops:…@db.example/roots?key=… (connect ECONNREFUSED)",
        "x".repeat(500),
      ],
    ]);
    assert.deepEqual(events[0]?.refusal, refusal);
    assert.equal(
      describeDecision(events[0] as InputDecision),
      "input demo roots/list handler: -32603 Internal error while answering the input request (store down at https://ops:…@db.example/roots?key=… (connect ECONNREFUSED)) 0 ms",
    );
  });

  test("a URL the check normalises is named as changed, without its query's values", async () => {
    const { chain, events } = chainFor({
      elicitationModes: ["url"],
      elicitation: () => ({ action: "accept" }),
    });
    await chain.run({
      method: "elicitation/create",
      params: {
        mode: "url",
        message: "Log in",
        url: "https://Login.Example.com/a/../b?session=s3cret&next=%2Fhome#top",
        elicitationId: "e1",
      },
    } as InputRequest, { version: "2025-11-25" });
    assert.deepEqual([events[0]?.outcome, events[0]?.mode, events[0]?.changes], [
      "answered",
      "url",
      [{
        field: "url",
        from: "https://Login.Example.com/a/../b?session=…&next=…",
        to: "https://login.example.com/b?session=…&next=…",
      }],
    ]);
  });

  test("a refused URL's event quotes it without its password or its query's values, and the server is told the URL it sent whole", async () => {
    const { chain, events } = chainFor(
      { elicitationModes: ["url"], elicitation: () => ({ action: "accept" }) },
      { elicitation: { allowHosts: ["login.example.com"] } },
    );
    // Quoted, a long URL is cut at 96 characters: here inside its token.
    const path = `https://pay.example.com/${"a".repeat(40)}`;
    const urls = [
      "https://pay.example.com/cb?session=SECRET-1#top",
      "http://login.example.com/cb?token=SECRET-2",
      `${path}?session=SECRET-3${"b".repeat(60)}`,
      "javascript:alert(1)?token=SECRET-4",
      "https://user:SECRET-5@pay.example.com/cb",
    ];
    const told: unknown[] = [];
    for (const url of urls) {
      const result = await chain.run({
        method: "elicitation/create",
        params: { mode: "url", message: "Sign in", url, elicitationId: "e1" },
      } as InputRequest, { version: "2025-11-25" });
      told.push(result.ok ? result : result.refusal);
    }
    const host = 'refused: expected a host in allowHosts, received "pay.example.com"';
    const scheme = 'refused: expected the scheme "https", received';
    const refusals = (shown: readonly string[]) => [
      { code: -32602, message: `Elicitation URL "${shown[0]}" ${host}` },
      { code: -32602, message: `Elicitation URL "${shown[1]}" ${scheme} "http"` },
      { code: -32602, message: `Elicitation URL "${shown[2]}" ${host}` },
      { code: -32602, message: `Elicitation URL "${shown[3]}" ${scheme} "javascript"` },
      {
        code: -32602,
        message: `Elicitation URL "${shown[4]}" refused: expected no userinfo ("@") before the host`,
      },
    ];
    assert.deepEqual(
      told,
      refusals([urls[0]!, urls[1]!, `${path}?session=SECRET-3${"b".repeat(15)}…`, urls[3]!, urls[4]!]),
    );
    assert.deepEqual(
      events.map((event) => [event.outcome, event.refusal]),
      refusals([
        "https://pay.example.com/cb?session=…",
        "http://login.example.com/cb?token=…",
        `${path}?session=…`,
        "javascript:alert(1)?token=…",
        "https://user:…@pay.example.com/cb",
      ]).map((refusal) => ["policy", refusal]),
    );
  });

  test("a roots answer's event names each root the roots check rewrote or dropped, without its password or its query's values", async () => {
    const { chain, events } = chainFor({
      roots: () => ({
        roots: [
          { uri: "file:///srv/project" },
          { uri: "file:///srv/project/../../etc" },
          { uri: "https://files.example.com/home?token=s3cret" },
          { uri: "file://fileserver/share" },
          { uri: "file:///etc" },
          { uri: "https://oauth2:ghp_SECRET@github.com/org/repo.git" },
        ],
      }),
    });
    const answered = await chain.run({ method: "roots/list", params: {} }, { version: "2026-07-28" });
    assert.deepEqual(answered, {
      ok: true,
      answer: { roots: [{ uri: "file:///srv/project" }, { uri: "file:///etc" }] },
    });
    assert.deepEqual(events.map(({ time: _t, ...rest }) => rest), [{
      type: "input",
      client: "agent",
      server: "demo",
      era: "modern",
      method: "roots/list",
      outcome: "answered",
      changes: [
        { field: "roots[1].uri", from: "file:///srv/project/../../etc", to: "file:///etc" },
        { field: "roots[2].uri", from: "https://files.example.com/home?token=…", to: null },
        { field: "roots[3].uri", from: "file://fileserver/share", to: null },
        { field: "roots[4].uri", from: "file:///etc", to: null },
        { field: "roots[5].uri", from: "https://oauth2:…@github.com/org/repo.git", to: null },
      ],
      handlerMs: 0,
      durationMs: 0,
    }]);
  });

  test("an event lists at most 100 changes and counts the rest, in its JSON and its line", async () => {
    const { chain, events } = chainFor({
      roots: () => ({ roots: Array.from({ length: 250 }, () => ({ uri: "x:" })) }),
    });
    const answered = await chain.run({ method: "roots/list", params: {} }, { version: "2025-11-25" });
    assert.deepEqual(answered, { ok: true, answer: { roots: [] } });
    const dropped = Array.from(
      { length: 100 },
      (_, i) => ({ field: `roots[${i}].uri`, from: "x:", to: null }),
    );
    const event = events[0] as InputDecision;
    assert.deepEqual(event.changes, dropped);
    assert.equal(event.changesLeftOut, 150);
    const listed = dropped.map((change) => `${change.field} x: → null`).join(", ");
    assert.equal(describeDecision(event), `input demo roots/list answered [${listed}, and 150 more] 0 ms`);
    assert.deepEqual(JSON.parse(decisionJson(event)), JSON.parse(JSON.stringify(event)));
  });

  test("a change's URL is cut at 1024 characters in the event, never inside a surrogate pair", async () => {
    const long = `x:${"a".repeat(2000)}`;
    const paired = `x:${"a".repeat(1021)}\u{1F600}`;
    const { chain, events } = chainFor({ roots: () => ({ roots: [{ uri: long }, { uri: paired }] }) });
    await chain.run({ method: "roots/list", params: {} }, { version: "2025-11-25" });
    assert.deepEqual((events[0] as InputDecision).changes, [
      { field: "roots[0].uri", from: `x:${"a".repeat(1022)}…`, to: null },
      { field: "roots[1].uri", from: `x:${"a".repeat(1021)}…`, to: null },
    ]);
  });

  test("a handler that empties or edits ctx.changes is refused it, and the event keeps what the checks changed", async () => {
    const tried: string[] = [];
    const attempt = (what: string, edit: () => void) => {
      try {
        edit();
        tried.push(`${what}: done`);
      } catch (error) {
        tried.push(`${what}: ${(error as Error).name}`);
      }
    };
    const { chain, events } = chainFor({
      sampling: (_params, ctx) => {
        const changes = ctx.changes as { field: string; from: unknown; to: unknown }[];
        attempt("empty", () => void (changes.length = 0));
        attempt("push", () => void changes.push({ field: "maxTokens", from: 1, to: 1 }));
        attempt("edit", () => void (changes[0]!.from = 4096));
        return reply;
      },
    });
    const answered = await chain.run(sampling({ maxTokens: 100_000 }), { version: "2026-07-28" });
    assert.deepEqual(answered, { ok: true, answer: reply });
    assert.deepEqual(events[0]?.changes, [{ field: "maxTokens", from: 100_000, to: 4096 }]);
    assert.deepEqual(tried, ["empty: TypeError", "push: TypeError", "edit: TypeError"]);
  });

  test("a sink that is not listening is told nothing, and the request is answered the same", async () => {
    const told: unknown[] = [];
    const chain = createChain({
      policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }),
      handler: { sampling: () => reply },
      client: "agent",
      store: createMemoryStore(),
      decisions: { listening: false, decide: (event) => void told.push(event) },
    });
    const answered = await chain.run(sampling({ maxTokens: 100_000 }), { version: "2026-07-28" });
    assert.deepEqual(answered, { ok: true, answer: reply });
    assert.deepEqual(told, []);
  });
});

describe("decision events of the client", () => {
  test("a tool call that completes, one whose result is an error, and one the server fails each give one event", async () => {
    const time = new FakeTime(START);
    const upstream = scriptedServer((request) => {
      const { id } = request.body;
      const name = request.body.params?.name;
      if (request.body.method === "tools/list") return toolsList(id, []);
      if (name === "ok") {
        return result(id, { resultType: "complete", content: [{ type: "text", text: "fine" }] });
      }
      if (name === "bad") {
        return result(id, { resultType: "complete", content: [{ type: "text", text: "no" }], isError: true });
      }
      return rpcError(id, -32602, "Unknown tool: missing");
    });
    const client = createClient({
      name: "agent",
      clock: time,
      fetch: upstream.fetch,
      policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
    });
    const events: Decision[] = [];
    const stop = client.onDecision((event) => void events.push(event));
    try {
      await client.callTool("demo", "ok");
      await client.callTool("demo", "bad");
      await client.callTool("demo", "missing").catch(() => {});
      stop();
      await client.callTool("demo", "ok");
    } finally {
      await client.close();
    }
    const base = {
      type: "call",
      time: "2026-12-01T12:00:00.000Z",
      client: "agent",
      server: "demo",
      method: "tools/call",
    };
    assert.deepEqual(events, [
      { ...base, name: "ok", outcome: "completed", rounds: 1, durationMs: 0 },
      { ...base, name: "bad", outcome: "tool_error", rounds: 1, durationMs: 0 },
      {
        ...base,
        name: "missing",
        outcome: "failed",
        error: {
          kind: "server",
          code: -32602,
          message: 'Server "demo" answered tools/call with error -32602: "Unknown tool: missing"',
        },
        durationMs: 0,
      },
    ]);
  });
  test("a call failed by a refused elicitation URL quotes it without its query's values in its event; the caller's error keeps it whole", async () => {
    const url = "http://login.example.com/cb?token=SECRET-9";
    const upstream = scriptedServer((request) => {
      const { id } = request.body;
      if (request.body.method === "tools/list") {
        return toolsList(id, [{ name: "pay", inputSchema: { type: "object" } }]);
      }
      return result(id, {
        resultType: "input_required",
        inputRequests: { s: { method: "elicitation/create", params: { mode: "url", message: "Pay", url } } },
      });
    });
    const client = createClient({
      name: "agent",
      clock: new FakeTime(START),
      fetch: upstream.fetch,
      handler: { elicitationModes: ["url"], elicitation: () => ({ action: "accept" }) },
      policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
    });
    const events: Decision[] = [];
    client.onDecision((event) => void events.push(event));
    let thrown: unknown;
    try {
      await client.callTool("demo", "pay").catch((error) => void (thrown = error));
    } finally {
      await client.close();
    }
    const refused = (shown: string) =>
      `Input request "s" (elicitation/create) from server "demo" refused by policy: Elicitation URL "${shown}" refused: expected the scheme "https", received "http"`;
    assert.deepEqual(
      [
        (thrown as Error).message,
        events.filter((event) => event.type === "call").map((event) => event.error),
      ],
      [refused(url), [{
        kind: "policy",
        code: -32602,
        message: refused("http://login.example.com/cb?token=…"),
      }]],
    );
  });

  test("a call that cannot reach its server names the policy's URL in its event without the query's values, in both eras", async () => {
    const messages: unknown[] = [];
    for (const [make, era] of [[createClient, "modern"], [createLegacyClient, "legacy"]] as const) {
      const client = make({
        name: "agent",
        clock: new FakeTime(START),
        fetch: () => Promise.reject(new TypeError("connection refused")),
        policies: [{ server: "s", transport: { url: "https://mcp.example.com/mcp?key=SECRET" }, era }],
      });
      const events: Decision[] = [];
      client.onDecision((event) => void events.push(event));
      try {
        await client.callTool("s", "t").catch(() => {});
      } finally {
        await client.close();
      }
      messages.push(...events.map((event) => event.type === "call" && event.error?.message));
    }
    assert.deepEqual(messages, [
      'Server "s": request to https://mcp.example.com/mcp?key=… failed: connection refused',
      'Server "s": initialize failed: request to https://mcp.example.com/mcp?key=… failed: connection refused',
    ]);
  });

  test("a legacy server's request refused busy and one whose params fail to decode, on Streamable HTTP, each give an input event, outcome policy", async () => {
    const { upstream, handler, refusals, inputEvents } = busyAndInvalidElicitations("2025-11-25");
    const events: Decision[] = [];
    const client = createLegacyClient({
      name: "agent",
      clock: new FakeTime(START),
      fetch: upstream.fetch,
      handler,
      policies: [{
        server: "demo",
        transport: { url: "https://mcp.example.com/mcp" },
        era: "legacy",
        maxServerRequests: 1,
      }],
    });
    client.onDecision((event) => void events.push(event));
    try {
      await client.callTool("demo", "ask");
    } finally {
      await client.close();
    }
    assert.deepEqual(
      events.filter((event) => event.type === "input"),
      inputEvents({ client: "agent", server: "demo" }, "2026-12-01T12:00:00.000Z"),
    );
    assert.deepEqual(upstream.answers(), [
      ...refusals.map((error, i) => ({ jsonrpc: "2.0", id: i + 2, error })),
      { jsonrpc: "2.0", id: 1, result: { action: "decline" } },
    ]);
  });
});

describe("decision lines", () => {
  // A caller chose the tool's name, a server the messages: escapes, a title change, a bidi
  // override and a line break that would forge a second decision line.
  const hostileName = "add\u001b[2J\u001b]0;pwned\u0007\u202eevil";
  const call: Decision = {
    type: "call",
    time: "2026-12-01T12:00:00.000Z",
    client: "gate",
    server: "demo",
    caller: "mallory\u200b",
    method: "tools/call",
    name: hostileName,
    outcome: "failed",
    error: {
      kind: "server",
      code: -32602,
      message: "no\u009b2J\nsluice call demo tools/call ok completed 1 ms",
    },
    durationMs: 3,
  };
  const input: Decision = {
    type: "input",
    time: "2026-12-01T12:00:00.000Z",
    client: "gate",
    server: "demo",
    era: "legacy",
    method: "elicitation/create",
    mode: "url",
    outcome: "policy",
    changes: [{ field: "url", from: "https://login.example.com/\u2028x", to: "https://login.example.com/x" }],
    refusal: { code: -32602, message: "refused\r\n\u001b[31mok" },
    durationMs: 1,
  };

  test("describeDecision() removes the controls, escapes, line breaks and bidi characters of every field", () => {
    assert.deepEqual([describeDecision(call), describeDecision(input)], [
      "call demo caller mallory tools/call add[2J]0;pwnedevil failed: server -32602 no2Jsluice call demo tools/call ok completed 1 ms 3 ms",
      "input demo elicitation/create (url) policy: -32602 refused[31mok [url https://login.example.com/x → https://login.example.com/x] 1 ms",
    ]);
  });

  test("decisionJson() writes the event whole on one line, control, bidi and separator characters as \\u escapes", () => {
    assert.equal(
      decisionJson(call),
      String
        .raw`{"type":"call","time":"2026-12-01T12:00:00.000Z","client":"gate","server":"demo","caller":"mallory\u200b","method":"tools/call","name":"add\u001b[2J\u001b]0;pwned\u0007\u202eevil","outcome":"failed","error":{"kind":"server","code":-32602,"message":"no\u009b2J\nsluice call demo tools/call ok completed 1 ms"},"durationMs":3}`,
    );
    assert.equal(
      decisionJson(input),
      String
        .raw`{"type":"input","time":"2026-12-01T12:00:00.000Z","client":"gate","server":"demo","era":"legacy","method":"elicitation/create","mode":"url","outcome":"policy","changes":[{"field":"url","from":"https://login.example.com/\u2028x","to":"https://login.example.com/x"}],"refusal":{"code":-32602,"message":"refused\r\n\u001b[31mok"},"durationMs":1}`,
    );
    assert.deepEqual(JSON.parse(decisionJson(call)), call);
  });
});
