// The client credentials sign-in end to end: a real authorization server (oidc-provider), a real
// MCP server (@modelcontextprotocol/server) that verifies the tokens against its JWKS, sluice's
// client in both eras, no stand-ins.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { ClientError } from "../../src/errors.ts";
import { createClient } from "../../src/legacy.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { type AuthorizationServer, startAuthorizationServer } from "../_support/authorization-server.ts";
import {
  type ProtectedMcpServer,
  SCOPE_DEFAULT_CASES,
  startProtectedMcpServer,
} from "../_support/protected-mcp-server.ts";

const SECRET = "s3cret-for-tests-only";
const environment = (values: Record<string, string>) => (name: string) => values[name];

describe("transport.auth.clientCredentials against oidc-provider and an SDK server", () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  before(async () => {
    as = await startAuthorizationServer({
      scopes: ["mcp:tools", "mcp:admin"],
      accessTokenTtl: 600,
      clients: [{ clientId: "sluice-m2m", clientSecret: SECRET }],
    });
    mcp = await startProtectedMcpServer(as);
  });
  after(async () => {
    await mcp.close();
    await as.close();
  });

  const policy = (era: "modern" | "legacy", secretEnv = "UPSTREAM_SECRET"): Policy => ({
    server: "upstream",
    era,
    transport: {
      url: mcp.url,
      auth: { clientCredentials: { clientId: "sluice-m2m", clientSecretEnv: secretEnv } },
    },
  });

  /** A modern client of the `scoped` server at `url`, signing in as sluice-m2m with `scopes`, if any. */
  const scopedClient = (url: string, scopes?: readonly string[]) =>
    createClient({
      name: "m2m",
      policies: [{
        server: "scoped",
        era: "modern",
        transport: {
          url,
          auth: {
            clientCredentials: {
              clientId: "sluice-m2m",
              clientSecretEnv: "S",
              ...(scopes === undefined ? {} : { scopes }),
            },
          },
        },
      }],
      environment: environment({ S: SECRET }),
    });

  for (const era of ["modern", "legacy"] as const) {
    test(`${era} era: signs in on the 401, then reuses the one token for every call`, async () => {
      const tokensBefore = as.tokenRequests();
      const seen = mcp.requests().length;
      const client = createClient({
        name: "m2m",
        policies: [policy(era)],
        environment: environment({ UPSTREAM_SECRET: SECRET }),
      });
      try {
        const tools = await client.listTools("upstream");
        assert.deepEqual(tools.tools.map((tool) => tool.name), ["whoami"]);
        const first = await client.callTool("upstream", "whoami");
        const second = await client.callTool("upstream", "whoami");
        assert.deepEqual(first.content, [{ type: "text", text: "sluice-m2m" }]);
        assert.deepEqual(second.content, [{ type: "text", text: "sluice-m2m" }]);
      } finally {
        await client.close();
      }
      assert.equal(as.tokenRequests() - tokensBefore, 1);
      const requests = mcp.requests().slice(seen);
      // The first request goes without a token and is refused; every later one carries the same token.
      assert.equal(requests[0]?.token, "");
      assert.equal(requests[0]?.claims, undefined);
      const later = requests.slice(1);
      assert.equal(new Set(later.map((request) => request.token)).size, 1);
      assert.deepEqual(
        later.map((request) => [request.claims?.sub, request.claims?.aud, request.claims?.client_id]),
        later.map(() => ["sluice-m2m", mcp.url, "sluice-m2m"]),
      );
      assert.deepEqual(
        later.filter((request) => request.method === "POST").map((request) => request.rpc),
        era === "modern" ? ["tools/list", "tools/call", "tools/call"] : [
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/list",
          "tools/call",
          "tools/call",
        ],
      );
    });
  }

  test("a token past its lifetime is replaced before it is sent again", async () => {
    let now = Date.now();
    const tokensBefore = as.tokenRequests();
    const seen = mcp.requests().length;
    const client = createClient({
      name: "m2m",
      policies: [policy("modern")],
      environment: environment({ UPSTREAM_SECRET: SECRET }),
      clock: { now: () => now },
    });
    try {
      await client.callTool("upstream", "whoami");
      now += 600_000; // the token's whole lifetime (accessTokenTtl 600 s)
      await client.callTool("upstream", "whoami");
    } finally {
      await client.close();
    }
    assert.equal(as.tokenRequests() - tokensBefore, 2);
    const requests = mcp.requests().slice(seen);
    // One refusal (the first request, without a token); the first call's tools/list and
    // tools/call carry the first token, the second call a new one, asked for before it went out.
    assert.deepEqual(requests.map((request) => [request.rpc, request.claims === undefined]), [
      ["tools/list", true],
      ["tools/list", false],
      ["tools/call", false],
      ["tools/call", false],
    ]);
    const tokens = requests.slice(1).map((request) => request.token);
    assert.deepEqual(tokens.map((token) => tokens.indexOf(token)), [0, 0, 2]);
  });

  test("a token the server stops taking is replaced once, on its 401", async () => {
    const tokensBefore = as.tokenRequests();
    const seen = mcp.requests().length;
    const client = createClient({
      name: "m2m",
      policies: [policy("modern")],
      environment: environment({ UPSTREAM_SECRET: SECRET }),
    });
    try {
      await client.callTool("upstream", "whoami");
      const [, used] = mcp.requests().slice(seen);
      mcp.revoke(used?.token ?? "");
      const result = await client.callTool("upstream", "whoami");
      assert.deepEqual(result.content, [{ type: "text", text: "sluice-m2m" }]);
    } finally {
      await client.close();
    }
    assert.equal(as.tokenRequests() - tokensBefore, 2);
    const requests = mcp.requests().slice(seen);
    assert.deepEqual(requests.map((request) => request.claims === undefined), [
      true,
      false,
      false,
      true,
      false,
    ]);
    // The revoked token was sent once more, then never again.
    assert.equal(requests[3]?.token, requests[2]?.token);
    assert.notEqual(requests[4]?.token, requests[3]?.token);
  });

  for (const era of ["modern", "legacy"] as const) {
    test(`${era} era: a wrong client secret fails the call with the authorization server's refusal`, async () => {
      const client = createClient({
        name: "m2m",
        policies: [policy(era)],
        environment: environment({ UPSTREAM_SECRET: "not-the-secret" }),
      });
      try {
        await assert.rejects(client.listTools("upstream"), (error: unknown) => {
          assert.ok(error instanceof ClientError);
          assert.equal(error.kind, "transport");
          assert.equal(error.serverId, "upstream");
          assert.equal(
            error.message,
            `Server "upstream": ${
              era === "legacy" ? "initialize failed: " : ""
            }sign-in failed: the authorization server "${as.issuer}" refused the token request with HTTP 401, error "invalid_client" ("client authentication failed")`,
          );
          assert.equal(error.message.includes("not-the-secret"), false);
          return true;
        });
      } finally {
        await client.close();
      }
    });
  }

  test("an unset secret variable fails the call naming the variable, not a value", async () => {
    const client = createClient({
      name: "m2m",
      policies: [policy("modern", "UNSET_SECRET")],
      environment: () => undefined,
    });
    try {
      await assert.rejects(client.listTools("upstream"), {
        name: "ClientError",
        kind: "transport",
        message:
          'Server "upstream": sign-in failed: the environment variable "UNSET_SECRET" named by "transport.auth.clientCredentials.clientSecretEnv" is not set',
      });
    } finally {
      await client.close();
    }
  });

  test("a 403 insufficient_scope gets a token for the union of the scopes, and the call is retried once", async () => {
    const scoped = await startProtectedMcpServer(as, { toolCallScope: "mcp:admin" });
    const tokensBefore = as.tokenRequests();
    const client = scopedClient(scoped.url, ["mcp:tools"]);
    try {
      const result = await client.callTool("scoped", "whoami");
      assert.deepEqual(result.content, [{ type: "text", text: "sluice-m2m" }]);
    } finally {
      await client.close();
      await scoped.close();
    }
    assert.equal(as.tokenRequests() - tokensBefore, 2);
    assert.deepEqual(
      scoped.requests().map((request) => [request.rpc, request.claims?.scope ?? null]),
      [
        ["tools/list", null],
        ["tools/list", "mcp:tools"],
        ["tools/call", "mcp:tools"],
        ["tools/call", "mcp:tools mcp:admin"],
      ],
    );
  });

  // SCOPE_DEFAULT_CASES; with no scope at all, the token request has no `scope`.
  for (const { name, scopes, server, asked } of SCOPE_DEFAULT_CASES) {
    test(`the token request's scope: ${name}`, async () => {
      const scoped = await startProtectedMcpServer(as, server);
      const formsBefore = as.tokenForms().length;
      const client = scopedClient(scoped.url, scopes);
      try {
        const result = await client.callTool("scoped", "whoami");
        assert.deepEqual(result.content, [{ type: "text", text: "sluice-m2m" }]);
      } finally {
        await client.close();
        await scoped.close();
      }
      const forms = as.tokenForms().slice(formsBefore);
      assert.deepEqual(forms.map((form) => [form.get("grant_type"), form.get("scope")]), [
        ["client_credentials", asked.length === 0 ? null : asked.join(" ")],
      ]);
    });
  }

  test("private_key_jwt: signs its assertion with the PKCS#8 key from the environment", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const keyed = await startAuthorizationServer({
      clients: [{ clientId: "sluice-jwt", publicKey: { ...await exportJWK(publicKey), alg: "ES256" } }],
    });
    const server = await startProtectedMcpServer(keyed);
    const client = createClient({
      name: "m2m",
      policies: [{
        server: "keyed",
        era: "legacy",
        transport: {
          url: server.url,
          auth: { clientCredentials: { clientId: "sluice-jwt", privateKeyEnv: "KEY", algorithm: "ES256" } },
        },
      }],
      environment: environment({ KEY: await exportPKCS8(privateKey) }),
    });
    try {
      const result = await client.callTool("keyed", "whoami");
      assert.deepEqual(result.content, [{ type: "text", text: "sluice-jwt" }]);
      assert.equal(keyed.tokenRequests(), 1);
    } finally {
      await client.close();
      await server.close();
      await keyed.close();
    }
  });

  test("without an environment option the client reads process.env", async () => {
    process.env.SLUICE_TEST_UPSTREAM_SECRET = SECRET;
    const client = createClient({ name: "m2m", policies: [policy("modern", "SLUICE_TEST_UPSTREAM_SECRET")] });
    try {
      const result = await client.callTool("upstream", "whoami");
      assert.deepEqual(result.content, [{ type: "text", text: "sluice-m2m" }]);
    } finally {
      await client.close();
      delete process.env.SLUICE_TEST_UPSTREAM_SECRET;
    }
  });
});
