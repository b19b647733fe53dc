// JWT auth against a JWKS URL (`auth.jwt.jwks`) served by a small HTTP server on loopback: tokens
// signed with a published key pass (the set fetched once, then cached), others are refused, and
// a JWKS endpoint that fails refuses every token (fail closed).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { recordingConsoleErrors } from "../_support/console-errors.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";

const ISSUER = "https://auth.example.com";
const FILES = `${LOOPBACK}/mcp/files`;

let server: Server;
let jwksUrl: string;
let published: { keys: JWK[] } = { keys: [] };
let status = 200;
let fetches = 0;

before(async () => {
  server = createServer((_request, response) => {
    fetches++;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(published));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  jwksUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
});
after(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  return { jwk: { ...await exportJWK(publicKey), kid, alg: "ES256" }, privateKey, kid };
}

async function token(pair: Awaited<ReturnType<typeof keyPair>>, claims: Record<string, unknown> = {}) {
  return await new SignJWT({ scope: "mcp", ...claims }).setProtectedHeader({ alg: "ES256", kid: pair.kid })
    .setIssuer(ISSUER).setAudience(FILES).setSubject("alice").setIssuedAt().setExpirationTime("5m")
    .sign(pair.privateKey);
}

function front(jwks = jwksUrl, clock?: { now(): number }) {
  const upstream = toolsUpstream();
  const client = createClient({
    name: "gate",
    ...(clock === undefined ? {} : { clock }),
    fetch: upstream.fetch,
    policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
  });
  const app = createFront({
    client,
    stateKey: "front-auth-jwks-state-key-0123456789abcdef",
    auth: { jwt: { issuer: ISSUER, jwks, scopes: ["mcp"] } },
  });
  const call = async (bearer: string) =>
    await answerOf(
      await app.fetch(
        modernRequest(FILES, "tools/call", { name: "read", arguments: {}, _meta: modernMeta() }, {
          authorization: `Bearer ${bearer}`,
        }),
      ),
      ["www-authenticate"],
    );
  return { call, client };
}

/** The answer to a token while the keys cannot be fetched: no challenge, the token is not at fault. */
const KEYS_UNAVAILABLE = {
  status: 503,
  headers: { "www-authenticate": null },
  body: {
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message:
        "Service unavailable: the authorization server's keys could not be fetched or read, so the token cannot be verified; try again later",
    },
  },
};
const KEYS_LOGGED =
  "sluice: the authorization server's keys could not be fetched or read, so new tokens are answered 503 until they are:";
const invalid = (description: string) => ({
  status: 401,
  headers: {
    "www-authenticate":
      `Bearer error="invalid_token", error_description="${description}", scope="mcp", resource_metadata="${LOOPBACK}/.well-known/oauth-protected-resource/mcp/files"`,
  },
  body: {
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message: `Unauthorized: ${description.charAt(0).toLowerCase()}${description.slice(1)}`,
    },
  },
});

describe("auth.jwt.jwks: keys from a JWKS URL", () => {
  test("jwt auth with jwks takes tokens signed with a published key, fetching the set once", async () => {
    const published1 = await keyPair("k1");
    const stranger = await keyPair("k9");
    published = { keys: [published1.jwk] };
    status = 200;
    fetches = 0;
    const { call, client } = front();
    const answers = [
      (await call(await token(published1))).status,
      (await call(await token(published1, { scope: "mcp files:read" }))).status,
    ];
    assert.deepEqual([answers, fetches], [[200, 200], 1]);
    // A kid the set does not hold makes jose refetch (within its cooldown it does not).
    assert.deepEqual(
      await call(await token(stranger)),
      invalid("The token was signed with a key the authorization server does not publish"),
    );
    await client.close();
  });

  test("jwt auth with jwks takes a key published after the set was fetched once 5 s have passed since that fetch, not before", async () => {
    const first = await keyPair("k1");
    const rotated = await keyPair("k2");
    published = { keys: [first.jwk] };
    status = 200;
    fetches = 0;
    const { call, client } = front();
    try {
      const before = [(await call(await token(first))).status];
      published = { keys: [first.jwk, rotated.jwk] };
      before.push((await call(await token(rotated))).status);
      assert.deepEqual([before, fetches], [[200, 401], 1]);
      // The cooldown is the point here: real time, with a margin.
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      assert.deepEqual([(await call(await token(rotated))).status, fetches], [200, 2]);
    } finally {
      await client.close();
    }
  });

  test("jwt auth with jwks answers every new token 503 while the JWKS endpoint answers 500 (fail closed, not the token's fault), and tells the operator", async () => {
    const pair = await keyPair("k1");
    published = { keys: [pair.jwk] };
    status = 500;
    fetches = 0;
    const { call, client } = front();
    try {
      const { value, logged } = await recordingConsoleErrors(async () => await call(await token(pair)));
      assert.deepEqual(value, KEYS_UNAVAILABLE);
      assert.deepEqual([fetches, logged.map(([line]) => line)], [1, [KEYS_LOGGED]]);
    } finally {
      status = 200;
      await client.close();
    }
  });

  test("jwt auth with jwks answers 503 when the JWKS URL answers JSON that is not a key set (a discovery document), and tells the operator", async () => {
    const pair = await keyPair("k1");
    published = { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` } as never;
    status = 200;
    await assertUnavailableTwiceToldOnce(front(), await token(pair));
  });

  test("jwt auth with jwks, while the JWKS endpoint fails, fetches it again for a new token only 5 s after the last try, however many tokens come", async () => {
    const pair = await keyPair("k1");
    const stranger = await keyPair("k9");
    published = { keys: [pair.jwk] };
    status = 500;
    fetches = 0;
    let now = Date.now();
    const { call, client } = front(jwksUrl, { now: () => now });
    try {
      const { value } = await recordingConsoleErrors(async () => {
        const answers = [];
        for (let i = 0; i < 20; i++) {
          answers.push((await call(await token(i % 2 === 0 ? pair : stranger))).status);
        }
        return answers;
      });
      assert.deepEqual([value, fetches], [Array(20).fill(503), 1]);
      status = 200;
      now += 4_999;
      assert.deepEqual([(await call(await token(pair))).status, fetches], [503, 1]);
      now += 1;
      assert.deepEqual([(await call(await token(pair))).status, fetches], [200, 2]);
    } finally {
      status = 200;
      await client.close();
    }
  });

  test(
    "jwt auth with jwks answers 503 while the JWKS endpoint is unreachable, naming the keys that could not be fetched",
    async () => {
      const closed = createServer();
      closed.listen(0, "127.0.0.1");
      await once(closed, "listening");
      const port = (closed.address() as { port: number }).port;
      closed.close();
      await once(closed, "close");
      const pair = await keyPair("k1");
      await assertUnavailableTwiceToldOnce(front(`http://127.0.0.1:${port}/jwks`), await token(pair));
    },
  );

  test("jwt auth with jwks answers 503 when the key published for the token cannot be read (an x of 64 bytes), and tells the operator once a minute", async () => {
    const pair = await keyPair("k1");
    // An x of 64 bytes, where P-256 has 32: WebCrypto refuses the key on every runtime with a
    // DOMException, whose code is a number, not jose's string.
    published = { keys: [{ ...pair.jwk, x: btoa("\u0007".repeat(64)).replace(/=+$/, "") }] };
    status = 200;
    await assertUnavailableTwiceToldOnce(front(), await token(pair));
  });
});

/** Two calls with `bearer` are answered 503; the operator is told once a minute, so once. */
async function assertUnavailableTwiceToldOnce(
  { call, client }: ReturnType<typeof front>,
  bearer: string,
): Promise<void> {
  try {
    const { value, logged } = await recordingConsoleErrors(
      async () => [await call(bearer), await call(bearer)],
    );
    assert.deepEqual([value, logged.map(([line]) => line)], [[KEYS_UNAVAILABLE, KEYS_UNAVAILABLE], [
      KEYS_LOGGED,
    ]]);
  } finally {
    await client.close();
  }
}
