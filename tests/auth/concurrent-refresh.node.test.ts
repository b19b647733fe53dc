// Concurrent refreshes across instances make one refresh request: two clients (two instances of
// an app) share one Upstash token store (createUpstashTokenStore over @upstash/redis, the
// project's REST shim and a real redis-server), hold the same principal's grant, and are both
// past its expiry when calls start on both at once. oidc-provider rotates refresh tokens, so a
// second refresh with the spent one would fail with invalid_grant: every call answering the
// person's subject, with exactly one token request, shows the others waited for the one refresh.
//
// The stores are watched (each `claim` delegates to the real store and its answer is recorded),
// to show that both instances reached the refresh and one of them lost the claim.
//
// Node only: oidc-provider is a Node library.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { createClient } from "../../src/legacy.ts";
import type { Client } from "../../src/client/client-types.ts";
import type { TokenStore } from "../../src/auth/token-store.ts";
import { createUpstashTokenStore } from "../../src/auth/upstash-token-store.ts";
import { type AuthorizationServer, startAuthorizationServer } from "../_support/authorization-server.ts";
import { type ProtectedMcpServer, startProtectedMcpServer } from "../_support/protected-mcp-server.ts";
import { type RedisServer, redisTestsEnabled, startRedis } from "../_support/redis-server.ts";
import { SHIM_TIMEOUT_MS, startUpstashShim, type UpstashShim } from "../_support/upstash-rest-shim.ts";

type Era = "modern" | "legacy";
const KEY = "concurrent-refresh-test-key-0123456789abcdef";
const REDIRECT_URI = "http://127.0.0.1:53682/callback";
/** The access tokens' lifetime at the authorization server, in seconds. */
const TOKEN_TTL = 600;
const CALLS_PER_INSTANCE = 4;
const ROUNDS = 3;

/** One `claim` of a refresh: which instance asked, and whether it got it. */
interface RefreshClaim {
  readonly instance: string;
  readonly won: boolean;
}

/** The store, with the answers to its refresh claims recorded. */
function watched(store: TokenStore, instance: string, claims: RefreshClaim[]): TokenStore {
  return {
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    delete: (key) => store.delete(key),
    claim: async (key, ttlMs) => {
      const won = await store.claim(key, ttlMs);
      if (key.startsWith("refresh|")) claims.push({ instance, won });
      return won;
    },
  };
}

if (redisTestsEnabled()) {
  describe("refreshes of one grant across instances sharing an Upstash token store", () => {
    let as: AuthorizationServer;
    let mcp: ProtectedMcpServer;
    let redis: RedisServer;
    let shim: UpstashShim;
    let prefixes = 0;

    before(async () => {
      as = await startAuthorizationServer({ scopes: ["mcp:tools"], accessTokenTtl: TOKEN_TTL });
      mcp = await startProtectedMcpServer(as);
      redis = await startRedis();
      shim = await startUpstashShim({ redisPort: redis.port });
    });

    after(async () => {
      await mcp?.close();
      await as?.close();
      await shim?.stop();
      await redis?.stop();
    });

    for (const era of ["modern", "legacy"] as const) {
      test(`${era} era: calls on two instances past the token's expiry make one refresh request per round, and all answer the person's subject`, async () => {
        let now = Date.now();
        const clock = { now: () => now };
        const prefix = `refresh${++prefixes}`;
        const claims: RefreshClaim[] = [];
        /** An instance: its own client, its own Redis client, the one store's key and prefix. */
        const instance = (name: string, asksThePerson: boolean) => {
          const redisClient = new Redis({
            url: shim.url,
            token: shim.token,
            retry: { retries: 0 },
            enableTelemetry: false,
          });
          const tokens = watched(
            createUpstashTokenStore({ redis: redisClient, key: KEY, prefix, timeoutMs: SHIM_TIMEOUT_MS }),
            name,
            claims,
          );
          const client: Client = createClient({
            name: `app-${name}`,
            clock,
            signIn: { tokens, redirectUri: REDIRECT_URI },
            policies: [{
              server: "files",
              era,
              transport: { url: mcp.url, auth: { oauth: { scopes: ["mcp:tools"] } } },
            }],
            ...(asksThePerson
              ? {
                handler: {
                  authorize: async (prompt, ctx) => {
                    const back = await as.authorize(prompt.url, "ivan");
                    await client.completeAuthorization(ctx.serverId, back.href);
                    return { action: "accept" as const };
                  },
                },
              }
              : {}),
          });
          return { client, tokens };
        };
        // Only the first instance can ask the person: the second works from the shared grant.
        const a = instance("a", true);
        const b = instance("b", false);
        const whoami = async (client: Client) => (await client.callTool("files", "whoami")).content;
        const ivan = [{ type: "text", text: "ivan" }];
        try {
          assert.deepEqual(await whoami(a.client), ivan);
          assert.deepEqual(await whoami(b.client), ivan);
          const key = `grant|files|${encodeURIComponent(mcp.url)}|`;
          const signedIn = JSON.parse((await b.tokens.get(key)) ?? "null");

          for (let round = 1; round <= ROUNDS; round++) {
            now += (TOKEN_TTL + 60) * 1000;
            const requested = as.tokenRequests();
            const claimed = claims.length;
            const calls = [a.client, b.client].flatMap((client) =>
              Array.from({ length: CALLS_PER_INSTANCE }, () => whoami(client))
            );
            const settled = await Promise.allSettled(calls);
            assert.deepEqual(
              settled.map((result) =>
                result.status === "fulfilled" ? result.value : String((result.reason as Error).message)
              ),
              calls.map(() => ivan),
              `round ${round}`,
            );
            assert.equal(as.tokenRequests() - requested, 1, `round ${round}: token requests`);
            // Each instance refreshed once at most (its own calls share one refresh), and of the
            // two claims on the shared store exactly one won: the other instance waited.
            const roundClaims = claims.slice(claimed);
            assert.deepEqual(
              roundClaims.map((claim) => claim.won).sort(),
              [false, true],
              `round ${round}: ${JSON.stringify(roundClaims)}`,
            );
            assert.deepEqual(roundClaims.map((claim) => claim.instance).sort(), ["a", "b"]);
          }

          // The grant was rotated each round: the refresh token it was signed in with is spent,
          // and the authorization server refuses it, as it would have refused a second refresh.
          const current = JSON.parse((await a.tokens.get(key)) ?? "null");
          assert.notEqual(current.refreshToken, signedIn.refreshToken);
          const replay = await fetch(`${as.issuer}/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "refresh_token",
              refresh_token: signedIn.refreshToken,
              client_id: signedIn.clientId,
            }),
          });
          assert.deepEqual([replay.status, (await replay.json() as { error: string }).error], [
            400,
            "invalid_grant",
          ]);
        } finally {
          await a.client.close();
          await b.client.close();
        }
      });
    }
  });
}
