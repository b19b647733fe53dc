// Discovery for the upstream sign-in (src/auth/_discovery.ts): the URL order of the MCP spec and
// the checks on what comes back, against a scripted fetch that records what was asked.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { discoverAuthorizationServer, discoverResource } from "../../src/auth/_discovery.ts";
import { UpstreamAuthError } from "../../src/upstream-auth-error.ts";

/** A fetch answering from `documents` by URL (404 otherwise), recording every URL asked for. */
function scripted(documents: Record<string, unknown>) {
  const asked: string[] = [];
  const fetch = (url: string, init: RequestInit) => {
    asked.push(`${init.method ?? "GET"} ${url} redirect=${init.redirect ?? "follow"}`);
    const body = documents[url];
    return Promise.resolve(
      body === undefined ? new Response("not found", { status: 404 }) : Response.json(body),
    );
  };
  return { fetch, asked };
}

describe("discoverResource()", () => {
  test("tries the path-suffixed well-known URL, then the root one, and takes a resource above the endpoint", async () => {
    const { fetch, asked } = scripted({
      "https://mcp.example.com/.well-known/oauth-protected-resource": {
        resource: "https://mcp.example.com",
        authorization_servers: ["https://as.example.com"],
        scopes_supported: ["mcp:tools"],
      },
    });
    const metadata = await discoverResource(new URL("https://mcp.example.com/mcp"), {
      metadataUrl: undefined,
      fetch,
    });
    assert.deepEqual(metadata, {
      resource: "https://mcp.example.com",
      authorizationServers: ["https://as.example.com"],
      scopesSupported: ["mcp:tools"],
      dpopRequired: false,
    });
    assert.deepEqual(asked, [
      "GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp redirect=manual",
      "GET https://mcp.example.com/.well-known/oauth-protected-resource redirect=manual",
    ]);
  });

  test("uses the challenge's resource_metadata URL alone when given", async () => {
    const { fetch, asked } = scripted({
      "https://mcp.example.com/custom/prm.json": {
        resource: "https://mcp.example.com/mcp",
        authorization_servers: ["https://as.example.com/tenant1"],
      },
    });
    const metadata = await discoverResource(new URL("https://mcp.example.com/mcp"), {
      metadataUrl: "https://mcp.example.com/custom/prm.json",
      fetch,
    });
    assert.deepEqual(metadata, {
      resource: "https://mcp.example.com/mcp",
      authorizationServers: ["https://as.example.com/tenant1"],
      scopesSupported: [],
      dpopRequired: false,
    });
    assert.deepEqual(asked, ["GET https://mcp.example.com/custom/prm.json redirect=manual"]);
  });

  test("refuses metadata naming another resource", async () => {
    const { fetch } = scripted({
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp": {
        resource: "https://evil.example.com/mcp",
        authorization_servers: ["https://as.example.com"],
      },
    });
    await assert.rejects(
      discoverResource(new URL("https://mcp.example.com/mcp"), { metadataUrl: undefined, fetch }),
      new UpstreamAuthError(
        'the protected resource metadata names the resource "https://evil.example.com/mcp", expected "https://mcp.example.com/mcp" or a URL above it on the same origin',
      ),
    );
  });

  test("refuses a plain http resource_metadata URL off loopback", async () => {
    const { fetch, asked } = scripted({});
    await assert.rejects(
      discoverResource(new URL("https://mcp.example.com/mcp"), {
        metadataUrl: "http://mcp.example.com/prm",
        fetch,
      }),
      new UpstreamAuthError(
        'the resource_metadata URL of the challenge must use https unless its host is loopback, received "http://mcp.example.com/prm"',
      ),
    );
    assert.deepEqual(asked, []);
  });
});

describe("discoverAuthorizationServer()", () => {
  const metadata = (issuer: string) => ({
    issuer,
    token_endpoint: `${issuer}/token`,
    grant_types_supported: ["client_credentials"],
  });

  test("for an issuer with a path: RFC 8414 inserted, OpenID inserted, OpenID appended", async () => {
    const issuer = "https://as.example.com/tenant1";
    const { fetch, asked } = scripted({
      "https://as.example.com/tenant1/.well-known/openid-configuration": metadata(issuer),
    });
    const as = await discoverAuthorizationServer(issuer, { fetch });
    assert.deepEqual(as, metadata(issuer));
    assert.deepEqual(asked, [
      "GET https://as.example.com/.well-known/oauth-authorization-server/tenant1 redirect=manual",
      "GET https://as.example.com/.well-known/openid-configuration/tenant1 redirect=manual",
      "GET https://as.example.com/tenant1/.well-known/openid-configuration redirect=manual",
    ]);
  });

  test("for an issuer without a path: RFC 8414, then OpenID", async () => {
    const issuer = "https://as.example.com";
    const { fetch, asked } = scripted({
      "https://as.example.com/.well-known/openid-configuration": metadata(issuer),
    });
    assert.deepEqual(await discoverAuthorizationServer(issuer, { fetch }), metadata(issuer));
    assert.deepEqual(asked, [
      "GET https://as.example.com/.well-known/oauth-authorization-server redirect=manual",
      "GET https://as.example.com/.well-known/openid-configuration redirect=manual",
    ]);
  });

  test("refuses metadata that names another issuer", async () => {
    const { fetch } = scripted({
      "https://as.example.com/.well-known/oauth-authorization-server": metadata(
        "https://attacker.example.com",
      ),
    });
    await assert.rejects(
      discoverAuthorizationServer("https://as.example.com", { fetch }),
      new UpstreamAuthError(
        'the authorization server metadata for "https://as.example.com" names another issuer; it is not used',
      ),
    );
  });

  test("refuses a plain http issuer off loopback, and reports when nothing is found", async () => {
    const { fetch, asked } = scripted({});
    await assert.rejects(
      discoverAuthorizationServer("http://as.example.com", { fetch }),
      new UpstreamAuthError(
        `the authorization server's issuer must use https unless its host is loopback, received "http://as.example.com/"`,
      ),
    );
    assert.deepEqual(asked, []);
    await assert.rejects(
      discoverAuthorizationServer("http://127.0.0.1:9/", { fetch }),
      new UpstreamAuthError('no authorization server metadata found for "http://127.0.0.1:9/"'),
    );
  });
});
