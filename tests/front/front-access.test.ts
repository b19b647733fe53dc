// A policy's `access` in the front (src/front/access.ts, src/front/create-front.ts) on every
// runtime: who may use a server (403, insufficient_scope when scopes would admit), which tools
// (tools/call refused with 403 insufficient_scope or a -32602 error), tools/list showing a
// caller only its tools (modern callers and a 2025 caller's session, by each request's own
// token), /servers listing only the servers a caller may use, and the policy errors of a bad
// `access`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createClient, type Handler } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { toolsVisibleTo } from "../../src/front/access.ts";
import type { GatewayAuth, PrincipalInput } from "../../src/front/downstream-auth.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";

const KEY = "front-access-test-state-key-0123456789abcdef";
const UPSTREAM = { url: "https://up.example/mcp" };

/**
 * files: alice every tool; whoever holds files:read the tool read; bob with files:write also
 * write. admin: alice only. open: no access rules.
 */
const POLICIES: Policy[] = [
  {
    server: "files",
    transport: UPSTREAM,
    era: "modern",
    access: [
      { subjects: ["alice"] },
      { scopes: ["files:read"], tools: ["read"] },
      { subjects: ["bob"], scopes: ["files:write"], tools: ["write"] },
    ],
  },
  { server: "admin", transport: UPSTREAM, era: "modern", access: [{ subjects: ["alice"], tools: "*" }] },
  { server: "open", transport: UPSTREAM, era: "modern" },
];

const CALLERS: Record<string, PrincipalInput> = {
  alice: { subject: "alice" },
  bob: { subject: "bob", scopes: ["files:read"] },
  carol: { subject: "carol" },
  dave: { subject: "dave", scopes: ["files:read", "files:write"] },
};

/** A front whose callers say who they are in `x-user` (a function auth), with the gateway's `handler`. */
function front(auth?: GatewayAuth, handler: Handler = {}) {
  const upstream = toolsUpstream();
  const client = createClient({ name: "gate", fetch: upstream.fetch, handler, policies: POLICIES });
  const app = createFront({
    client,
    stateKey: KEY,
    auth: auth ??
      ((request) => CALLERS[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 })),
  });
  const send = async (request: Request) => await answerOf(await app.fetch(request), ["www-authenticate"]);
  return { app, upstream, client, send };
}

const as = (user: string) => ({ "x-user": user });
const call = (user: string, server: string, tool: string) =>
  modernRequest(
    `${LOOPBACK}/mcp/${server}`,
    "tools/call",
    { name: tool, arguments: {}, _meta: modernMeta() },
    as(user),
  );
const list = (user: string, server: string) =>
  modernRequest(`${LOOPBACK}/mcp/${server}`, "tools/list", { _meta: modernMeta() }, as(user));

/** A 403 of the gate; a refusal of a request it read answers that request's id (1, as `call` and `list` send). */
function forbidden(message: string, challenge: string | null = null, id: number | null = 1) {
  return {
    status: 403,
    headers: { "www-authenticate": challenge },
    body: { jsonrpc: "2.0", ...(id === null ? {} : { id }), error: { code: -32000, message } },
  };
}

function called(tool: string) {
  return {
    status: 200,
    headers: { "www-authenticate": null },
    body: {
      jsonrpc: "2.0",
      id: 1,
      result: { resultType: "complete", content: [{ type: "text", text: `called ${tool}` }] },
    },
  };
}

const toolNames = (body: unknown) =>
  (body as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);

describe("access: the server", () => {
  test("access refuses a subject no rule admits with 403 insufficient_scope when a scope rule would admit it", async () => {
    const { send, upstream, client } = front();
    assert.deepEqual(
      await send(list("carol", "files")),
      forbidden(
        'Forbidden: "carol" may not use server "files" (its policy\'s access)',
        'Bearer error="insufficient_scope", scope="files:read"',
      ),
    );
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test("the challenge names the narrowest scopes that would admit the caller: of the server, of the tool called", async () => {
    // The README's example: write opens everything, read opens two tools.
    const upstream = toolsUpstream();
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      policies: [{
        server: "github",
        transport: UPSTREAM,
        era: "modern",
        access: [
          { scopes: ["github:write"] },
          { scopes: ["github:read"], tools: ["read", "get_issue"] },
          { subjects: ["release-bot"], tools: ["delete"] },
        ],
      }],
    });
    const app = createFront({
      client,
      stateKey: KEY,
      auth: (request) => CALLERS[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 }),
    });
    const challenge = async (request: Request) => (await app.fetch(request)).headers.get("www-authenticate");
    assert.deepEqual(
      [
        await challenge(call("carol", "github", "read")),
        await challenge(call("carol", "github", "create_issue")),
        await challenge(list("carol", "github")),
      ],
      [
        'Bearer error="insufficient_scope", scope="github:read"',
        'Bearer error="insufficient_scope", scope="github:write"',
        'Bearer error="insufficient_scope", scope="github:read"',
      ],
    );
    await client.close();
  });

  test("access refuses a subject no rule admits with a plain 403 when no scope would admit it", async () => {
    const { send, upstream, client } = front();
    const answers = [await send(list("bob", "admin")), await send(call("dave", "admin", "read"))];
    assert.deepEqual(answers, [
      forbidden('Forbidden: "bob" may not use server "admin" (its policy\'s access)'),
      forbidden('Forbidden: "dave" may not use server "admin" (its policy\'s access)'),
    ]);
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test("access refuses the GET stream and DELETE of a caller who may not use the server, as its POSTs", async () => {
    const { send, client } = front();
    const expected = forbidden(
      'Forbidden: "bob" may not use server "admin" (its policy\'s access)',
      null,
      null,
    );
    const get = await send(
      new Request(`${LOOPBACK}/mcp/admin`, { headers: { ...as("bob"), accept: "text/event-stream" } }),
    );
    const del = await send(new Request(`${LOOPBACK}/mcp/admin`, { method: "DELETE", headers: as("bob") }));
    assert.deepEqual([get, del], [expected, expected]);
    await client.close();
  });

  test('access with auth "none" admits an anonymous caller only to servers without subject or scope rules', async () => {
    const { send, client } = front("none");
    const opened = await send(modernRequest(`${LOOPBACK}/mcp/open`, "tools/list", { _meta: modernMeta() }));
    assert.deepEqual(
      [
        opened.status,
        toolNames(opened.body),
        await send(modernRequest(`${LOOPBACK}/mcp/admin`, "tools/list", { _meta: modernMeta() })),
      ],
      [
        200,
        ["read", "write", "delete"],
        forbidden('Forbidden: an anonymous caller may not use server "admin" (its policy\'s access)'),
      ],
    );
    await client.close();
  });

  test("access with JWT auth answers 403 insufficient_scope with the token's and the rule's scopes and the resource metadata", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const issuer = "https://auth.example.com";
    const { send, client } = front({ jwt: { issuer, keys: [await exportJWK(publicKey)], scopes: ["mcp"] } });
    const token = await new SignJWT({ scope: "mcp" }).setProtectedHeader({ alg: "ES256" }).setIssuer(issuer)
      .setAudience(LOOPBACK).setSubject("carol").setExpirationTime("5m").sign(privateKey);
    const request = list("carol", "files");
    request.headers.set("authorization", `Bearer ${token}`);
    assert.deepEqual(
      await send(request),
      forbidden(
        'Forbidden: "carol" may not use server "files" (its policy\'s access)',
        `Bearer error="insufficient_scope", error_description="The token lacks the scope files:read", scope="mcp files:read", resource_metadata="${LOOPBACK}/.well-known/oauth-protected-resource/mcp/files"`,
      ),
    );
    await client.close();
  });

  test("GET /servers lists only the servers each caller may use", async () => {
    const { app, client } = front();
    const ids: Array<[string, string[]]> = [];
    for (const user of ["alice", "bob", "carol", "dave"]) {
      const response = await app.fetch(new Request(`${LOOPBACK}/servers`, { headers: as(user) }));
      const body = await response.json() as { servers: Array<{ id: string }> };
      ids.push([user, body.servers.map((server) => server.id)]);
    }
    assert.deepEqual(ids, [
      ["alice", ["files", "admin", "open"]],
      ["bob", ["files", "open"]],
      ["carol", ["open"]],
      ["dave", ["files", "open"]],
    ]);
    await client.close();
  });
});

describe("access: the tools", () => {
  const notOpen = (tool: string, user: string) => ({
    status: 200,
    headers: { "www-authenticate": null },
    body: {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message: `Tool "${tool}" is not open to "${user}" on server "files" (its policy's access)`,
      },
    },
  });

  test("access lets each caller call exactly the tools of the rules that admit it; the others are refused before upstream", async () => {
    const { send, upstream, client } = front();
    const answers: Record<string, unknown> = {};
    for (const user of ["alice", "bob", "dave"]) {
      for (const tool of ["read", "write", "delete"]) {
        answers[`${user} ${tool}`] = await send(call(user, "files", tool));
      }
    }
    assert.deepEqual(answers, {
      "alice read": called("read"),
      "alice write": called("write"),
      "alice delete": called("delete"),
      "bob read": called("read"),
      "bob write": forbidden(
        'Tool "write" is not open to "bob" on server "files" (its policy\'s access)',
        'Bearer error="insufficient_scope", scope="files:write"',
      ),
      "bob delete": notOpen("delete", "bob"),
      "dave read": called("read"),
      "dave write": notOpen("write", "dave"),
      "dave delete": notOpen("delete", "dave"),
    });
    const calls = upstream.requests.filter((r) => r.body.method === "tools/call").map((r) =>
      r.body.params?.name
    );
    assert.deepEqual(calls, ["read", "write", "delete", "read", "read"]);
    await client.close();
  });

  test("access refuses a tools/call of a closed tool with the caller's own request id", async () => {
    const { app, client } = front();
    const request = new Request(`${LOOPBACK}/mcp/files`, {
      method: "POST",
      headers: {
        ...as("dave"),
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "delete",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "call-7",
        method: "tools/call",
        params: { name: "delete", arguments: {}, _meta: modernMeta() },
      }),
    });
    assert.deepEqual(await answerOf(await app.fetch(request)), {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: "call-7",
        error: {
          code: -32602,
          message: 'Tool "delete" is not open to "dave" on server "files" (its policy\'s access)',
        },
      },
    });
    await client.close();
  });

  test(
    "access shows a modern caller only its tools in tools/list",
    async () => {
      const { send, client } = front();
      const shown: Array<[string, string[]]> = [];
      for (const user of ["alice", "bob", "dave"]) {
        shown.push([user, toolNames((await send(list(user, "files"))).body)]);
      }
      assert.deepEqual(shown, [["alice", ["read", "write", "delete"]], ["bob", ["read"]], ["dave", [
        "read",
      ]]]);
      await client.close();
    },
  );

  test("under access, a tools/list the upstream marked public is private for every caller, also one who sees every tool", () => {
    const listed = {
      resultType: "complete",
      ttlMs: 60_000,
      cacheScope: "public",
      tools: [{ name: "read" }, { name: "write" }],
    };
    const files = compilePolicy(POLICIES[0] as Policy);
    const open = compilePolicy(POLICIES[2] as Policy);
    const principal = (subject: string, scopes: string[] = []) => ({ subject, scopes, claims: {} });
    assert.deepEqual(
      [
        toolsVisibleTo(listed, "tools/list", files, principal("alice")),
        toolsVisibleTo(listed, "tools/list", files, principal("bob", ["files:read"])),
      ],
      [{ ...listed, cacheScope: "private" }, { ...listed, cacheScope: "private", tools: [{ name: "read" }] }],
    );
    assert.equal(toolsVisibleTo(listed, "tools/list", open, principal("alice")), listed);
  });

  test('a tools/call whose name is not a string is refused -32602 before upstream, on both faces, under access or not: an upstream reading ["delete"] as "delete" would run a closed tool', async () => {
    const { app, send, upstream, client } = front();
    const refused = (id: number, received: string) => ({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32602,
        message: `Invalid params: tools/call expected "name" to be a string, received ${received}`,
      },
    });
    const answers: unknown[] = [];
    for (
      const [server, name] of [["files", ["delete"]], ["files", 5], ["files", null], ["open", [
        "read",
      ]]] as const
    ) {
      const request = modernRequest(
        `${LOOPBACK}/mcp/${server}`,
        "tools/call",
        { name, arguments: {}, _meta: modernMeta() },
        as("dave"),
      );
      answers.push(await send(request));
    }
    const caller = new LegacyCaller(
      async (url, init) =>
        await app.fetch(
          new Request(url, {
            ...init,
            headers: { ...init.headers as Record<string, string>, ...as("dave") },
          }),
        ),
      `${LOOPBACK}/mcp/files`,
    );
    await caller.initialize();
    const legacy = await caller.request(3, "tools/call", { name: ["delete"], arguments: {} });
    await caller.close();
    const modern = (received: string) => ({
      status: 200,
      headers: { "www-authenticate": null },
      body: refused(1, received),
    });
    assert.deepEqual(answers, [modern("an array"), modern("5"), modern("null"), modern("an array")]);
    assert.deepEqual(legacy, refused(3, "an array"));
    assert.deepEqual(upstream.requests.filter((r) => r.body.method === "tools/call"), []);
    await client.close();
  });

  test("access shows a 2025 caller only its tools in tools/list, and refuses its call of a closed tool", async () => {
    const { app, client } = front();
    const shown: Array<[string, unknown]> = [];
    let refusal: unknown;
    for (const user of ["alice", "bob", "dave"]) {
      const caller = new LegacyCaller(
        async (url, init) =>
          await app.fetch(
            new Request(url, {
              ...init,
              headers: { ...init.headers as Record<string, string>, ...as(user) },
            }),
          ),
        `${LOOPBACK}/mcp/files`,
      );
      await caller.initialize();
      shown.push([user, await caller.request(2, "tools/list")]);
      if (user === "dave") refusal = await caller.request(3, "tools/call", { name: "delete", arguments: {} });
      await caller.close();
    }
    const listed = (names: string[]) => ({
      jsonrpc: "2.0",
      id: 2,
      result: { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) },
    });
    assert.deepEqual(shown, [
      ["alice", listed(["read", "write", "delete"])],
      ["bob", listed(["read"])],
      ["dave", listed(["read"])],
    ]);
    assert.deepEqual(refusal, {
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32602,
        message: 'Tool "delete" is not open to "dave" on server "files" (its policy\'s access)',
      },
    });
    await client.close();
  });
});

describe("access: a 2025 caller's session, request by request", () => {
  /**
   * A front where `holds[user]` is the principal of `user`'s token now, and a 2025 caller on its
   * server "files" sending it.
   */
  function withTokens(holds: Record<string, PrincipalInput>, handler: Handler = {}) {
    const gateway = front(
      (request) => holds[request.headers.get("x-user") ?? ""] ?? new Response(null, { status: 401 }),
      handler,
    );
    const callerAs = (user: string) =>
      new LegacyCaller(
        async (url, init) =>
          await gateway.app.fetch(
            new Request(url, {
              ...init,
              headers: { ...init.headers as Record<string, string>, ...as(user) },
            }),
          ),
        `${LOOPBACK}/mcp/files`,
      );
    return { ...gateway, callerAs };
  }

  test("tools/list on bob's session shows the tools of the token he lists with: write while it has files:write, not once it only has files:read, when his call of write is refused", async () => {
    const holds: Record<string, PrincipalInput> = {
      bob: { subject: "bob", scopes: ["files:read", "files:write"] },
    };
    const { client, callerAs } = withTokens(holds);
    const bob = callerAs("bob");
    await bob.initialize();
    const before = await bob.request(2, "tools/list");
    holds.bob = { subject: "bob", scopes: ["files:read"] };
    const after = await bob.request(3, "tools/list");
    const called = await answerOf(
      await bob.post({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "write", arguments: {} },
      }),
      ["www-authenticate"],
    );
    const listed = (id: number, names: string[]) => ({
      jsonrpc: "2.0",
      id,
      result: { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) },
    });
    assert.deepEqual([before, after, called], [
      listed(2, ["read", "write"]),
      listed(3, ["read"]),
      forbidden(
        'Tool "write" is not open to "bob" on server "files" (its policy\'s access)',
        'Bearer error="insufficient_scope", scope="files:write"',
        4,
      ),
    ]);
    await client.close();
  });

  test("a call on alice's session runs as the token it came with: the handler's ctx.principal has its scopes and claims, not those the session was opened with", async () => {
    const holds: Record<string, PrincipalInput> = { alice: { subject: "alice", scopes: ["files:write"] } };
    const seen: unknown[] = [];
    const { client, callerAs } = withTokens(holds, {
      roots: (ctx) => (seen.push(ctx.principal), { roots: [] }),
      elicitation: () => ({ action: "decline" }),
    });
    const alice = callerAs("alice");
    await alice.initialize();
    holds.alice = { subject: "alice", scopes: ["files:read"], claims: { team: "ops" } };
    const asked = await alice.request(2, "tools/call", { name: "ask", arguments: {} });
    assert.deepEqual([asked, seen], [
      {
        jsonrpc: "2.0",
        id: 2,
        result: {
          content: [{
            type: "text",
            text: JSON.stringify({ where: { roots: [] }, who: { action: "decline" } }),
          }],
        },
      },
      [{ subject: "alice", scopes: ["files:read"], claims: { team: "ops" } }],
    ]);
    await client.close();
  });
});

describe("access: the policy option", () => {
  const base = { server: "files", transport: UPSTREAM };

  test('compilePolicy() compiles access rules: subjects and tools as sets, scopes as a list, tools "*" by default', () => {
    const { access } = compilePolicy({
      ...base,
      access: [{ subjects: ["alice", "bob"], scopes: ["files:read"], tools: ["read"] }, {}],
    });
    assert.deepEqual(access, [
      { subjects: new Set(["alice", "bob"]), scopes: ["files:read"], tools: new Set(["read"]) },
      { subjects: undefined, scopes: [], tools: "*" },
    ]);
    assert.equal(compilePolicy(base).access, undefined);
  });

  test("compilePolicy() refuses a bad access with the exact PolicyError", () => {
    const cases: Array<[unknown, string]> = [
      [{}, '"access" must be a list of access rules { subjects?, scopes?, tools? }, received {}'],
      [["x"], '"access[0]" must be an access rule { subjects?, scopes?, tools? }, received "x"'],
      [[{ subjects: "alice" }], '"access[0].subjects" must be a list of subjects, received "alice"'],
      [[{ subjects: [""] }], '"access[0].subjects[0]" must be a subject, received ""'],
      [[{ scopes: ["a b"] }], '"access[0].scopes[0]" must be a scope, received "a b"'],
      [[{ tools: "all" }], '"access[0].tools" must be "*" or a list of tool names, received "all"'],
      [[{}, { tools: [1] }], '"access[1].tools" must be "*" or a list of tool names, received [1]'],
      [
        [{ who: ["alice"] }],
        '"access[0].who" is not a policy option (expected "subjects", "scopes" or "tools")',
      ],
    ];
    for (const [access, problem] of cases) {
      assert.throws(() => compilePolicy({ ...base, access } as unknown as Policy), {
        name: "PolicyError",
        message: `Policy "files": ${problem}`,
      });
    }
  });
});
