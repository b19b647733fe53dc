// createUpstreamSignIn() on every runtime (workerd included), against a scripted fetch standing in
// for the network: what is sent where, and how a refused token ends. The flow against a real
// authorization server and MCP server is tests/auth/upstream-sign-in-flow.node.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exportPKCS8, generateKeyPair } from "jose";
import { createMemoryTokenStore, type TokenStore } from "../../src/auth/token-store.ts";
import {
  type Authorize,
  createUpstreamSignIn,
  type SignInOverrides,
  type SignInRequest,
  type UpstreamSignIn,
} from "../../src/auth/upstream-sign-in.ts";
import { grantKey, readGrant, takeFlow } from "../../src/auth/authorization-code.ts";
import { SignInRequiredError, UpstreamAuthError } from "../../src/upstream-auth-error.ts";
import { createClient } from "../../src/client/create-client.ts";
import type { ClientError } from "../../src/errors.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { ClientCredentialsAuth, OAuthSignIn, UpstreamAuth } from "../../src/policy/policy.ts";
import type { Fetcher } from "../../src/transport/fetch-with-redirects.ts";
import type { Timers } from "../../src/_internal/timers.ts";
import { drive, FakeTime } from "../_support/fake-time.ts";
import { gate } from "../_support/gate.ts";
import { eventually, within } from "../_support/eventually.ts";

const MCP = "https://mcp.example.com/mcp";
const AS = "https://as.example.com";

/** The MCP server accepts `accepted` tokens only; the AS issues `token-<n>`. Records every request. */
function network(accepted: (token: string) => boolean) {
  const sent: { url: string; authorization: string; body: string }[] = [];
  let issued = 0;
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    const headers = new Headers(init.headers);
    sent.push({ url, authorization: headers.get("authorization") ?? "", body: String(init.body ?? "") });
    if (url === `${AS}/.well-known/oauth-authorization-server`) {
      return Promise.resolve(Response.json({ issuer: AS, token_endpoint: `${AS}/token` }));
    }
    if (url === "https://mcp.example.com/.well-known/oauth-protected-resource/mcp") {
      return Promise.resolve(Response.json({ resource: MCP, authorization_servers: [AS] }));
    }
    if (url === `${AS}/token`) {
      issued++;
      return Promise.resolve(
        Response.json({ access_token: `token-${issued}`, token_type: "Bearer", expires_in: 3600 }),
      );
    }
    const token = /^Bearer (.+)$/.exec(headers.get("authorization") ?? "")?.[1] ?? "";
    if (url.startsWith(MCP) && !accepted(token)) {
      return Promise.resolve(
        new Response(null, { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } }),
      );
    }
    return Promise.resolve(new Response("ok"));
  };
  return { fetch, sent };
}

/** The sign-in of "s" at {@linkcode MCP} with `auth`, on `fetch`, reading `env`, with `clock` and `tokens`. */
function upstreamSignIn(
  auth: UpstreamAuth,
  fetch: Fetcher,
  options: {
    env?: Record<string, string>;
    clock: { now(): number };
    tokens: TokenStore;
    redirectUri?: string;
    timers?: Timers;
  },
): UpstreamSignIn {
  const { transport } = compilePolicy({ server: "s", transport: { url: MCP, auth } });
  if (transport.kind !== "http" || transport.auth === undefined) {
    throw new Error("expected an HTTP transport with auth");
  }
  const { env = {}, clock, tokens, redirectUri, timers } = options;
  return createUpstreamSignIn({
    server: "s",
    transport: { ...transport, auth: transport.auth },
    fetch,
    environment: (name) => env[name],
    clock,
    timers,
    tokens,
    clientName: "test",
    redirectUri,
  });
}

function signIn(
  clientCredentials: ClientCredentialsAuth,
  fetch: Fetcher,
  env: Record<string, string>,
  clock = { now: () => 0 },
) {
  return upstreamSignIn({ clientCredentials }, fetch, {
    env,
    clock,
    tokens: createMemoryTokenStore({ clock }),
  })
    .fetcher();
}

const PRM = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const REDIRECT_URI = "http://127.0.0.1:9/callback";
/** The key of the grant of the client's own sign-in ("" principal) to MCP. */
const GRANT_KEY = grantKey({ server: "s", endpoint: MCP }, "");

/**
 * A grant as the store keeps it, issued to the pre-registered client "c" (the policy's) by AS.
 *
 * @param tokens The access token, refresh token and expiry.
 * @returns The grant.
 */
function storedGrant(tokens: { accessToken: string; refreshToken: string; expiresAt: number }) {
  return {
    ...tokens,
    scopes: [],
    issuer: AS,
    clientId: "c",
    clientSource: "policy",
    redirectUri: REDIRECT_URI,
  };
}

/**
 * The metadata of MCP (at PRM) and of its authorization server AS (authorization code with PKCE
 * S256), as the scripted networks serve them.
 *
 * @param url The URL fetched.
 * @param extra More of the authorization server's metadata.
 * @returns The answer, or `undefined` for any other URL.
 */
function metadataAnswer(url: string, extra: object = {}): Response | undefined {
  if (url === PRM) return Response.json({ resource: MCP, authorization_servers: [AS] });
  if (url !== `${AS}/.well-known/oauth-authorization-server`) return undefined;
  return Response.json({
    issuer: AS,
    authorization_endpoint: `${AS}/authorize`,
    token_endpoint: `${AS}/token`,
    code_challenge_methods_supported: ["S256"],
    ...extra,
  });
}

/**
 * A server signed in to with the authorization code grant: the MCP server takes the tokens in
 * `accepted` only (else a 401 naming its metadata), the AS answers token requests with
 * `answers`, in order. Records every token request's body.
 */
function refreshNetwork(answers: ReadonlyArray<() => Promise<Response>>, accepted: Set<string>) {
  const tokenRequests: string[] = [];
  const fetch: Fetcher = (url, init) => {
    const metadata = metadataAnswer(url);
    if (metadata !== undefined) return Promise.resolve(metadata);
    if (url === `${AS}/token`) {
      tokenRequests.push(String(init.body));
      const answer = answers[tokenRequests.length - 1];
      if (answer === undefined) throw new Error(`token request ${tokenRequests.length} was not expected`);
      return answer();
    }
    const token = /^Bearer (.+)$/.exec(new Headers(init.headers).get("authorization") ?? "")?.[1];
    if (token !== undefined && accepted.has(token)) return Promise.resolve(new Response("ok"));
    const error = token === undefined ? "" : 'error="invalid_token", ';
    return Promise.resolve(
      new Response(null, {
        status: 401,
        headers: { "www-authenticate": `Bearer ${error}resource_metadata="${PRM}"` },
      }),
    );
  };
  return { fetch, tokenRequests };
}

/**
 * The sign-in of an authorization code server (the pre-registered client "c"), on fake time.
 *
 * @param fetch The network.
 * @param tokens The store.
 * @param time The clock and the timers.
 * @returns Its fetcher of the client's own sign-in.
 */
function codeSignIn(fetch: Fetcher, tokens: TokenStore, time: FakeTime): Fetcher {
  const auth = { oauth: { clientId: "c", issuer: AS } };
  return upstreamSignIn(auth, fetch, { clock: time, timers: time, tokens }).fetcher();
}

/**
 * How a call that needs no fake time is driven: time never moves, so a slow machine gives its
 * token request real time rather than reaching the request's 25 s deadline.
 */
const AT_ONCE = { untilMs: 0 } as const;

/** The token response of a refresh: "fresh", rotating the refresh token to "rt-2". */
const FRESH = { access_token: "fresh", refresh_token: "rt-2", token_type: "Bearer", expires_in: 3600 };
/** The body of a refresh with "rt-1". */
const REFRESH_RT_1 = `resource=${
  encodeURIComponent(MCP)
}&refresh_token=rt-1&grant_type=refresh_token&client_id=c`;
/** How a refresh answered HTTP 503 fails. */
const UNAVAILABLE =
  `refreshing the token failed: the token request to the authorization server "${AS}" failed: "response" is not a conform Token Endpoint response (unexpected HTTP status code) (HTTP 503)`;

/** The grant the refresh tests start from: expired at 9 999 999 ms, its refresh token "rt-1". */
const EXPIRED = storedGrant({ accessToken: "old", refreshToken: "rt-1", expiresAt: 9_999_999 });

/**
 * A store on fake time holding a grant as the client's own grant to MCP.
 *
 * @param time The store's clock.
 * @param grant The grant.
 * @returns The store.
 */
async function storeHolding(time: FakeTime, grant: object): Promise<TokenStore> {
  const tokens = createMemoryTokenStore({ clock: time });
  await tokens.set(GRANT_KEY, JSON.stringify(grant));
  return tokens;
}

/** The client's own grant to MCP in the store, parsed (`null` when there is none). */
async function grantIn(tokens: TokenStore): Promise<unknown> {
  return JSON.parse((await tokens.get(GRANT_KEY)) ?? "null");
}

/** How a POST to MCP ended: its status and body, or its error's name and message. */
function call(fetcher: Fetcher): Promise<string> {
  return fetcher(MCP, { method: "POST", body: "{}" }).then(
    async (answer) => `HTTP ${answer.status} ${await answer.text()}`,
    (error: Error) => `${error.name}: ${error.message}`,
  );
}

/**
 * Two instances, a and b, sharing a store that holds `grant`, where a's call has made a refresh
 * held at the token endpoint until `release()`, then answered HTTP 503; the next refresh gets FRESH.
 *
 * @param time The clock and timers of both, and of the store.
 * @param grant The grant the store holds.
 * @returns The store, the token requests' bodies, b's fetcher, how a's call ends, and `release`.
 */
async function refreshHeldOnA(time: FakeTime, grant: object) {
  const tokens = await storeHolding(time, grant);
  const held = gate();
  const { fetch, tokenRequests } = refreshNetwork([
    async () => (await held.opened, Response.json({ error: "temporarily_unavailable" }, { status: 503 })),
    () => Promise.resolve(Response.json(FRESH)),
  ], new Set(["fresh"]));
  const a = codeSignIn(fetch, tokens, time);
  const b = codeSignIn(fetch, tokens, time);
  const first = call(a);
  await eventually("a's token request", () => tokenRequests.length === 1 || undefined);
  return { tokens, tokenRequests, b, first, release: held.open };
}

describe("createUpstreamSignIn()", () => {
  test("signs in on the 401 with client_secret_basic and the resource, and sends the token to the server's origin only", async () => {
    const { fetch, sent } = network((token) => token === "token-1");
    const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, fetch, { S: "p" });
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    assert.equal(await (await fetcher("https://elsewhere.example.com/mcp", { method: "GET" })).text(), "ok");
    assert.deepEqual(sent.map(({ url, authorization }) => [url, authorization]), [
      [MCP, ""],
      ["https://mcp.example.com/.well-known/oauth-protected-resource/mcp", ""],
      [`${AS}/.well-known/oauth-authorization-server`, ""],
      [`${AS}/token`, `Basic ${btoa("c:p")}`],
      [MCP, "Bearer token-1"],
      ["https://elsewhere.example.com/mcp", ""],
    ]);
    assert.equal(sent[3]?.body, `resource=${encodeURIComponent(MCP)}&grant_type=client_credentials`);
  });

  for (
    const [offered, challenge, outcome] of [
      [
        "Bearer and DPoP (RFC 9449 §7.1, its parameters in the Bearer challenge): signs in with Bearer",
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", DPoP algs="ES256"',
        "ok",
      ],
      [
        "DPoP alone: the sign-in is refused",
        'DPoP algs="ES256"',
        `UpstreamAuthError: sign-in refused: the server asks for DPoP-bound tokens, but its authorization server "${AS}" does not list "ES256" in dpop_signing_alg_values_supported`,
      ],
    ] as const
  ) {
    test(`an authorization server that cannot bind tokens, for a server offering ${offered}`, async () => {
      const { fetch, sent } = network((token) => token === "token-1");
      const challenging: Fetcher = async (url, init) => {
        const answer = await fetch(url, init);
        if (answer.status !== 401) return answer;
        return new Response(null, { status: 401, headers: { "www-authenticate": challenge } });
      };
      const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, challenging, { S: "p" });
      const answered = await fetcher(MCP, { method: "POST", body: "{}" }).then(
        (answer) => answer.text(),
        (error: Error) => `${error.name}: ${error.message}`,
      );
      assert.deepEqual([answered, sent.map(({ url, authorization }) => [url, authorization])], [
        outcome,
        [
          [MCP, ""],
          ["https://mcp.example.com/.well-known/oauth-protected-resource/mcp", ""],
          [`${AS}/.well-known/oauth-authorization-server`, ""],
          ...(outcome === "ok" ? [[`${AS}/token`, `Basic ${btoa("c:p")}`], [MCP, "Bearer token-1"]] : []),
        ],
      ]);
    });
  }

  test("a second 401 fails with what was wrong, never the token", async () => {
    const { fetch } = network(() => false);
    const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, fetch, { S: "p" });
    await assert.rejects(
      fetcher(MCP, { method: "POST", body: "{}" }),
      new UpstreamAuthError(
        'sign-in failed: the server refused the access token it was just issued (HTTP 401, error "invalid_token")',
      ),
    );
  });

  test("a token request whose connection fails says why, from the fetch error's cause", async () => {
    const { fetch } = network((token) => token === "token-1");
    // A fetch fails as fetch does: "fetch failed", with what went wrong in its cause.
    const failing: Fetcher = (url, init) =>
      url === `${AS}/token`
        ? Promise.reject(new TypeError("fetch failed", { cause: new Error("other side closed") }))
        : fetch(url, init);
    const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, failing, { S: "p" });
    await assert.rejects(
      fetcher(MCP, { method: "POST", body: "{}" }),
      new UpstreamAuthError(
        `sign-in failed: the token request to the authorization server "${AS}" failed: fetch failed (other side closed)`,
      ),
    );
  });

  test("private_key_jwt: a client assertion signed with the PKCS#8 key from the environment", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const { fetch, sent } = network((token) => token === "token-1");
    const fetcher = signIn({ clientId: "c", privateKeyEnv: "K" }, fetch, {
      K: await exportPKCS8(privateKey),
    });
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    const form = new URLSearchParams(sent[3]?.body);
    assert.deepEqual([...form.keys()], [
      "resource",
      "grant_type",
      "client_id",
      "client_assertion_type",
      "client_assertion",
    ]);
    const [header = "", payload = ""] = (form.get("client_assertion") ?? "").split(".");
    const decode = (part: string) => JSON.parse(atob(part.replaceAll("-", "+").replaceAll("_", "/")));
    assert.deepEqual(decode(header), { alg: "ES256" });
    const claims = decode(payload);
    assert.deepEqual([claims.iss, claims.sub, claims.aud], ["c", "c", AS]);
  });

  test("a server on a public host that names a loopback URL in its challenge or its metadata: refused, and nothing is sent there", async () => {
    const internal = "http://127.0.0.1:6379/internal/admin?x=1";
    const cases: ReadonlyArray<
      { challenge: string; documents: Record<string, unknown>; refusal: string; sent: readonly string[] }
    > = [
      {
        challenge: `Bearer resource_metadata="${internal}"`,
        documents: {},
        refusal:
          `the resource_metadata URL of the challenge must be on a public host, as the server "https://mcp.example.com" is, received "${
            internal.replace("?x=1", "?x=…")
          }"`,
        sent: [`POST ${MCP}`],
      },
      {
        challenge: 'Bearer error="invalid_token"',
        documents: {
          "https://mcp.example.com/.well-known/oauth-protected-resource/mcp": {
            resource: MCP,
            authorization_servers: [AS],
          },
          [`${AS}/.well-known/oauth-authorization-server`]: { issuer: AS, token_endpoint: internal },
        },
        refusal:
          `the authorization server's token_endpoint must be on a public host, as the server "https://mcp.example.com" is, received "${
            internal.replace("?x=1", "?x=…")
          }"`,
        sent: [
          `POST ${MCP}`,
          "GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
          `GET ${AS}/.well-known/oauth-authorization-server`,
        ],
      },
    ];
    for (const { challenge, documents, refusal, sent: expected } of cases) {
      const sent: string[] = [];
      const fetch: Fetcher = (url, init) => {
        sent.push(`${init.method ?? "GET"} ${url}`);
        const document = documents[url];
        if (document !== undefined) return Promise.resolve(Response.json(document));
        return Promise.resolve(
          new Response(null, { status: 401, headers: { "www-authenticate": challenge } }),
        );
      };
      const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, fetch, { S: "p" });
      await assert.rejects(fetcher(MCP, { method: "POST", body: "{}" }), new UpstreamAuthError(refusal));
      assert.deepEqual(sent, expected);
    }
  });

  test("begin() asks the server for its challenge without a token, and refuses a loopback resource_metadata of a server on a public host: nothing is sent there", async () => {
    const internal = "http://127.0.0.1:6379/internal/admin?x=1";
    const sent: string[] = [];
    const fetch: Fetcher = (url, init) => {
      sent.push(
        `${init.method ?? "GET"} ${url} ${new Headers(init.headers).get("authorization") ?? "no token"}`,
      );
      return Promise.resolve(
        new Response(null, {
          status: 401,
          headers: { "www-authenticate": `Bearer resource_metadata="${internal}"` },
        }),
      );
    };
    const { transport } = compilePolicy({ server: "s", transport: { url: MCP, auth: { oauth: {} } } });
    if (transport.kind !== "http" || transport.auth === undefined) {
      throw new Error("expected an HTTP transport with auth");
    }
    const signIn = createUpstreamSignIn({
      server: "s",
      transport: { ...transport, auth: transport.auth },
      fetch,
      environment: () => undefined,
      clock: Date,
      tokens: createMemoryTokenStore(),
      clientName: "test",
      redirectUri: "http://127.0.0.1:9/callback",
    });
    await assert.rejects(
      signIn.begin(),
      new UpstreamAuthError(
        `the resource_metadata URL of the challenge must be on a public host, as the server "https://mcp.example.com" is, received "${
          internal.replace("?x=1", "?x=…")
        }"`,
      ),
    );
    assert.deepEqual(sent, [`POST ${MCP} no token`]);
  });

  test("replaces a token 30 seconds before it expires, not at its expiry", async () => {
    const { fetch, sent } = network((token) => token === "token-1" || token === "token-2");
    let now = 0;
    const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, fetch, { S: "p" }, { now: () => now });
    const bearer = async () => {
      await fetcher(MCP, { method: "POST", body: "{}" });
      return sent.at(-1)?.authorization;
    };
    assert.equal(await bearer(), "Bearer token-1"); // expires in 3600 s, at 3 600 000 ms
    now = 3_600_000 - 30_001;
    assert.equal(await bearer(), "Bearer token-1");
    now = 3_600_000 - 30_000;
    assert.equal(await bearer(), "Bearer token-2");
    assert.equal(sent.filter(({ url }) => url === `${AS}/token`).length, 2);
  });

  test("a stored grant is renewed by the time first set for it, however often it is read again: 30 seconds before its expiry, not at it", async () => {
    // Stored at 10 000 000 with 600 s left: first seen then, it is due 30 s before its expiry.
    const time = new FakeTime(10_000_000);
    const expiresAt = 10_000_000 + 600_000;
    const tokens = await storeHolding(
      time,
      storedGrant({ accessToken: "old", refreshToken: "rt-1", expiresAt }),
    );
    const { fetch, tokenRequests } = refreshNetwork(
      [() => Promise.resolve(Response.json(FRESH))],
      new Set(["old", "fresh"]),
    );
    const fetcher = codeSignIn(fetch, tokens, time);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    // Each request after the grant is due reads the store again: none may count it as new.
    for (const at of [expiresAt - 45_000, expiresAt - 31_000]) {
      await time.advance(at - time.now());
      assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
      assert.deepEqual(tokenRequests, [], `at ${at - expiresAt} ms`);
    }
    await time.advance(expiresAt - 29_000 - time.now());
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    assert.deepEqual(tokenRequests, [REFRESH_RT_1]);
    assert.equal(((await grantIn(tokens)) as { accessToken: string }).accessToken, "fresh");
  });

  test("a refresh that hands back the same access token with a new expiry is a new grant: it is sent, and renewed only near its own expiry", async () => {
    const time = new FakeTime(10_000_000);
    const expiresAt = 10_000_000 + 600_000;
    const tokens = await storeHolding(
      time,
      storedGrant({ accessToken: "old", refreshToken: "rt-1", expiresAt }),
    );
    const same = { access_token: "old", refresh_token: "rt-2", token_type: "Bearer", expires_in: 3600 };
    const { fetch, tokenRequests } = refreshNetwork(
      [() => Promise.resolve(Response.json(same))],
      new Set(["old"]),
    );
    const fetcher = codeSignIn(fetch, tokens, time);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    await time.advance(expiresAt - 29_000 - time.now());
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    await time.advance(60_000);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    assert.deepEqual(tokenRequests, [REFRESH_RT_1]);
  });

  test("a refresh that failed (HTTP 503) is made again by the next request, at once, with the same refresh token, and the grant is kept", async () => {
    const time = new FakeTime(10_000_000);
    const tokens = await storeHolding(time, EXPIRED);
    const { fetch, tokenRequests } = refreshNetwork([
      () => Promise.resolve(Response.json({ error: "temporarily_unavailable" }, { status: 503 })),
      () => Promise.resolve(Response.json(FRESH)),
    ], new Set(["fresh"]));
    const fetcher = codeSignIn(fetch, tokens, time);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), `UpstreamAuthError: ${UNAVAILABLE}`);
    assert.deepEqual(await grantIn(tokens), EXPIRED);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    assert.deepEqual(tokenRequests, [REFRESH_RT_1, REFRESH_RT_1]);
    assert.deepEqual(
      await grantIn(tokens),
      storedGrant({ accessToken: "fresh", refreshToken: "rt-2", expiresAt: 10_000_000 + 3_600_000 }),
    );
    assert.equal(time.now(), 10_000_000); // no wait for the failed refresh's claim
  });

  test("a refresh waiting for another instance's, which fails (HTTP 503), fails with that failure and keeps the grant; the next refresh is made", async () => {
    const time = new FakeTime(10_000_000);
    const { tokens, tokenRequests, b, first, release } = await refreshHeldOnA(time, EXPIRED);
    const second = call(b);
    // Two timers: a's token request's deadline, and b's first poll of the store.
    await eventually("b waiting for a's refresh", () => time.pending === 2 || undefined);
    release();
    assert.equal(await first, `UpstreamAuthError: ${UNAVAILABLE}`);
    assert.equal(
      await drive(time, second),
      `UpstreamAuthError: the refresh this request waited for failed: ${UNAVAILABLE}`,
    );
    assert.equal(time.now(), 10_000_100); // one poll of the store
    assert.deepEqual(await grantIn(tokens), EXPIRED);
    assert.equal(await drive(time, call(b), AT_ONCE), "HTTP 200 ok");
    assert.deepEqual(tokenRequests, [REFRESH_RT_1, REFRESH_RT_1]);
    assert.deepEqual(
      await grantIn(tokens),
      storedGrant({ accessToken: "fresh", refreshToken: "rt-2", expiresAt: 10_000_100 + 3_600_000 }),
    );
  });

  test("a second refresh of a refresh token the server keeps (RFC 6749 §6) is made at once, with it, and the grant is kept", async () => {
    const time = new FakeTime(10_000_000);
    const tokens = await storeHolding(time, EXPIRED);
    const accepted = new Set(["a1", "a2"]);
    const { fetch, tokenRequests } = refreshNetwork([
      () => Promise.resolve(Response.json({ access_token: "a1", token_type: "Bearer", expires_in: 3600 })),
      () => Promise.resolve(Response.json({ access_token: "a2", token_type: "Bearer", expires_in: 3600 })),
    ], accepted);
    const fetcher = codeSignIn(fetch, tokens, time);
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    accepted.delete("a1"); // revoked: the refresh token still holds
    assert.equal(await drive(time, call(fetcher), AT_ONCE), "HTTP 200 ok");
    assert.deepEqual(tokenRequests, [REFRESH_RT_1, REFRESH_RT_1]);
    assert.deepEqual(
      await grantIn(tokens),
      storedGrant({ accessToken: "a2", refreshToken: "rt-1", expiresAt: 10_000_000 + 3_600_000 }),
    );
    assert.equal(time.now(), 10_000_000); // no wait for the first refresh's claim
  });

  for (const [answer, ended] of [[FRESH, "renewed"], [{ error: "invalid_grant" }, "refused"]] as const) {
    test(`a refresh that ends ${ended} after a newer grant (a step-up's) was stored meanwhile leaves that grant stored, and the request is answered`, async () => {
      const time = new FakeTime(10_000_000);
      const tokens = await storeHolding(time, EXPIRED);
      const held = gate();
      const { fetch, tokenRequests } = refreshNetwork([
        async () => (await held.opened, Response.json(answer, { status: ended === "refused" ? 400 : 200 })),
      ], new Set(["fresh", "admin"]));
      const result = call(codeSignIn(fetch, tokens, time));
      await eventually("the refresh's token request", () => tokenRequests.length === 1 || undefined);
      const stepUp = storedGrant({
        accessToken: "admin",
        refreshToken: "rt-admin",
        expiresAt: 10_000_000 + 3_600_000,
      });
      await tokens.set(GRANT_KEY, JSON.stringify(stepUp));
      held.open();
      assert.equal(await result, "HTTP 200 ok");
      assert.deepEqual(tokenRequests, [REFRESH_RT_1]);
      assert.deepEqual(await grantIn(tokens), stepUp);
    });
  }

  test("a refresh whose token request has no answer within 25 s fails, and the request waiting for it with it, inside the claim: one refresh token is never in two token requests at once", async () => {
    const time = new FakeTime(10_000_000);
    // Not expired: the server refuses it, and both instances refresh it after the 401.
    const tokens = await storeHolding(
      time,
      storedGrant({ accessToken: "old", refreshToken: "rt-1", expiresAt: 10_000_000 + 3_600_000 }),
    );
    const { fetch: answered, tokenRequests } = refreshNetwork([
      () => new Promise<Response>(() => {}),
      () => Promise.resolve(Response.json(FRESH)),
    ], new Set(["fresh"]));
    let inFlight = 0;
    let most = 0;
    // As fetch does: a request whose signal fires fails with its reason.
    const fetch: Fetcher = async (url, init) => {
      if (url !== `${AS}/token`) return await answered(url, init);
      most = Math.max(most, ++inFlight);
      try {
        return await new Promise<Response>((resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
          answered(url, init).then(resolve, reject);
        });
      } finally {
        inFlight--;
      }
    };
    const a = codeSignIn(fetch, tokens, time);
    const b = codeSignIn(fetch, tokens, time);
    const first = call(a);
    await eventually("a's token request", () => tokenRequests.length === 1 || undefined);
    const second = call(b);
    // b's way to its wait (the 401, the claim) takes real work: time moves only once b waits, or
    // a's deadline would pass first and b would never see a's refresh.
    await eventually("b waiting for a's refresh", () => time.pending === 2 || undefined);
    const waiting = await drive(time, second);
    const unanswered =
      `refreshing the token failed: the token request to the authorization server "${AS}" failed: no answer within 25000 ms`;
    assert.deepEqual([await first, waiting, time.now(), await grantIn(tokens)], [
      `UpstreamAuthError: ${unanswered}`,
      `UpstreamAuthError: the refresh this request waited for failed: ${unanswered}`,
      10_025_000,
      storedGrant({ accessToken: "old", refreshToken: "rt-1", expiresAt: 10_000_000 + 3_600_000 }),
    ]);
    assert.deepEqual([await drive(time, call(b), AT_ONCE), most, tokenRequests], ["HTTP 200 ok", 1, [
      REFRESH_RT_1,
      REFRESH_RT_1,
    ]]);
  });

  test("a refresh waiting for another instance's that never ends makes the refresh itself once its claim has expired (30 s), and the grant is kept", async () => {
    const time = new FakeTime(10_000_000);
    // Not expired: the server refuses it, and both instances refresh it after the 401.
    const refused = storedGrant({
      accessToken: "old",
      refreshToken: "rt-1",
      expiresAt: 10_000_000 + 3_600_000,
    });
    // a's instance stops while its refresh is held at the token endpoint.
    const { tokens, tokenRequests, b, first, release } = await refreshHeldOnA(time, refused);
    const second = call(b);
    // Time moves only once b waits (its way there takes real work), and stops at the claim's
    // expiry: b's own token request then has real time to end, never reaching its 25 s deadline
    // however slowly the machine runs it.
    await eventually("b waiting for a's refresh", () => time.pending === 2 || undefined);
    assert.equal(await drive(time, second, { untilMs: 30_000 }), "HTTP 200 ok");
    assert.equal(time.now(), 10_000_000 + 30_000); // 300 polls of the store, 100 ms apart
    assert.deepEqual(tokenRequests, [REFRESH_RT_1, REFRESH_RT_1]);
    const renewed = storedGrant({
      accessToken: "fresh",
      refreshToken: "rt-2",
      expiresAt: 10_030_000 + 3_600_000,
    });
    assert.deepEqual(await grantIn(tokens), renewed);
    release();
    assert.equal(await first, `UpstreamAuthError: ${UNAVAILABLE}`);
    assert.deepEqual(await grantIn(tokens), renewed);
  });
});

const CIMD = "https://gate.example.com/oauth/client-metadata.json";
const REDIRECT = "https://gate.example.com/oauth/callback";
/** Where a client of sluice's own registration at {@linkcode AS} for {@linkcode REDIRECT} is kept. */
const REGISTRATION_KEY = `client|s|${encodeURIComponent(AS)}|${encodeURIComponent(REDIRECT)}`;

/** A token request as the authorization server received it: its Authorization header and its form. */
interface TokenRequest {
  readonly authorization: string;
  readonly form: readonly (readonly [string, string])[];
}

/**
 * A server taking the authorization code grant's tokens `at-<n>`, and its authorization server
 * with `metadata` added to its own, answering each token request with `token(form)` (by default
 * `at-<n>` and `rt-<n>` for 60 s). Records the token and registration requests.
 */
function codeNetwork(
  metadata: Record<string, unknown>,
  token?: (form: URLSearchParams) => Response | undefined,
) {
  const tokenRequests: TokenRequest[] = [];
  const registrations: unknown[] = [];
  let issued = 0;
  let registered = 0;
  const fetch: Fetcher = (url, init) => {
    const headers = new Headers(init.headers);
    const found = metadataAnswer(url, metadata);
    if (found !== undefined) return Promise.resolve(found);
    if (url === `${AS}/token`) {
      const form = new URLSearchParams(String(init.body));
      tokenRequests.push({ authorization: headers.get("authorization") ?? "", form: [...form] });
      const answer = token?.(form);
      if (answer !== undefined) return Promise.resolve(answer);
      issued++;
      return Promise.resolve(Response.json({
        access_token: `at-${issued}`,
        refresh_token: `rt-${issued}`,
        token_type: "Bearer",
        expires_in: 60,
      }));
    }
    if (url === `${AS}/register`) {
      registrations.push(JSON.parse(String(init.body)));
      registered++;
      return Promise.resolve(
        Response.json({ client_id: `client-${registered}`, client_secret: `secret-${registered}` }, {
          status: 201,
        }),
      );
    }
    if (/^Bearer at-/.test(headers.get("authorization") ?? "")) return Promise.resolve(new Response("ok"));
    return Promise.resolve(
      new Response(null, {
        status: 401,
        headers: { "www-authenticate": `Bearer resource_metadata="${PRM}"` },
      }),
    );
  };
  return { fetch, tokenRequests, registrations };
}

/** A refresh request of a client with no client authentication, as the authorization server receives it. */
function publicRefresh(refreshToken: string, clientId: string): TokenRequest {
  return {
    authorization: "",
    form: [["resource", MCP], ["refresh_token", refreshToken], ["grant_type", "refresh_token"], [
      "client_id",
      clientId,
    ]],
  };
}

/**
 * A code exchange with {@linkcode REDIRECT}, as the authorization server receives it: the client
 * id in the form (no client authentication), or a secret in the Basic header.
 */
function codeExchange(
  exchange: { code: string; verifier: string; clientId: string; secret?: string },
): TokenRequest {
  const { code, verifier, clientId, secret } = exchange;
  const form: [string, string][] = [
    ["resource", MCP],
    ["redirect_uri", REDIRECT],
    ["code", code],
    ["code_verifier", verifier],
    ["grant_type", "authorization_code"],
  ];
  return secret === undefined
    ? { authorization: "", form: [...form, ["client_id", clientId]] }
    : { authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, form };
}

/** The tokens `at-<n>` and `rt-<n>` of {@linkcode codeNetwork} issued at `now`, as their grant records them. */
function issuedGrant(n: number, now: number) {
  return { accessToken: `at-${n}`, refreshToken: `rt-${n}`, expiresAt: now + 60_000, scopes: [], issuer: AS };
}

/** The callback of the flow of `url` (an authorization URL) with `code`, as the person's browser comes back. */
function callbackOf(url: string, code: string): URL {
  const callback = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
  callback.searchParams.set("code", code);
  callback.searchParams.set("state", new URL(url).searchParams.get("state") ?? "");
  return callback;
}

/**
 * The fetcher of "alice" with `overrides`, whose person signs in at once: the browser comes back
 * with `code-<n>` for the n-th sign-in, and the flow is completed. Records the client id of each
 * authorization URL and the verifier of each flow.
 */
function signingFetcher(signIn: UpstreamSignIn, tokens: TokenStore, overrides: SignInOverrides) {
  const clientIds: (string | null)[] = [];
  const verifiers: string[] = [];
  const fetcher = signIn.fetcher("alice", {
    ...overrides,
    authorize: async (request) => {
      clientIds.push(new URL(request.url).searchParams.get("client_id"));
      const callback = callbackOf(request.url, `code-${clientIds.length}`);
      const flow = await takeFlow(tokens, callback, "s");
      verifiers.push(flow.verifier);
      await signIn.complete(flow, callback);
    },
  });
  return { fetcher, clientIds, verifiers };
}

describe("createUpstreamSignIn(): the authorization code grant's client", () => {
  test("a grant signed in with the fetcher's Client ID Metadata Document (the gateway's) is refreshed past its lifetime as that client, with no client authentication", async () => {
    const { fetch, tokenRequests } = codeNetwork({
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ["none"],
    });
    let now = 1_000_000;
    const clock = { now: () => now };
    const tokens = createMemoryTokenStore({ clock });
    const signIn = upstreamSignIn({ oauth: {} }, fetch, { clock, tokens });
    const { fetcher, clientIds, verifiers } = signingFetcher(signIn, tokens, {
      redirectUri: REDIRECT,
      clientMetadataUrl: CIMD,
    });
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    now += 60_000; // the access token has expired; its refresh token is good
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    assert.deepEqual(clientIds, [CIMD]);
    assert.deepEqual(tokenRequests, [
      codeExchange({ code: "code-1", verifier: verifiers[0] ?? "", clientId: CIMD }),
      publicRefresh("rt-1", CIMD),
    ]);
    assert.deepEqual(await readGrant(tokens, grantKey({ server: "s", endpoint: MCP }, "alice")), {
      ...issuedGrant(2, now),
      clientId: CIMD,
      clientSource: "metadata-document",
      redirectUri: REDIRECT,
    });
  });

  test("a grant stored without its client's source is refreshed as before (a metadata document's when its client id is the sign-in's metadata document URL), and the new grant records it", async () => {
    const { fetch, tokenRequests } = codeNetwork({ client_id_metadata_document_supported: true });
    const now = 1_000_000;
    const clock = { now: () => now };
    const tokens = createMemoryTokenStore({ clock });
    const key = grantKey({ server: "s", endpoint: MCP }, "alice");
    const old = { accessToken: "old", refreshToken: "rt-0", expiresAt: now, scopes: [], issuer: AS };
    await tokens.set(key, JSON.stringify({ ...old, clientId: CIMD, redirectUri: REDIRECT }));
    const fetcher = upstreamSignIn({ oauth: { clientMetadataUrl: CIMD } }, fetch, { clock, tokens })
      .fetcher("alice", { redirectUri: REDIRECT });
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    assert.deepEqual(tokenRequests, [publicRefresh("rt-0", CIMD)]);
    assert.deepEqual(await readGrant(tokens, key), {
      ...issuedGrant(1, now),
      clientId: CIMD,
      clientSource: "metadata-document",
      redirectUri: REDIRECT,
    });
  });

  test("a registration the authorization server refuses fails the sign-in with its error and its description", async () => {
    const network = codeNetwork({
      registration_endpoint: `${AS}/register`,
      token_endpoint_auth_methods_supported: ["none"],
    });
    const refused = Response.json(
      { error: "invalid_redirect_uri", error_description: "redirect not allowed" },
      { status: 400 },
    );
    const fetch: Fetcher = (url, init) =>
      url === `${AS}/register` ? Promise.resolve(refused.clone()) : network.fetch(url, init);
    const clock = { now: () => 1_000_000 };
    const tokens = createMemoryTokenStore({ clock });
    const { fetcher } = signingFetcher(upstreamSignIn({ oauth: {} }, fetch, { clock, tokens }), tokens, {
      redirectUri: REDIRECT,
    });
    await assert.rejects(
      fetcher(MCP, { method: "POST", body: "{}" }),
      new UpstreamAuthError(
        `client registration failed: the authorization server "${AS}" refused the registration with HTTP 400, error "invalid_redirect_uri" ("redirect not allowed")`,
      ),
    );
  });

  test("a refresh refused with invalid_client for a client of sluice's own registration fails the call saying so and drops the registration: the next call registers anew and signs in as the new client", async () => {
    const { fetch, tokenRequests, registrations } = codeNetwork(
      { registration_endpoint: `${AS}/register`, token_endpoint_auth_methods_supported: ["none"] },
      (form) =>
        form.get("client_id") === "gone"
          ? Response.json({ error: "invalid_client" }, { status: 401 })
          : undefined,
    );
    const now = 1_000_000;
    const clock = { now: () => now };
    const tokens = createMemoryTokenStore({ clock });
    const gone = { issuer: AS, clientId: "gone", method: "none", source: "registration" };
    await tokens.set(REGISTRATION_KEY, JSON.stringify(gone));
    const key = grantKey({ server: "s", endpoint: MCP }, "alice");
    const old = { accessToken: "old", refreshToken: "rt-0", expiresAt: now, scopes: [], issuer: AS };
    await tokens.set(
      key,
      JSON.stringify({ ...old, clientId: "gone", clientSource: "registration", redirectUri: REDIRECT }),
    );
    const signIn = upstreamSignIn({ oauth: {} }, fetch, { clock, tokens });
    const { fetcher, clientIds, verifiers } = signingFetcher(signIn, tokens, { redirectUri: REDIRECT });
    await assert.rejects(
      fetcher(MCP, { method: "POST", body: "{}" }),
      new UpstreamAuthError(
        `refreshing the token failed: the authorization server "${AS}" refused the token request with HTTP 401, error "invalid_client"; it no longer knows the client "gone" that sluice registered with it, so the next sign-in registers anew`,
      ),
    );
    assert.equal(await tokens.get(REGISTRATION_KEY), undefined);
    assert.equal(await (await fetcher(MCP, { method: "POST", body: "{}" })).text(), "ok");
    assert.deepEqual(registrations, [{
      client_name: "test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "web",
    }]);
    assert.deepEqual(clientIds, ["client-1"]);
    assert.deepEqual(tokenRequests, [
      publicRefresh("rt-0", "gone"),
      codeExchange({ code: "code-1", verifier: verifiers[0] ?? "", clientId: "client-1" }),
    ]);
    assert.deepEqual(JSON.parse((await tokens.get(REGISTRATION_KEY)) ?? "null"), {
      issuer: AS,
      clientId: "client-1",
      clientSecret: "secret-1",
      method: "none",
      source: "registration",
    });
    assert.deepEqual(await readGrant(tokens, key), {
      ...issuedGrant(1, now),
      clientId: "client-1",
      clientSource: "registration",
      redirectUri: REDIRECT,
    });
  });

  /** A sign-in alice began on `fetch`, with the flow its callback (`code-1`) completes. */
  async function beganCodeSignIn(oauth: OAuthSignIn, fetch: Fetcher, env: Record<string, string>) {
    const clock = { now: () => 1_000_000 };
    const tokens = createMemoryTokenStore({ clock });
    const signIn = upstreamSignIn({ oauth }, fetch, { env, clock, tokens, redirectUri: REDIRECT });
    const first = await signIn.begin("alice");
    const callback = callbackOf(first.url, "code-1");
    return { signIn, tokens, first, callback, flow: await takeFlow(tokens, callback, "s") };
  }

  const refusedClients = [
    {
      name: "a client of sluice's own registration is dropped: the next sign-in registers anew",
      oauth: {},
      clientIds: ["client-1", "client-2"],
      exchange: { clientId: "client-1", secret: "secret-1" },
      advice:
        `it no longer knows the client "client-1" that sluice registered with it, so the next sign-in registers anew`,
      registrations: 2,
    },
    {
      name: "the policy's client is kept, and the error says to check it",
      oauth: { clientId: "sluice", issuer: AS, clientSecretEnv: "S" },
      clientIds: ["sluice", "sluice"],
      exchange: { clientId: "sluice", secret: "p" },
      advice:
        `check that the policy's client "sluice" (transport.auth.oauth.clientId, and its secret in clientSecretEnv if it has one) is registered with "${AS}"`,
      registrations: 0,
    },
  ] as const;
  for (const refused of refusedClients) {
    test(`a code exchange refused with a 401 Basic challenge (invalid_client) fails the sign-in: ${refused.name}`, async () => {
      const { fetch, tokenRequests, registrations } = codeNetwork(
        {
          registration_endpoint: `${AS}/register`,
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
        },
        () => new Response(null, { status: 401, headers: { "www-authenticate": 'Basic realm="as"' } }),
      );
      const { signIn, tokens, first, callback, flow } = await beganCodeSignIn(refused.oauth, fetch, {
        S: "p",
      });
      await assert.rejects(
        signIn.complete(flow, callback),
        new UpstreamAuthError(
          `sign-in failed: the authorization server "${AS}" refused the token request with HTTP 401, error "invalid_client"; ${refused.advice}`,
        ),
      );
      assert.deepEqual(tokenRequests, [
        codeExchange({ code: "code-1", verifier: flow.verifier, ...refused.exchange }),
      ]);
      assert.equal(await tokens.get(REGISTRATION_KEY), undefined);
      const second = await signIn.begin("alice");
      assert.deepEqual(
        [first.url, second.url].map((url) => new URL(url).searchParams.get("client_id")),
        refused.clientIds,
      );
      assert.equal(registrations.length, refused.registrations);
    });
  }

  test("a policy's client whose issuer differs from the authorization server's only in a trailing slash is told to write it as the server does; another issuer, to register there", async () => {
    const { fetch } = codeNetwork({});
    const begin = (issuer: string) => beganCodeSignIn({ clientId: "sluice", issuer }, fetch, {});
    const head = `sign-in refused: the policy's client "sluice" is registered with`;
    await assert.rejects(
      begin(`${AS}/`),
      new UpstreamAuthError(
        `${head} "${AS}/" (transport.auth.oauth.issuer), but the authorization server's issuer is "${AS}": issuers are compared as written, so write it so in the policy`,
      ),
    );
    await assert.rejects(
      begin("https://old-as.example.com"),
      new UpstreamAuthError(
        `${head} "https://old-as.example.com" (transport.auth.oauth.issuer), but the server now names the authorization server "${AS}"; register a client there and update the policy`,
      ),
    );
  });

  test("a sign-in whose client secret is not in the environment fails before the person is sent to sign in, saying so; one gone by the code exchange fails it and sends nothing", async () => {
    const { fetch, tokenRequests } = codeNetwork(
      { token_endpoint_auth_methods_supported: ["client_secret_basic"] },
      () => new Response(null, { status: 500 }),
    );
    const oauth = { clientId: "sluice", issuer: AS, clientSecretEnv: "UNSET" };
    const unset = new UpstreamAuthError(
      'sign-in failed: the environment variable "UNSET" named by "transport.auth.oauth.clientSecretEnv" is not set',
    );
    await assert.rejects(beganCodeSignIn(oauth, fetch, {}), unset);
    const env: Record<string, string> = { UNSET: "p" };
    const { signIn, callback, flow } = await beganCodeSignIn(oauth, fetch, env);
    delete env.UNSET;
    await assert.rejects(signIn.complete(flow, callback), unset);
    assert.deepEqual(tokenRequests, []);
  });
});

/** A token request held until the test answers it. */
interface HeldTokenRequest {
  /** The signal it was sent with. */
  readonly signal: AbortSignal | undefined;
  /** Answers it: with `token-<n>`, n counting the requests answered. */
  readonly answer: () => void;
}

/**
 * {@linkcode network}, its token endpoint holding each request until the test answers it, and
 * answering even one whose signal fired (as a server that had begun sending does).
 */
function heldTokenNetwork() {
  const { fetch: answered, sent } = network((token) => token.startsWith("token-"));
  const held: HeldTokenRequest[] = [];
  let arrived = gate();
  const fetch: Fetcher = async (url, init) => {
    if (url === `${AS}/token`) {
      const answer = gate();
      held.push({ signal: init.signal ?? undefined, answer: answer.open });
      arrived.open();
      await answer.opened;
    }
    return await answered(url, init);
  };
  /** The token requests held, once there are `count`. */
  const tokenRequests = async (count: number): Promise<readonly HeldTokenRequest[]> => {
    while (held.length < count) {
      arrived = gate();
      await arrived.opened;
    }
    return held;
  };
  return { fetch, sent, tokenRequests };
}

/** How a request ended: its status and body, or its rejection. */
async function outcome(response: Promise<Response>): Promise<string | unknown> {
  return await response.then(
    async (answer) => `HTTP ${answer.status} ${await answer.text()}`,
    (error) => error,
  );
}

describe("createUpstreamSignIn(): requests sharing one token request", () => {
  /** The requests to the MCP server and the token endpoint, and the authorization each was sent with. */
  const signed = (sent: readonly { url: string; authorization: string }[]) =>
    sent.filter(({ url }) => url === MCP || url === `${AS}/token`).map(({ url, authorization }) => [
      url === MCP ? "mcp" : "token",
      authorization,
    ]);
  const BASIC = `Basic ${btoa("c:p")}`;

  /** A first request, cancelled by `a`, waiting for its token request, which is `held`. */
  async function firstWaiting() {
    const network = heldTokenNetwork();
    const fetcher = signIn({ clientId: "c", clientSecretEnv: "S" }, network.fetch, { S: "p" });
    const a = new AbortController();
    const first = outcome(fetcher(MCP, { method: "POST", body: "{}", signal: a.signal }));
    const [held] = await network.tokenRequests(1);
    return { ...network, fetcher, a, first, held };
  }

  test("a request cancelled while another waits for its token request fails alone, with its signal's reason: the token request goes on, and the other request answers", async () => {
    const { fetcher, sent, a, first, held } = await firstWaiting();
    const second = outcome(
      fetcher(MCP, { method: "POST", body: "{}", signal: new AbortController().signal }),
    );
    // A turn of the event loop: every microtask the second request's 401 leads to runs first, so it
    // waits for the token request too (nothing in between waits for anything else).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const reason = new DOMException("call A was cancelled", "AbortError");
    a.abort(reason);
    assert.equal(held?.signal?.aborted, false);
    assert.equal(await first, reason);
    held?.answer();
    assert.equal(await second, "HTTP 200 ok");
    assert.deepEqual(signed(sent), [["mcp", ""], ["mcp", ""], ["token", BASIC], ["mcp", "Bearer token-1"]]);
  });

  test("the token request of a request cancelled with none other waiting is aborted, and a request coming before it ends asks for a token anew", async () => {
    const { fetcher, sent, tokenRequests, a, first, held: stopped } = await firstWaiting();
    const reason = new Error("call A was cancelled");
    a.abort(reason);
    assert.equal(stopped?.signal?.reason, reason);
    // The stopped token request has not ended (its server answers it regardless): a new request
    // does not wait for it, nor gets its cancellation.
    const second = outcome(fetcher(MCP, { method: "POST", body: "{}" }));
    const fresh = (await within("a second token request", tokenRequests(2), 5_000))[1];
    assert.equal(fresh?.signal?.aborted, false);
    fresh?.answer();
    assert.deepEqual(await Promise.all([first, second]), [reason, "HTTP 200 ok"]);
    assert.deepEqual(signed(sent), [["mcp", ""], ["mcp", ""], ["token", BASIC], ["mcp", "Bearer token-1"]]);
    stopped?.answer();
  });

  test("a request cancelled while the server's metadata is found for it and another principal fails alone: the other's refresh goes on", async () => {
    const time = new FakeTime(10_000_000);
    const tokens = createMemoryTokenStore({ clock: time });
    for (const who of ["alice", "bob"]) {
      const expired = storedGrant({
        accessToken: `old-${who}`,
        refreshToken: `rt-${who}`,
        expiresAt: 9_999_999,
      });
      await tokens.set(grantKey({ server: "s", endpoint: MCP }, who), JSON.stringify(expired));
    }
    const { fetch: answered, tokenRequests } = refreshNetwork(
      [() => Promise.resolve(Response.json(FRESH))],
      new Set(["fresh"]),
    );
    const asked = gate();
    const found = gate();
    const metadataRequests: boolean[] = [];
    const fetch: Fetcher = async (url, init) => {
      if (url === PRM) {
        metadataRequests.push(init.signal?.aborted ?? false);
        asked.open();
        await found.opened;
        // As fetch does: a request whose signal fired meanwhile fails with its reason.
        init.signal?.throwIfAborted();
      }
      return await answered(url, init);
    };
    const signIn = upstreamSignIn({ oauth: { clientId: "c", issuer: AS } }, fetch, {
      clock: time,
      timers: time,
      tokens,
    });
    const a = new AbortController();
    const alice = outcome(signIn.fetcher("alice")(MCP, { method: "POST", body: "{}", signal: a.signal }));
    await asked.opened;
    const bob = outcome(signIn.fetcher("bob")(MCP, { method: "POST", body: "{}" }));
    // A turn of the event loop: bob's request reaches the discovery alice's started.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const reason = new DOMException("call A was cancelled", "AbortError");
    a.abort(reason);
    found.open();
    // One discovery, never aborted: bob's refresh did not start over.
    assert.deepEqual([await alice, await bob, metadataRequests, tokenRequests], [
      reason,
      "HTTP 200 ok",
      [false],
      [`resource=${encodeURIComponent(MCP)}&refresh_token=rt-bob&grant_type=refresh_token&client_id=c`],
    ]);
  });
});

/** The grant a person signed in with: it has `mcp:tools`, for every request but `tools/call`. */
const TOOLS_GRANT = {
  accessToken: "tools-token",
  refreshToken: "tools-refresh",
  expiresAt: null,
  scopes: ["mcp:tools"],
  issuer: AS,
  clientId: "c",
  redirectUri: REDIRECT_URI,
};

/**
 * A server whose `tools/call` needs `mcp:admin` (a 403 `insufficient_scope` for a token without
 * it) and that refuses the tokens in `revoked` (401), and an authorization server that issues
 * `admin-token` for the code and `refreshed-token` for a refresh. Records every request to the
 * MCP server as `<method> <token>`.
 */
function scopedNetwork(revoked: ReadonlySet<string> = new Set()) {
  const sent: string[] = [];
  const fetch: Fetcher = (url, init) => {
    const metadata = metadataAnswer(url);
    if (metadata !== undefined) return Promise.resolve(metadata);
    if (url === `${AS}/token`) {
      // A refresh keeps the grant's scopes.
      return Promise.resolve(
        String(init.body).includes("grant_type=refresh_token")
          ? Response.json({ access_token: "refreshed-token", token_type: "Bearer", scope: "mcp:tools" })
          : Response.json({
            access_token: "admin-token",
            token_type: "Bearer",
            scope: "mcp:tools mcp:admin",
          }),
      );
    }
    const token = /^Bearer (.+)$/.exec(new Headers(init.headers).get("authorization") ?? "")?.[1] ?? "none";
    const method = (JSON.parse(String(init.body)) as { method: string }).method;
    sent.push(`${method} ${token}`);
    if (!["tools-token", "admin-token", "refreshed-token"].includes(token) || revoked.has(token)) {
      return Promise.resolve(
        new Response(null, {
          status: 401,
          headers: { "www-authenticate": `Bearer resource_metadata="${PRM}"` },
        }),
      );
    }
    if (method === "tools/call" && token !== "admin-token") {
      return Promise.resolve(
        new Response(null, {
          status: 403,
          headers: {
            "www-authenticate":
              `Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="${PRM}"`,
          },
        }),
      );
    }
    return Promise.resolve(new Response("ok"));
  };
  return { fetch, sent };
}

/**
 * The sign-in of a person to {@linkcode MCP}, the store holding {@linkcode TOOLS_GRANT}, with
 * `authorize` made from the sign-in (`undefined`: no authorize and no redirect URI).
 */
async function personSignIn(
  fetch: Fetcher,
  authorize: ((signIn: UpstreamSignIn, tokens: TokenStore) => Authorize) | undefined,
  grant: object = TOOLS_GRANT,
) {
  const clock = { now: () => 1_000 };
  const tokens = createMemoryTokenStore({ clock });
  const key = grantKey({ server: "s", endpoint: MCP }, "");
  await tokens.set(key, JSON.stringify(grant));
  const { transport } = compilePolicy({
    server: "s",
    transport: { url: MCP, auth: { oauth: { clientId: "c", issuer: AS } } },
  });
  if (transport.kind !== "http" || transport.auth === undefined) {
    throw new Error("expected an HTTP transport with auth");
  }
  const signIn: UpstreamSignIn = createUpstreamSignIn({
    server: "s",
    transport: { ...transport, auth: transport.auth },
    fetch,
    environment: () => undefined,
    clock,
    tokens,
    clientName: "test",
    ...(authorize === undefined ? {} : {
      redirectUri: REDIRECT_URI,
      authorize: (request, signal) => authorize(signIn, tokens)(request, signal),
    }),
  });
  const fetcher = signIn.fetcher();
  const send = async (method: string) => {
    const response = await fetcher(MCP, { method: "POST", body: JSON.stringify({ method }) });
    return `HTTP ${response.status}`;
  };
  return { send, stored: async () => JSON.parse((await tokens.get(key)) ?? "null") as unknown };
}

/** The person signs in at the authorization URL: the callback goes to `complete()`. */
function completes(signIn: UpstreamSignIn, tokens: TokenStore): Authorize {
  return async (request) => {
    const callback = new URL(`${REDIRECT_URI}?code=the-code&state=${request.state}`);
    await signIn.complete(await takeFlow(tokens, callback), callback);
  };
}

describe("createUpstreamSignIn(): a step-up (403 insufficient_scope)", () => {
  /** The sign-in the gateway's `authorize` hands back. */
  let handedBack: SignInRequest | undefined;
  const cases: { name: string; authorize: Parameters<typeof personSignIn>[1]; error: () => unknown }[] = [
    {
      name: "no authorize and no redirect URI",
      authorize: undefined,
      // It names the scopes the step-up asks for (sluice call tells to list them in the policy).
      error: () =>
        new SignInRequiredError({ server: "s", principal: "", scopes: ["mcp:tools", "mcp:admin"] }),
    },
    {
      name: "a sign-in handed back to be made elsewhere (the gateway's)",
      authorize: () => (request) => {
        handedBack = request;
        return Promise.reject(new SignInRequiredError(request));
      },
      error: () => new SignInRequiredError(handedBack ?? { server: "", principal: "" }),
    },
    {
      name: "a person who declines",
      authorize: () => () => Promise.reject(new UpstreamAuthError("the person declined")),
      error: () => new UpstreamAuthError("the person declined"),
    },
  ];
  for (const { name, authorize, error } of cases) {
    test(`not made (${name}): the stored grant stays, and the requests it has the scopes for still go with it`, async () => {
      const { fetch, sent } = scopedNetwork();
      const { send, stored } = await personSignIn(fetch, authorize);
      assert.equal(await send("tools/list"), "HTTP 200");
      const failed = await send("tools/call").then(
        () => assert.fail("expected the call to fail"),
        (e: unknown) => e,
      );
      assert.deepEqual(failed, error());
      assert.equal(await send("tools/list"), "HTTP 200");
      assert.deepEqual(sent, ["tools/list tools-token", "tools/call tools-token", "tools/list tools-token"]);
      assert.deepEqual(await stored(), TOOLS_GRANT);
    });
  }

  test("a refresh another request needs while the person signs in is made at once: it neither waits for the sign-in nor fails with it", async () => {
    const revoked = new Set<string>();
    const { fetch, sent } = scopedNetwork(revoked);
    const asked = gate();
    const answered = gate();
    const { send } = await personSignIn(fetch, () => async () => {
      asked.open();
      await answered.opened;
      throw new UpstreamAuthError("the person declined");
    });
    const call = send("tools/call").catch((error: Error) => error.message);
    await asked.opened;
    // The stored token is refused now (it expired): the next request refreshes it.
    revoked.add("tools-token");
    // Bounded, so that a refresh held up by the sign-in fails here rather than hangs the suite.
    let bound: ReturnType<typeof setTimeout> | undefined;
    const held = new Promise((resolve) => bound = setTimeout(() => resolve("held up by the sign-in"), 5_000));
    assert.equal(await Promise.race([send("tools/list"), held]), "HTTP 200");
    clearTimeout(bound);
    answered.open();
    assert.equal(await call, "the person declined");
    assert.deepEqual(sent, [
      "tools/call tools-token",
      "tools/list tools-token",
      "tools/list refreshed-token",
    ]);
  });

  test("requests refused together share one step-up: the person is asked once, and each goes through", async () => {
    const { fetch, sent } = scopedNetwork();
    let prompts = 0;
    const { send } = await personSignIn(fetch, (signIn, tokens) => async (request, signal) => {
      prompts++;
      await completes(signIn, tokens)(request, signal);
    });
    assert.deepEqual(await Promise.all([send("tools/call"), send("tools/call"), send("tools/call")]), [
      "HTTP 200",
      "HTTP 200",
      "HTTP 200",
    ]);
    assert.equal(prompts, 1);
    assert.deepEqual(sent.toSorted(), [
      "tools/call admin-token",
      "tools/call admin-token",
      "tools/call admin-token",
      "tools/call tools-token",
      "tools/call tools-token",
      "tools/call tools-token",
    ]);
  });

  test("a request whose token is refused while the person signs in for a step-up, and cannot be refreshed, waits for that sign-in and takes its grant: the person is asked once", async () => {
    const revoked = new Set<string>();
    const { fetch, sent } = scopedNetwork(revoked);
    const asked = gate();
    const answered = gate();
    const scopes: (string | null)[] = [];
    const { send, stored } = await personSignIn(
      fetch,
      (signIn, tokens) => async (request, signal) => {
        scopes.push(new URL(request.url).searchParams.get("scope"));
        asked.open();
        await answered.opened;
        await completes(signIn, tokens)(request, signal);
      },
      { ...TOOLS_GRANT, refreshToken: undefined },
    );
    const call = send("tools/call");
    await asked.opened;
    revoked.add("tools-token");
    const listed = send("tools/list");
    answered.open();
    assert.deepEqual([await call, await listed], ["HTTP 200", "HTTP 200"]);
    assert.deepEqual(scopes, ["mcp:tools mcp:admin"]);
    assert.deepEqual(sent, [
      "tools/call tools-token",
      "tools/list tools-token",
      "tools/call admin-token",
      "tools/list admin-token",
    ]);
    assert.deepEqual((await stored() as { scopes: unknown }).scopes, ["mcp:tools", "mcp:admin"]);
  });

  test("a step-up's token the server refuses (401) fails the request as any new token refused, its grant forgotten", async () => {
    const { fetch } = scopedNetwork(new Set(["admin-token"]));
    let prompts = 0;
    const { send, stored } = await personSignIn(fetch, (signIn, tokens) => async (request, signal) => {
      prompts++;
      await completes(signIn, tokens)(request, signal);
    });
    const refused = new UpstreamAuthError(
      "sign-in failed: the server refused the access token it was just issued (HTTP 401)",
    );
    await assert.rejects(send("tools/call"), refused);
    assert.equal(await stored(), null);
    assert.equal(prompts, 1);
  });

  test("finished: the stored grant serves the other requests while the person signs in, then its grant replaces it for the retried call and the next requests", async () => {
    const { fetch, sent } = scopedNetwork();
    const asked = gate();
    const signedIn = gate();
    const { send, stored } = await personSignIn(fetch, (signIn, tokens) => async (request, signal) => {
      asked.open();
      await signedIn.opened;
      await completes(signIn, tokens)(request, signal);
    });
    const call = send("tools/call");
    await asked.opened;
    assert.equal(await send("tools/list"), "HTTP 200");
    signedIn.open();
    assert.equal(await call, "HTTP 200");
    assert.equal(await send("tools/list"), "HTTP 200");
    assert.deepEqual(sent, [
      "tools/call tools-token",
      "tools/list tools-token",
      "tools/call admin-token",
      "tools/list admin-token",
    ]);
    assert.deepEqual(await stored(), {
      accessToken: "admin-token",
      expiresAt: null,
      scopes: ["mcp:tools", "mcp:admin"],
      issuer: AS,
      clientId: "c",
      clientSource: "policy",
      redirectUri: REDIRECT_URI,
    });
  });

  test("an authorize that resolves without the sign-in finished fails the call, never sending the stored grant's token again", async () => {
    const { fetch, sent } = scopedNetwork();
    const { send, stored } = await personSignIn(fetch, () => () => Promise.resolve());
    await assert.rejects(
      send("tools/call"),
      new UpstreamAuthError('sign-in to "s" did not complete: no new tokens were stored'),
    );
    assert.deepEqual(sent, ["tools/call tools-token"]);
    assert.deepEqual(await stored(), TOOLS_GRANT);
  });
});

/**
 * {@linkcode codeNetwork} whose token endpoint never answers: a token request ends only when its
 * signal fires, failing with the signal's reason as fetch does.
 *
 * @returns The fetch, the signal of each token request, and `tokenRequest`, settled once one arrived.
 */
function silentTokenNetwork() {
  const { fetch: answered } = codeNetwork({});
  const signals: (AbortSignal | undefined)[] = [];
  const arrived = gate();
  const fetch: Fetcher = (url, init) => {
    if (url !== `${AS}/token`) return answered(url, init);
    signals.push(init.signal ?? undefined);
    arrived.open();
    return new Promise<Response>((_, reject) =>
      init.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true })
    );
  };
  return { fetch, signals, tokenRequest: arrived.opened };
}

/**
 * A client of MCP as "s" (the policy's client "c" at {@linkcode AS}), on `fetch` and fake time,
 * its sign-ins coming back to {@linkcode REDIRECT_URI}.
 *
 * @returns The client, its token store, and the callback of a sign-in it began, with `code-1`.
 */
async function signingClient(fetch: Fetcher, time: FakeTime) {
  const tokens = createMemoryTokenStore({ clock: time });
  const client = createClient({
    name: "test",
    policies: [{ server: "s", transport: { url: MCP, auth: { oauth: { clientId: "c", issuer: AS } } } }],
    fetch,
    clock: time,
    timers: time,
    signIn: { tokens, redirectUri: REDIRECT_URI },
  });
  const { url } = await client.beginAuthorization("s");
  return { client, tokens, callback: callbackOf(url, "code-1").href };
}

/** How a client's promise settled: `"completed"`, or its `ClientError`'s kind, message and cause. */
function settled(promise: Promise<void>): Promise<unknown> {
  return promise.then(
    () => "completed",
    (error: ClientError) => ({ kind: error.kind, message: error.message, cause: error.cause }),
  );
}

describe("client.completeAuthorization(): the code exchange's signal and deadline", () => {
  test('a signal fired during the code exchange aborts its token request and rejects "cancelled" with its reason; the callback is spent (passed again it is refused, the code never sent twice) and no tokens are stored', async () => {
    const time = new FakeTime(1_000_000);
    const { fetch, signals, tokenRequest } = silentTokenNetwork();
    const { client, tokens, callback } = await signingClient(fetch, time);
    try {
      const controller = new AbortController();
      const completing = settled(client.completeAuthorization("s", callback, { signal: controller.signal }));
      await tokenRequest;
      const reason = new Error("the person gave up");
      controller.abort(reason);
      assert.deepEqual(await within("the cancelled sign-in", completing, 5_000), {
        kind: "cancelled",
        message: 'Sign-in to server "s" was cancelled',
        cause: reason,
      });
      assert.deepEqual([signals.length, signals[0]?.aborted, signals[0]?.reason === reason], [1, true, true]);
      assert.deepEqual(await settled(client.completeAuthorization("s", callback)), {
        kind: "transport",
        message:
          `Server "s": sign-in failed: the callback's state names no sign-in in progress (unknown or expired)`,
        cause: new UpstreamAuthError(
          "sign-in failed: the callback's state names no sign-in in progress (unknown or expired)",
        ),
      });
      assert.deepEqual([signals.length, await tokens.get(GRANT_KEY), time.pending], [1, undefined, 0]);
    } finally {
      await client.close();
    }
  });

  test('a signal already fired rejects "cancelled" before the callback is taken: no token request, and the same callback then completes the sign-in', async () => {
    const time = new FakeTime(1_000_000);
    const { fetch, tokenRequests } = codeNetwork({});
    const { client, tokens, callback } = await signingClient(fetch, time);
    try {
      const reason = new Error("not now");
      assert.deepEqual(
        await settled(client.completeAuthorization("s", callback, { signal: AbortSignal.abort(reason) })),
        {
          kind: "cancelled",
          message: 'Sign-in to server "s" was cancelled',
          cause: reason,
        },
      );
      assert.equal(tokenRequests.length, 0);
      assert.equal(await settled(client.completeAuthorization("s", callback)), "completed");
      assert.deepEqual([tokenRequests.length, JSON.parse((await tokens.get(GRANT_KEY)) ?? "null")], [1, {
        ...issuedGrant(1, 1_000_000),
        clientId: "c",
        clientSource: "policy",
        redirectUri: REDIRECT_URI,
      }]);
    } finally {
      await client.close();
    }
  });

  test('a code exchange the authorization server has not answered within 25 s fails the sign-in ("transport") naming the authorization server and the deadline, and stores no tokens', async () => {
    const time = new FakeTime(1_000_000);
    const { fetch, signals, tokenRequest } = silentTokenNetwork();
    const { client, tokens, callback } = await signingClient(fetch, time);
    try {
      const completing = settled(client.completeAuthorization("s", callback));
      await tokenRequest;
      await time.advance(24_999);
      assert.equal(signals[0]?.aborted, false);
      await time.advance(1);
      const failed = await within("the sign-in past its deadline", completing, 5_000);
      assert.deepEqual(failed, {
        kind: "transport",
        message:
          `Server "s": sign-in failed: the token request to the authorization server "${AS}" failed: no answer within 25000 ms`,
        cause: new UpstreamAuthError(
          `sign-in failed: the token request to the authorization server "${AS}" failed: no answer within 25000 ms`,
        ),
      });
      assert.deepEqual([time.now(), signals.length, await tokens.get(GRANT_KEY)], [1_025_000, 1, undefined]);
    } finally {
      await client.close();
    }
  });
});
