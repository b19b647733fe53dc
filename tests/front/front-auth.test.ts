// The front's `auth` (src/front/downstream-auth.ts) on every runtime: bearer secrets (challenges,
// rotation, weak secrets), JWT access tokens verified with jose against fixed keys (audience,
// expiry, issuer, scopes, subject, algorithm; the exact WWW-Authenticate challenges; RFC 9728
// metadata), a function, and the principal reaching the handler as `ctx.principal`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import type {
  BearerSecret,
  GatewayAuth,
  JwtAuthOptions,
  PrincipalInput,
} from "../../src/front/downstream-auth.ts";
import { createClient, type Handler } from "../../mod.ts";
import { createFront, type FrontOptions } from "../../src/front/create-front.ts";
import type { Principal } from "../../src/front/principal.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";
import { unreadBody } from "../_support/unread-body.ts";

const KEY = "front-auth-test-state-key-0123456789abcdef";
const SECRET = "ci-secret-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9Sa0Tc";
const NEXT_SECRET = "ci-secret-rotated-Qe7Wr4Ty1Ui8Op5As2Df9Gh3J";
const ISSUER = "https://auth.example.com";
/** A public JWK, for settings checked before any token is. */
const KEY_JWK = {
  kty: "EC",
  crv: "P-256",
  x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
  y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
};
const FILES = `${LOOPBACK}/mcp/files`;
const FILES_METADATA = `${LOOPBACK}/.well-known/oauth-protected-resource/mcp/files`;

function front(auth: FrontOptions["auth"], handler: Handler = {}, options: Partial<FrontOptions> = {}) {
  const upstream = toolsUpstream();
  const client = createClient({
    name: "gate",
    fetch: upstream.fetch,
    handler,
    policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
  });
  const app = createFront({ client, stateKey: KEY, ...(auth === undefined ? {} : { auth }), ...options });
  const send = async (request: Request) => await answerOf(await app.fetch(request), ["www-authenticate"]);
  return { app, upstream, client, send };
}

const callRead = (headers: Record<string, string> = {}) =>
  modernRequest(FILES, "tools/call", { name: "read", arguments: {}, _meta: modernMeta() }, headers);
const listServers = (headers: Record<string, string> = {}) => new Request(`${LOOPBACK}/servers`, { headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const CALLED_READ = {
  status: 200,
  headers: { "www-authenticate": null },
  body: {
    jsonrpc: "2.0",
    id: 1,
    result: { resultType: "complete", content: [{ type: "text", text: "called read" }] },
  },
};

/** A 401/403 answer: the challenge, and the JSON-RPC error carrying `message`. */
function refused(status: number, challenge: string, message: string) {
  return {
    status,
    headers: { "www-authenticate": challenge },
    body: { jsonrpc: "2.0", error: { code: -32000, message } },
  };
}

describe("auth: bearer secrets", () => {
  const auth = {
    bearer: [
      { secret: SECRET, subject: "ci", scopes: ["files:read"] },
      { secret: NEXT_SECRET, subject: "ci", scopes: ["files:read"] },
    ],
  };

  test("bearer auth answers a request without Authorization 401 with WWW-Authenticate: Bearer, on /servers and /mcp, and nothing reaches upstream", async () => {
    const { send, upstream, client } = front(auth);
    const expected = refused(401, "Bearer", "Unauthorized: send Authorization: Bearer <secret>");
    assert.deepEqual([await send(listServers()), await send(callRead())], [expected, expected]);
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test('bearer auth answers a wrong token 401 error="invalid_token"', async () => {
    const { send, client } = front(auth);
    const expected = refused(
      401,
      'Bearer error="invalid_token", error_description="The token is not one this gateway accepts"',
      "Unauthorized: the bearer token is not one this gateway accepts",
    );
    const wrong = [SECRET.slice(0, -1), `${SECRET}x`, NEXT_SECRET.toUpperCase()];
    const answers = [];
    for (const token of wrong) answers.push(await send(callRead(bearer(token))));
    assert.deepEqual(answers, wrong.map(() => expected));
    await client.close();
  });

  test('bearer auth answers malformed Bearer credentials 400 error="invalid_request", and another scheme as no token', async () => {
    const { send, client } = front(auth);
    const malformed = refused(
      400,
      'Bearer error="invalid_request", error_description="The Authorization header must be Bearer <token>"',
      'Unauthorized: the Authorization header must be "Bearer <token>"',
    );
    const none = refused(401, "Bearer", "Unauthorized: send Authorization: Bearer <secret>");
    const headers = [
      "Bearer",
      `Bearer ${SECRET} extra`,
      `Bearer ${SECRET},x`,
      `Basic ${SECRET}`,
      `Token ${SECRET}`,
    ];
    const answers = [];
    for (const authorization of headers) answers.push(await send(callRead({ authorization })));
    assert.deepEqual(answers, [malformed, malformed, malformed, none, none]);
    await client.close();
  });

  test("bearer auth lets the right token through to /servers and /mcp, in any case of the scheme, and never sends it upstream", async () => {
    const { send, upstream, client } = front(auth);
    const servers = await send(listServers(bearer(SECRET)));
    assert.deepEqual(
      [servers.status, (servers.body as { servers: Array<{ id: string }> }).servers.map((s) => s.id)],
      [200, ["files"]],
    );
    assert.deepEqual(await send(callRead(bearer(SECRET))), CALLED_READ);
    assert.deepEqual(await send(callRead({ authorization: `bearer ${SECRET}` })), CALLED_READ);
    assert.deepEqual(
      upstream.requests.map((request) => [request.body.method, request.headers["authorization"] ?? null]),
      [["tools/list", null], ["tools/call", null], ["tools/call", null]],
    );
    await client.close();
  });

  test("bearer auth takes both secrets of one subject while rotating, each as that subject", async () => {
    const seen: unknown[] = [];
    const { send, client } = front(auth, {
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [{ uri: "file:///srv" }] };
      },
      elicitation: (_params, ctx) => {
        seen.push(ctx.principal);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    for (const secret of [SECRET, NEXT_SECRET]) {
      const answer = await send(
        modernRequest(
          FILES,
          "tools/call",
          { name: "ask", arguments: {}, _meta: modernMeta() },
          bearer(secret),
        ),
      );
      assert.equal(answer.status, 200);
    }
    const ci = { subject: "ci", scopes: ["files:read"], claims: {} };
    assert.deepEqual(seen, [ci, ci, ci, ci]);
    await client.close();
  });

  test("bearer auth refuses a request without Authorization before reading its body", async () => {
    const { app, client } = front(auth);
    const { body, pulled } = unreadBody();
    const response = await app.fetch(
      new Request(
        FILES,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit,
      ),
    );
    await response.body?.cancel();
    assert.deepEqual([response.status, pulled()], [401, false]);
    await client.close();
  });

  test("bearer auth has no protected resource metadata: both routes answer 404, and an unknown server is challenged as a known one", async () => {
    const { send, client } = front(auth);
    const notFound = { status: 404, headers: { "www-authenticate": null }, body: { error: "not_found" } };
    const unknown = modernRequest(`${LOOPBACK}/mcp/nope`, "tools/call", {
      name: "read",
      arguments: {},
      _meta: modernMeta(),
    });
    assert.deepEqual([
      await send(new Request(`${LOOPBACK}/.well-known/oauth-protected-resource`)),
      await send(new Request(FILES_METADATA)),
      await send(unknown),
    ], [notFound, notFound, refused(401, "Bearer", "Unauthorized: send Authorization: Bearer <secret>")]);
    await client.close();
  });

  test(
    "createFront() refuses a bearer secret that no Authorization header can carry (outside the token68 characters)",
    () => {
      const client = createClient({
        name: "gate",
        policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
      });
      assert.throws(
        () =>
          createFront({
            client,
            stateKey: KEY,
            auth: { bearer: [{ secret: "ci secret!#Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9Sa0Tc", subject: "ci" }] },
          }),
        { name: "TypeError", message: /^createFront\(\): "auth\.bearer\[0\]/ },
      );
    },
  );

  test("createFront() refuses options that are not an object, a misspelt option, and a legacySessions that is not a function", () => {
    const client = createClient({
      name: "gate",
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const cases: Array<[unknown, string]> = [
      [null, "createFront(): the options must be an object { client, stateKey, … }, received null"],
      [
        { client, stateKey: KEY, allowedHost: ["gate.example.com"] },
        'createFront(): "allowedHost" is not an option (did you mean "allowedHosts"?); expected "client", "stateKey", "legacySessions", "auth", "allowedHosts", "allowedOrigins", "publicUrl", "heartbeat", "signInUser"',
      ],
      [
        { client, stateKey: KEY, legacySessions: "x" },
        'createFront(): "legacySessions" must be a function (request) => Response, received "x"',
      ],
    ];
    for (const [options, message] of cases) {
      assert.throws(() => createFront(options as never), { name: "TypeError", message });
    }
  });

  test("createFront() refuses weak, short and subject-less bearer secrets with the exact TypeError", () => {
    const client = createClient({
      name: "gate",
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const cases: Array<[unknown, string]> = [
      [
        { bearer: [{ secret: "0123456789abcdef0123456789abcdef", subject: "ci" }] },
        'createFront(): "auth.bearer[0].secret" repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`',
      ],
      [
        { bearer: [{ secret: SECRET, subject: "ci" }, { secret: "short", subject: "ci" }] },
        'createFront(): "auth.bearer[1].secret" must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`',
      ],
      [
        { bearer: [{ secret: SECRET, subject: "" }] },
        'createFront(): "auth.bearer[0].subject" must be a non-empty string, received ""',
      ],
      [
        {
          bearer: [{ secret: SECRET, subject: "ci" }, { secret: SECRET, subject: "admin", scopes: ["all"] }],
        },
        'createFront(): "auth.bearer[1].secret" is the secret of "auth.bearer[0]": give each subject its own',
      ],
      [
        { bearer: [] },
        'createFront(): "auth.bearer" must be a non-empty array of { secret, subject, scopes? }',
      ],
      [
        "bearer",
        'createFront(): "auth" must be "none", { bearer: [...] }, { jwt: {...} } or a function (request) => principal | Response, received "bearer"',
      ],
      [
        { Bearer: [] },
        'createFront(): "auth.Bearer" is not an option (did you mean "auth.bearer"?); expected "bearer", "jwt"',
      ],
      [
        { bearer: [{ secret: SECRET, subject: "ci" }], jwt: { issuer: ISSUER, keys: [KEY_JWK] } },
        'createFront(): "auth" takes one of "bearer" and "jwt", received both',
      ],
      [
        {},
        'createFront(): "auth" must be "none", { bearer: [...] }, { jwt: {...} } or a function (request) => principal | Response, received "object"',
      ],
      // A misspelt key would drop what it says: here the caller's scopes, or the JWT's.
      [
        { bearer: [{ secret: SECRET, subject: "ci", scope: ["admin"] }] },
        'createFront(): "auth.bearer[0].scope" is not an option (did you mean "auth.bearer[0].scopes"?); expected "secret", "subject", "scopes"',
      ],
      [
        { jwt: { issuer: "https://as.example.com", keys: [], scope: ["admin"] } },
        'createFront(): "auth.jwt.scope" is not an option (did you mean "auth.jwt.scopes"?); expected "issuer", "jwks", "keys", "audience", "scopes", "authorizationServers", "algorithms"',
      ],
    ];
    for (const [auth, message] of cases) {
      assert.throws(() => createFront({ client, stateKey: KEY, auth: auth as GatewayAuth }), {
        name: "TypeError",
        message,
      });
    }
  });
});

/** The claims without those set to `undefined` (to leave a claim out of a token). */
function withoutUndefined(claims: Record<string, unknown>): JWTPayload {
  return Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
}

/** An ES256 key pair, its public JWK (kid "k1"), and tokens it signs. */
async function issuer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...await exportJWK(publicKey), kid: "k1", alg: "ES256" };
  const now = Math.floor(Date.now() / 1000);
  const sign = async (
    claims: Record<string, unknown>,
    options: { key?: CryptoKey; kid?: string } = {},
  ) =>
    await new SignJWT(withoutUndefined({
      iss: ISSUER,
      aud: FILES,
      sub: "alice",
      iat: now,
      exp: now + 300,
      scope: "mcp:use files:read",
      ...claims,
    })).setProtectedHeader({ alg: "ES256", kid: options.kid ?? "k1" }).sign(options.key ?? privateKey);
  return { jwk, sign, now };
}

describe("auth: JWT access tokens with fixed keys", () => {
  const jwtFront = (
    jwk: JWK,
    handler: Handler = {},
    extra: Record<string, unknown> = {},
    options: Partial<FrontOptions> = {},
  ) => front({ jwt: { issuer: ISSUER, keys: [jwk], scopes: ["mcp:use"], ...extra } }, handler, options);

  test("jwt auth lets a valid token for the endpoint through, and for the gateway's own URL too", async () => {
    const { jwk, sign } = await issuer();
    const { send, client } = jwtFront(jwk);
    assert.deepEqual(await send(callRead(bearer(await sign({})))), CALLED_READ);
    assert.deepEqual(await send(callRead(bearer(await sign({ aud: LOOPBACK })))), CALLED_READ);
    const servers = await send(listServers(bearer(await sign({ aud: LOOPBACK }))));
    assert.equal(servers.status, 200);
    await client.close();
  });

  test("jwt auth answers a request without a token 401 naming the scopes and the resource metadata", async () => {
    const { jwk } = await issuer();
    const { send, client } = jwtFront(jwk);
    const message = "Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)";
    assert.deepEqual([await send(callRead()), await send(listServers())], [
      refused(401, `Bearer scope="mcp:use", resource_metadata="${FILES_METADATA}"`, message),
      refused(
        401,
        `Bearer scope="mcp:use", resource_metadata="${LOOPBACK}/.well-known/oauth-protected-resource"`,
        message,
      ),
    ]);
    await client.close();
  });

  test("jwt auth answers malformed Bearer credentials 400 invalid_request, and Basic as no token, both naming the metadata", async () => {
    const { jwk } = await issuer();
    const { send, client } = jwtFront(jwk);
    assert.deepEqual(
      [
        await send(callRead({ authorization: "Bearer a b" })),
        await send(callRead({ authorization: "Basic dXNlcjpwYXNz" })),
      ],
      [
        refused(
          400,
          `Bearer error="invalid_request", error_description="The Authorization header must be Bearer <token>", scope="mcp:use", resource_metadata="${FILES_METADATA}"`,
          'Unauthorized: the Authorization header must be "Bearer <token>"',
        ),
        refused(
          401,
          `Bearer scope="mcp:use", resource_metadata="${FILES_METADATA}"`,
          "Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)",
        ),
      ],
    );
    await client.close();
  });

  test("jwt auth refuses a wrong audience, an expired token, a wrong issuer, no sub, a foreign key and HS256 with 401 invalid_token", async () => {
    const { jwk, sign, now } = await issuer();
    const other = await generateKeyPair("ES256");
    const hs256 = await new SignJWT({
      iss: ISSUER,
      aud: FILES,
      sub: "alice",
      exp: now + 300,
      scope: "mcp:use",
    })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(new TextEncoder().encode("a-shared-secret-of-32-bytes-or-more!"));
    const { send, upstream, client } = jwtFront(jwk);
    const tokens: Array<[string, string]> = [
      [await sign({ aud: `${LOOPBACK}/mcp/other` }), "The token was not issued for this resource (aud)"],
      [
        await sign({ aud: "http://localhost:8787/mcp/files" }),
        "The token was not issued for this resource (aud)",
      ],
      [await sign({ iat: now - 600, exp: now - 300 }), "The token has expired"],
      [
        await sign({ iss: "https://evil.example.com" }),
        "The token was not issued by this gateway's authorization server (iss)",
      ],
      [await sign({ sub: undefined }), "The token has no sub claim"],
      [await sign({ exp: undefined }), "The token has no exp claim"],
      [
        await sign({}, { key: other.privateKey, kid: "k2" }),
        "The token was signed with a key the authorization server does not publish",
      ],
      [await sign({}, { key: other.privateKey }), "The token's signature is not valid"],
      [hs256, "The token's signature algorithm is not accepted"],
      ["not.a.jwt", "The token is not a valid access token"],
    ];
    const answers = [];
    for (const [token] of tokens) answers.push(await send(callRead(bearer(token))));
    assert.deepEqual(
      answers,
      tokens.map(([, description]) =>
        refused(
          401,
          `Bearer error="invalid_token", error_description="${
            description.replace(/"/g, "'")
          }", scope="mcp:use", resource_metadata="${FILES_METADATA}"`,
          `Unauthorized: ${description.charAt(0).toLowerCase()}${description.slice(1)}`,
        )
      ),
    );
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test("jwt auth answers a token without a required scope 403 insufficient_scope naming it", async () => {
    const { jwk, sign } = await issuer();
    const { send, client } = jwtFront(jwk);
    const expected = refused(
      403,
      `Bearer error="insufficient_scope", error_description="The token lacks the scope mcp:use", scope="mcp:use", resource_metadata="${FILES_METADATA}"`,
      'Forbidden: the token lacks the scope "mcp:use"',
    );
    assert.deepEqual([
      await send(callRead(bearer(await sign({ scope: "files:read" })))),
      await send(callRead(bearer(await sign({ scope: undefined })))),
      await send(callRead(bearer(await sign({ scope: "mcp:user" })))),
    ], [expected, expected, expected]);
    await client.close();
  });

  test("jwt auth takes scopes from scp (an array) as well as scope", async () => {
    const { jwk, sign } = await issuer();
    const { send, client } = jwtFront(jwk);
    assert.deepEqual(
      await send(callRead(bearer(await sign({ scope: undefined, scp: ["mcp:use"] })))),
      CALLED_READ,
    );
    await client.close();
  });

  test("jwt auth verifies a remembered token again once the client's injected clock reaches its exp, and refuses it as expired", async () => {
    const { jwk, sign, now } = await issuer();
    let time = now * 1000;
    const upstream = toolsUpstream();
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      clock: { now: () => time },
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const app = createFront({
      client,
      stateKey: KEY,
      auth: { jwt: { issuer: ISSUER, keys: [jwk], scopes: ["mcp:use"] } },
    });
    const send = async (request: Request) => await answerOf(await app.fetch(request), ["www-authenticate"]);
    const token = bearer(await sign({}));
    assert.deepEqual(await send(callRead(token)), CALLED_READ);
    time = (now + 300) * 1000 - 1;
    assert.deepEqual(await send(callRead(token)), CALLED_READ);
    time = (now + 300) * 1000;
    assert.deepEqual(
      await send(callRead(token)),
      refused(
        401,
        `Bearer error="invalid_token", error_description="The token has expired", scope="mcp:use", resource_metadata="${FILES_METADATA}"`,
        "Unauthorized: the token has expired",
      ),
    );
    await client.close();
  });

  test("jwt auth with an explicit audience takes that audience only", async () => {
    const { jwk, sign } = await issuer();
    const { send, client } = jwtFront(jwk, {}, { audience: "api://sluice" });
    assert.deepEqual(await send(callRead(bearer(await sign({ aud: "api://sluice" })))), CALLED_READ);
    assert.equal((await send(callRead(bearer(await sign({}))))).status, 401);
    await client.close();
  });

  test("jwt auth serves the exact RFC 9728 metadata at the root and per server, and 404 for an unknown server", async () => {
    const { jwk } = await issuer();
    const { send, client } = jwtFront(jwk);
    assert.deepEqual([
      await send(new Request(`${LOOPBACK}/.well-known/oauth-protected-resource`)),
      await send(new Request(FILES_METADATA)),
      await send(new Request(`${LOOPBACK}/.well-known/oauth-protected-resource/mcp/nope`)),
    ], [
      {
        status: 200,
        headers: { "www-authenticate": null },
        body: {
          resource: LOOPBACK,
          authorization_servers: [ISSUER],
          scopes_supported: ["mcp:use"],
          bearer_methods_supported: ["header"],
          resource_name: "sluice gateway",
        },
      },
      {
        status: 200,
        headers: { "www-authenticate": null },
        body: {
          resource: FILES,
          authorization_servers: [ISSUER],
          scopes_supported: ["mcp:use"],
          bearer_methods_supported: ["header"],
          resource_name: "sluice: files",
        },
      },
      { status: 404, headers: { "www-authenticate": null }, body: { error: "not_found" } },
    ]);
    await client.close();
  });

  test("jwt auth answers any request to an unknown server 404 at once, with no challenge and its body unread, as its metadata", async () => {
    const { jwk, sign } = await issuer();
    const { send, client, upstream } = jwtFront(jwk);
    const nope = `${LOOPBACK}/mcp/nope`;
    const call = (headers: Record<string, string> = {}) =>
      modernRequest(nope, "tools/call", { name: "read", arguments: {}, _meta: modernMeta() }, headers);
    // A body the gateway would have to read: it is never pulled.
    const { body: unread, pulled } = unreadBody();
    const answers = [
      await send(call()),
      await send(call(bearer(await sign({ aud: nope })))),
      await send(modernRequest(nope, "notifications/initialized", { _meta: modernMeta() })),
      await send(new Request(nope, { headers: { accept: "text/event-stream", "mcp-session-id": "s" } })),
      await send(new Request(nope, { method: "PUT" })),
      await send(
        new Request(nope, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: unread,
          duplex: "half",
        } as RequestInit),
      ),
    ];
    const unknown = {
      status: 404,
      headers: { "www-authenticate": null },
      // Its body unread, the error names no request.
      body: { jsonrpc: "2.0", error: { code: -32601, message: 'Unknown server "nope"' } },
    };
    assert.deepEqual([answers, pulled(), upstream.requests], [answers.map(() => unknown), false, []]);
    await client.close();
  });

  test("jwt auth behind publicUrl names the public resource in metadata, challenges and the audience", async () => {
    const { jwk, sign } = await issuer();
    const { send, client } = jwtFront(jwk, {}, {
      authorizationServers: ["https://login.example.com"],
      scopes: [],
    }, {
      publicUrl: "https://gate.example.com/",
      allowedHosts: ["gate.example.com"],
    });
    const base = "http://gate.example.com";
    assert.deepEqual(await send(new Request(`${base}/.well-known/oauth-protected-resource/mcp/files`)), {
      status: 200,
      headers: { "www-authenticate": null },
      body: {
        resource: "https://gate.example.com/mcp/files",
        authorization_servers: ["https://login.example.com"],
        bearer_methods_supported: ["header"],
        resource_name: "sluice: files",
      },
    });
    const call = (headers: Record<string, string>) =>
      modernRequest(
        `${base}/mcp/files`,
        "tools/call",
        { name: "read", arguments: {}, _meta: modernMeta() },
        headers,
      );
    assert.deepEqual(
      await send(call({})),
      refused(
        401,
        'Bearer resource_metadata="https://gate.example.com/.well-known/oauth-protected-resource/mcp/files"',
        "Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)",
      ),
    );
    assert.deepEqual(
      await send(call(bearer(await sign({ aud: "https://gate.example.com/mcp/files" })))),
      CALLED_READ,
    );
    assert.equal((await send(call(bearer(await sign({ aud: `${base}/mcp/files` }))))).status, 401);
    await client.close();
  });

  test("jwt auth takes an aud whose scheme and host differ only in case, or that names the default port, never one whose path does", async () => {
    const { jwk, sign } = await issuer();
    const gate = jwtFront(jwk, {}, {}, {
      publicUrl: "https://gate.example.com",
      allowedHosts: ["gate.example.com"],
    });
    const named = jwtFront(jwk, {}, { audience: "https://API.example.com/v1" });
    const call = (base: string, token: string) =>
      modernRequest(`${base}/mcp/files`, "tools/call", { name: "read", arguments: {}, _meta: modernMeta() }, {
        authorization: `Bearer ${token}`,
      });
    const answers = [];
    for (
      const aud of ["HTTPS://GATE.EXAMPLE.COM/mcp/files", "Https://Gate.Example.Com", [
        "x",
        "HTTPS://gate.example.COM",
      ], "https://gate.example.com:443/mcp/files"]
    ) {
      answers.push(await gate.send(call("http://gate.example.com", await sign({ aud }))));
    }
    answers.push(await named.send(call(LOOPBACK, await sign({ aud: "https://api.EXAMPLE.com/v1" }))));
    for (const aud of ["https://gate.example.com/MCP/files", "https://gate.example.com/mcp/FILES"]) {
      answers.push(await gate.send(call("http://gate.example.com", await sign({ aud }))));
    }
    answers.push(await named.send(call(LOOPBACK, await sign({ aud: "https://api.example.com/V1" }))));
    const wrongAudience = (metadata: string) =>
      refused(
        401,
        `Bearer error="invalid_token", error_description="The token was not issued for this resource (aud)", scope="mcp:use", resource_metadata="${metadata}"`,
        "Unauthorized: the token was not issued for this resource (aud)",
      );
    const gateMetadata = "https://gate.example.com/.well-known/oauth-protected-resource/mcp/files";
    assert.deepEqual(answers, [
      CALLED_READ,
      CALLED_READ,
      CALLED_READ,
      CALLED_READ,
      CALLED_READ,
      wrongAudience(gateMetadata),
      wrongAudience(gateMetadata),
      wrongAudience(FILES_METADATA),
    ]);
    await gate.client.close();
    await named.client.close();
  });

  test("jwt auth takes an optional option written as undefined as left out: the endpoint's audience, no scopes, the issuer as authorization server", async () => {
    const { jwk, sign } = await issuer();
    const jwt: JwtAuthOptions = {
      issuer: ISSUER,
      jwks: undefined,
      keys: [jwk],
      audience: undefined,
      scopes: undefined,
      authorizationServers: undefined,
      algorithms: undefined,
    };
    const { send, client } = front({ jwt });
    assert.deepEqual([
      await send(callRead(bearer(await sign({ scope: undefined })))),
      await send(new Request(FILES_METADATA)),
    ], [
      CALLED_READ,
      {
        status: 200,
        headers: { "www-authenticate": null },
        body: {
          resource: FILES,
          authorization_servers: [ISSUER],
          bearer_methods_supported: ["header"],
          resource_name: "sluice: files",
        },
      },
    ]);
    await client.close();
  });

  test(
    "jwt auth refuses a token whose sub is not a non-empty string, as the other auth forms do",
    async () => {
      const { jwk, sign } = await issuer();
      const { send, client } = jwtFront(jwk);
      const answers = [];
      for (const sub of [42, ""]) {
        answers.push((await send(callRead(bearer(await sign({ sub }))))).status);
      }
      assert.deepEqual(answers, [401, 401]);
      await client.close();
    },
  );

  test("createFront() refuses JWT settings without keys, with both jwks and keys, or a bad issuer", () => {
    const client = createClient({
      name: "gate",
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const cases: Array<[unknown, string]> = [
      [
        { jwt: { issuer: ISSUER } },
        'createFront(): "auth.jwt" needs exactly one of "jwks" (the JWKS URL) and "keys" (public JWKs)',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [], jwks: `${ISSUER}/jwks` } },
        'createFront(): "auth.jwt" needs exactly one of "jwks" (the JWKS URL) and "keys" (public JWKs)',
      ],
      [
        { jwt: { issuer: "auth.example.com", keys: [] } },
        'createFront(): "auth.jwt.issuer" must be an absolute URL, received "auth.example.com"',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], scopes: ["two words"] } },
        'createFront(): "auth.jwt.scopes" must be an array of non-empty strings without spaces, received an array',
      ],
      // Settings that would refuse every token, found when the gateway starts rather than by callers.
      [
        { jwt: { issuer: ISSUER, keys: [] } },
        'createFront(): "auth.jwt.keys" must not be empty: no token could be verified',
      ],
      [
        { jwt: { issuer: ISSUER, keys: "abc" } },
        'createFront(): "auth.jwt.keys" must be an array of public JWKs, each with "kty", received "abc"',
      ],
      [
        { jwt: { issuer: ISSUER, jwks: "ftp://auth.example.com/jwks" } },
        'createFront(): "auth.jwt.jwks" must be an http(s) URL, received "ftp://auth.example.com/jwks"',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], audience: [] } },
        'createFront(): "auth.jwt.audience" must not be empty: no token could be taken',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], audience: "" } },
        'createFront(): "auth.jwt.audience" must be a non-empty string, received ""',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], algorithms: ["none"] } },
        'createFront(): "auth.jwt.algorithms" must name public-key algorithms (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519), received "none"',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], algorithms: ["HS256"] } },
        'createFront(): "auth.jwt.algorithms" must name public-key algorithms (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519), received "HS256"',
      ],
      [
        { jwt: { issuer: ISSUER, keys: [KEY_JWK], algorithms: [] } },
        'createFront(): "auth.jwt.algorithms" must not be empty: no token could be verified',
      ],
    ];
    for (const [auth, message] of cases) {
      assert.throws(() => createFront({ client, stateKey: KEY, auth: auth as GatewayAuth }), {
        name: "TypeError",
        message,
      });
    }
  });
});

describe("auth: a function, and ctx.principal", () => {
  test("a function auth's principal reaches the handler as ctx.principal, scopes and claims defaulted", async () => {
    const seen: Array<Principal | undefined> = [];
    const handler: Handler = {
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [{ uri: "file:///srv" }] };
      },
      elicitation: (_params, ctx) => {
        seen.push(ctx.principal);
        return { action: "accept", content: { name: "Ada" } };
      },
    };
    const { send, upstream, client } = front(
      (request) =>
        request.headers.get("x-user") === "bob"
          ? { subject: "bob" }
          : { subject: "alice", scopes: ["files:read"], claims: { team: "ops" } },
      handler,
    );
    const ask = (user: string) =>
      modernRequest(FILES, "tools/call", { name: "ask", arguments: {}, _meta: modernMeta() }, {
        "x-user": user,
      });
    const answer = await send(ask("alice"));
    assert.deepEqual(answer, {
      status: 200,
      headers: { "www-authenticate": null },
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          content: [{
            type: "text",
            text: JSON.stringify({
              where: { roots: [{ uri: "file:///srv" }] },
              who: { action: "accept", content: { name: "Ada" } },
            }),
          }],
        },
      },
    });
    await send(ask("bob"));
    const alice = { subject: "alice", scopes: ["files:read"], claims: { team: "ops" } };
    const bob = { subject: "bob", scopes: [], claims: {} };
    assert.deepEqual(seen, [alice, alice, bob, bob]);
    assert.deepEqual(upstream.requests.map((r) => r.body.params?.requestState ?? null), [
      null,
      null,
      "upstream-state",
      null,
      "upstream-state",
    ]);
    await client.close();
  });

  test("a function auth's Response is sent as it is, and the call goes nowhere", async () => {
    const { app, upstream, client } = front(() =>
      new Response("go away", { status: 407, headers: { "x-why": "proxy", "content-type": "text/plain" } })
    );
    const response = await app.fetch(callRead());
    assert.deepEqual(
      [
        response.status,
        response.headers.get("x-why"),
        response.headers.get("content-type"),
        await response.text(),
      ],
      [407, "proxy", "text/plain", "go away"],
    );
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test("a function auth that throws, answers no principal, or answers an auth setting is answered 500 -32603 in JSON-RPC; the operator's log says why, and the call goes nowhere", async () => {
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    const failure = new Error("directory down");
    const cases: GatewayAuth[] = [
      () => {
        throw failure;
      },
      () => Promise.resolve({ subject: "" }),
      () => ({ bearer: [{ secret: SECRET, subject: "agents" }] }) as never,
    ];
    const answers: unknown[] = [];
    try {
      for (const auth of cases) {
        const { upstream, client, send } = front(auth);
        answers.push(await send(callRead()), upstream.requests.length);
        await client.close();
      }
    } finally {
      console.error = original;
    }
    const internal = {
      status: 500,
      headers: { "www-authenticate": null },
      body: {
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error: the gateway could not authenticate this request" },
      },
    };
    assert.deepEqual(answers, [internal, 0, internal, 0, internal, 0]);
    const told = 'createFront(): the "auth" function failed, so the request was answered 500:';
    assert.deepEqual(logged.map(([first, error]) => [first, (error as Error).message]), [
      [told, "directory down"],
      [told, 'createFront(): the "auth" function\'s subject must be a non-empty string, received ""'],
      [
        told,
        'createFront(): the "auth" function returned an auth setting ({ bearer }), where it must return the caller\'s principal { subject } or a Response: give the setting itself as "auth" (or as the default export of an --auth module)',
      ],
    ]);
    assert.equal(logged[0]?.[1], failure);
  });

  test("a JWT's verified payload reaches the handler as ctx.principal.claims, with its scopes and sub", async () => {
    const { jwk, sign, now } = await issuer();
    const seen: Array<Principal | undefined> = [];
    const { send, client } = front({ jwt: { issuer: ISSUER, keys: [jwk], scopes: ["mcp:use"] } }, {
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [] };
      },
      elicitation: (_params, ctx) => {
        seen.push(ctx.principal);
        return { action: "decline" };
      },
    });
    const token = await sign({ tenant: "acme" });
    const answer = await send(
      modernRequest(FILES, "tools/call", { name: "ask", arguments: {}, _meta: modernMeta() }, bearer(token)),
    );
    assert.equal(answer.status, 200);
    const expected = {
      subject: "alice",
      scopes: ["mcp:use", "files:read"],
      claims: {
        iss: ISSUER,
        aud: FILES,
        sub: "alice",
        iat: now,
        exp: now + 300,
        scope: "mcp:use files:read",
        tenant: "acme",
      },
    };
    assert.deepEqual(seen, [expected, expected]);
    await client.close();
  });

  test('auth "none" gives the handler no principal', async () => {
    const seen: unknown[] = [];
    const { send, client } = front("none", {
      roots: (ctx) => {
        seen.push(ctx.principal);
        return { roots: [] };
      },
      elicitation: (_params, ctx) => {
        seen.push(ctx.principal);
        return { action: "decline" };
      },
    });
    const answer = await send(
      modernRequest(FILES, "tools/call", { name: "ask", arguments: {}, _meta: modernMeta() }),
    );
    assert.deepEqual([answer.status, seen], [200, [undefined, undefined]]);
    await client.close();
  });

  test("a bearer secret's scopes, and a function's principal's scopes and claims, written as undefined are taken as left out: none", async () => {
    const secret: BearerSecret = { secret: SECRET, subject: "ci", scopes: undefined };
    const principal: PrincipalInput = { subject: "bob", scopes: undefined, claims: undefined };
    const seen: unknown[] = [];
    for (const auth of [{ bearer: [secret] }, () => principal]) {
      const { send, client } = front(auth, {
        roots: (ctx) => {
          seen.push(ctx.principal);
          return { roots: [] };
        },
        elicitation: () => ({ action: "decline" }),
      });
      await send(
        modernRequest(
          FILES,
          "tools/call",
          { name: "ask", arguments: {}, _meta: modernMeta() },
          bearer(SECRET),
        ),
      );
      await client.close();
    }
    assert.deepEqual(seen, [{ subject: "ci", scopes: [], claims: {} }, {
      subject: "bob",
      scopes: [],
      claims: {},
    }]);
  });
});
