// The gateway as an OAuth protected resource (`auth: { jwt }`), end to end with no mocks: a real
// authorization server (oidc-provider, tests/_support/authorization-server.ts) issuing RFC 9068
// JWT access tokens, `serve()` of the Node adapter in front of server-everything over stdio, and
// the official client `@modelcontextprotocol/client` 2.4.0 on its defaults with an OAuth provider
// of its own (in memory; the harness plays the browser). The client gets a 401, finds the
// protected resource metadata and the authorization server by itself, registers, runs the
// authorization code flow with PKCE, and calls a tool, on its defaults and pinned to 2026-07-28.
// Then raw requests: a good token opens a session that another user's valid token cannot use;
// tokens the same server issued for another resource, already expired, or without the scope, and
// none at all (or one in the query string), are each refused with the exact challenge.
//
// Node only: oidc-provider is a Node library, and what is under test is the gateway's HTTP
// surface, the same on every runtime.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { decodeJwt, type JWTPayload } from "jose";
import { type RunningGateway, serve } from "../../src/adapters/node.ts";
import {
  type AuthorizationServer,
  type IssuedToken,
  startAuthorizationServer,
} from "../_support/authorization-server.ts";
import { EVERYTHING_ENTRY } from "../_support/everything.ts";
import { type Fetch, initializeMessage, LegacyCaller, legacyHeaders } from "../_support/legacy-caller.ts";
import { nodeBinary } from "../_support/modern-peer.ts";
import { callFailure, NODE_ONLY } from "./_hosts.ts";

const skip = NODE_ONLY;

/** The scope every request to the gateway needs. */
const SCOPE = "mcp:tools";
/** The access-token lifetime the authorization server gives by default, in seconds. */
const TTL = 300;
/** Where the host's authorization responses go (never opened: the harness stops there). */
const REDIRECT_URL = "http://127.0.0.1/callback";

let as: AuthorizationServer;
let gateway: RunningGateway;
/** `<gateway>/mcp/everything`: the resource the tokens are for. */
let endpoint: string;
/** `<gateway>/.well-known/oauth-protected-resource/mcp/everything`. */
let metadataUrl: string;
/** A token that lives one second, issued first so it has expired by the time it is used. */
let shortLived: IssuedToken;

before(async () => {
  if (skip !== false) return;
  as = await startAuthorizationServer({ scopes: [SCOPE, "mcp:read"], accessTokenTtl: TTL, subject: "alice" });
  gateway = await serve({
    port: 0,
    stateKey: "gateway-auth-state-key-0123456789abcdef",
    playground: false,
    auth: { jwt: { issuer: as.issuer, jwks: as.jwksUri, scopes: [SCOPE] } },
    policies: [{
      server: "everything",
      transport: { command: nodeBinary(), args: [EVERYTHING_ENTRY, "stdio"] },
      era: "legacy",
    }],
  });
  endpoint = `${gateway.url}/mcp/everything`;
  metadataUrl = `${gateway.url}/.well-known/oauth-protected-resource/mcp/everything`;
  shortLived = await as.issueToken({ resource: endpoint, accessTokenTtl: 1 });
});
after(async () => {
  await gateway?.close();
  await as?.close();
});

/** The client's two modes: its default (legacy, `initialize`) and pinned to 2026-07-28. */
const MODES = [
  { name: "on its defaults", pinned: false, version: "2025-11-25" },
  { name: "pinned to 2026-07-28", pinned: true, version: "2026-07-28" },
] as const;

/** The official client, on its defaults or pinned to 2026-07-28. */
function officialClient(pinned: boolean): Client {
  return new Client(
    { name: "official-host", version: "2.4.0" },
    pinned ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
}

/** One HTTP request a transport made: method, URL, status. */
type Exchange = readonly [method: string, url: string, status: number];

/**
 * The official client's OAuth side, in memory, as a host implements it. Its "browser" is the
 * harness: `redirectToAuthorization()` follows the authorization URL (the user logs in and
 * consents) and keeps the redirect back, which the test hands to `finishAuth()`.
 */
class HeadlessHost implements OAuthClientProvider {
  /** The authorization URLs the client sent the user to. */
  readonly authorizations: URL[] = [];
  /** The last redirect back from the authorization server. */
  callback: URL | undefined;
  /** The last `state` the client put in an authorization request. */
  sentState: string | undefined;
  readonly #as: AuthorizationServer;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;

  constructor(authorizationServer: AuthorizationServer) {
    this.#as = authorizationServer;
  }

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "official-host",
      redirect_uris: [REDIRECT_URL],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.sentState = randomUUID();
    return this.sentState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client;
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.#client = information;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizations.push(authorizationUrl);
    this.callback = await this.#as.authorize(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("HeadlessHost: no code verifier saved");
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }
}

/** A fetch that records each exchange (method, URL, status) into `log`. */
function recording(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    log.push([init?.method ?? (input instanceof Request ? input.method : "GET"), url, response.status]);
    return response;
  };
}

/** The claims of an access token the comparisons look at (`jti`, `iat` and `client_id` vary). */
function claimsOf(payload: JWTPayload): Record<string, unknown> {
  return {
    iss: payload.iss,
    aud: payload.aud,
    sub: payload.sub,
    scope: payload["scope"],
    lifetime: (payload.exp ?? 0) - (payload.iat ?? 0),
  };
}

/** A raw legacy `initialize` POST to the endpoint, with `token` as the bearer when given. */
async function initialize(
  token?: string,
): Promise<{ status: number; challenge: string | null; body: unknown }> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { ...legacyHeaders(), ...token === undefined ? {} : { authorization: `Bearer ${token}` } },
    body: JSON.stringify(initializeMessage()),
  });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: JSON.parse(text),
  };
}

/** A fetch for {@linkcode LegacyCaller} that sends `token()` as the bearer. */
function withBearer(token: () => string): Fetch {
  return (url, init) =>
    fetch(url, {
      ...init,
      headers: { ...init.headers as Record<string, string>, authorization: `Bearer ${token()}` },
    });
}

/** The JSON-RPC error body the gateway refuses a request with. */
function refusal(message: string): unknown {
  return { jsonrpc: "2.0", error: { code: -32000, message } };
}

describe("sluice serve with auth.jwt before server-everything, for the official client 2.4.0 with OAuth", {
  skip,
}, () => {
  test("sluice serve serves the protected resource metadata (RFC 9728) of /mcp/everything", async () => {
    const response = await fetch(metadataUrl);
    assert.deepEqual([response.status, response.headers.get("content-type"), await response.json()], [
      200,
      "application/json",
      {
        resource: endpoint,
        authorization_servers: [as.issuer],
        scopes_supported: [SCOPE],
        bearer_methods_supported: ["header"],
        resource_name: "sluice: everything",
      },
    ]);
  });

  for (const mode of MODES) {
    test(`sluice serve challenges the official client ${mode.name}, which discovers, registers, authorizes with PKCE and calls echo`, async () => {
      const host = new HeadlessHost(as);
      const log: Exchange[] = [];
      const first = new StreamableHTTPClientTransport(new URL(endpoint), {
        authProvider: host,
        fetch: recording(log),
      });
      const refused = officialClient(mode.pinned);
      // The 401 sends the client through discovery and registration to the authorization URL; the
      // user comes back with a code, so connect() ends in UnauthorizedError until finishAuth().
      const failure = await refused.connect(first).then(() => undefined, callFailure);
      const registered = host.clientInformation()?.client_id ?? "(not registered)";
      assert.deepEqual({ failure, log }, {
        failure: { name: "UnauthorizedError", code: undefined, message: "Unauthorized" },
        log: [
          ["POST", endpoint, 401],
          ["GET", metadataUrl, 200],
          ["GET", `${as.issuer}/.well-known/oauth-authorization-server`, 200],
          ["POST", `${as.issuer}/reg`, 201],
        ],
      });

      // What the client asked the authorization server for, and what came back.
      const [authorization] = host.authorizations;
      const asked = Object.fromEntries(authorization?.searchParams ?? []);
      assert.match(asked["code_challenge"] ?? "", /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual({ ...asked, code_challenge: "(checked above)" }, {
        response_type: "code",
        client_id: registered,
        code_challenge: "(checked above)",
        code_challenge_method: "S256",
        redirect_uri: REDIRECT_URL,
        state: host.sentState,
        scope: SCOPE,
        resource: endpoint,
      });
      const back = Object.fromEntries(host.callback?.searchParams ?? []);
      assert.deepEqual({ ...back, code: typeof back["code"] }, {
        code: "string",
        state: host.sentState,
        iss: as.issuer,
      });

      log.length = 0;
      await first.finishAuth(host.callback?.searchParams ?? new URLSearchParams());
      await refused.close();
      const tokens = host.tokens();
      const payload = decodeJwt(tokens?.access_token ?? "");
      assert.deepEqual(
        {
          log,
          type: tokens?.token_type,
          scope: tokens?.scope,
          claims: claimsOf(payload),
          client: payload["client_id"],
        },
        {
          log: [["POST", `${as.issuer}/token`, 200]],
          type: "Bearer",
          scope: SCOPE,
          claims: { iss: as.issuer, aud: endpoint, sub: "alice", scope: SCOPE, lifetime: TTL },
          client: registered,
        },
      );

      const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: host });
      const client = officialClient(mode.pinned);
      try {
        await client.connect(transport);
        assert.deepEqual(
          [
            client.getNegotiatedProtocolVersion(),
            await client.callTool({ name: "echo", arguments: { message: "hello" } }),
          ],
          [mode.version, { content: [{ type: "text", text: "Echo: hello" }] }],
        );
      } finally {
        await transport.terminateSession().catch(() => {});
        await client.close();
      }
    });
  }

  test("sluice serve lets in a token issued for /mcp/everything with mcp:tools: initialize, then DELETE", async () => {
    const { accessToken } = await as.issueToken({ resource: endpoint, scope: SCOPE });
    const caller = new LegacyCaller(withBearer(() => accessToken), endpoint);
    const opened = await caller.initialize() as { result?: { serverInfo?: unknown } };
    const closed = await caller.close();
    assert.deepEqual([opened.result?.serverInfo, typeof caller.session, closed.status], [
      { name: "sluice-front", title: "sluice: everything", version: "0.1.0" },
      "string",
      200,
    ]);
  });

  test("sluice serve binds a session to the token's sub: bob's valid token gets 404 on alice's session", async () => {
    const [alice, aliceAgain, bob] = await Promise.all([
      as.issueToken({ resource: endpoint, scope: SCOPE }),
      as.issueToken({ resource: endpoint, scope: SCOPE }),
      as.issueToken({ resource: endpoint, scope: SCOPE, subject: "bob" }),
    ]);
    let bearer = alice.accessToken;
    const caller = new LegacyCaller(withBearer(() => bearer), endpoint);
    await caller.initialize();
    bearer = bob.accessToken;
    const stolen = await caller.post({ jsonrpc: "2.0", id: 1, method: "ping" });
    const stolenAnswer = [stolen.status, await stolen.json()];
    bearer = aliceAgain.accessToken;
    const own = await caller.request(2, "ping");
    bearer = alice.accessToken;
    const closed = await caller.close();
    assert.deepEqual([bob.claims.sub, stolenAnswer, own, closed.status], [
      "bob",
      [404, {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32001, message: "Session not found: initialize a new session" },
      }],
      { jsonrpc: "2.0", id: 2, result: {} },
      200,
    ]);
  });

  test("sluice serve answers a request without a token with 401 and a challenge without error", async () => {
    assert.deepEqual(await initialize(), {
      status: 401,
      challenge: `Bearer scope="${SCOPE}", resource_metadata="${metadataUrl}"`,
      body: refusal("Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)"),
    });
  });

  test("sluice serve takes no token from the query string: ?access_token= is answered as no token", async () => {
    const { accessToken } = await as.issueToken({ resource: endpoint, scope: SCOPE });
    const response = await fetch(`${endpoint}?access_token=${accessToken}`, {
      method: "POST",
      headers: legacyHeaders(),
      body: JSON.stringify(initializeMessage()),
    });
    assert.deepEqual([response.status, response.headers.get("www-authenticate"), await response.json()], [
      401,
      `Bearer scope="${SCOPE}", resource_metadata="${metadataUrl}"`,
      refusal("Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)"),
    ]);
  });

  test("sluice serve answers a token issued for another resource (/mcp/other) with 401 invalid_token", async () => {
    const other = await as.issueToken({ resource: `${gateway.url}/mcp/other`, scope: SCOPE });
    assert.deepEqual(claimsOf(other.claims), {
      iss: as.issuer,
      aud: `${gateway.url}/mcp/other`,
      sub: "alice",
      scope: SCOPE,
      lifetime: TTL,
    });
    const description = "The token was not issued for this resource (aud)";
    assert.deepEqual(await initialize(other.accessToken), {
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="${description}", scope="${SCOPE}", ` +
        `resource_metadata="${metadataUrl}"`,
      body: refusal(`Unauthorized: ${description.charAt(0).toLowerCase()}${description.slice(1)}`),
    });
  });

  test("sluice serve answers an expired token with 401 invalid_token", async () => {
    assert.deepEqual(claimsOf(shortLived.claims), {
      iss: as.issuer,
      aud: endpoint,
      sub: "alice",
      scope: `${SCOPE} mcp:read`,
      lifetime: 1,
    });
    // Both sides read the real clock (the authorization server signs `exp`, the gateway checks it
    // in another component), so the test waits out the rest of the second, if any is left (a
    // timer may fire a millisecond early: the loop waits until the clock really reads `exp`).
    const expiresAt = (shortLived.claims.exp ?? 0) * 1000;
    while (Date.now() < expiresAt) await delay(expiresAt - Date.now());
    const description = "The token has expired";
    assert.deepEqual(await initialize(shortLived.accessToken), {
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="${description}", scope="${SCOPE}", ` +
        `resource_metadata="${metadataUrl}"`,
      body: refusal(`Unauthorized: ${description.charAt(0).toLowerCase()}${description.slice(1)}`),
    });
  });

  test("sluice serve answers a token without mcp:tools with 403 insufficient_scope naming mcp:tools", async () => {
    const narrow = await as.issueToken({ resource: endpoint, scope: "mcp:read" });
    assert.deepEqual(claimsOf(narrow.claims), {
      iss: as.issuer,
      aud: endpoint,
      sub: "alice",
      scope: "mcp:read",
      lifetime: TTL,
    });
    assert.deepEqual(await initialize(narrow.accessToken), {
      status: 403,
      challenge:
        `Bearer error="insufficient_scope", error_description="The token lacks the scope ${SCOPE}", ` +
        `scope="${SCOPE}", resource_metadata="${metadataUrl}"`,
      body: refusal(`Forbidden: the token lacks the scope "${SCOPE}"`),
    });
  });
});
