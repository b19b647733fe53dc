// Discovery for the upstream sign-in (src/auth/_discovery.ts): the URL order of the MCP spec and
// the checks on what comes back, against a scripted fetch that records what was asked.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { discoverAuthorizationServer, discoverResource } from "../../src/auth/_discovery.ts";
import { UpstreamAuthError } from "../../src/upstream-auth-error.ts";

/** The MCP endpoint of every test but those about the reach of the URLs: on a public host. */
const MCP = new URL("https://mcp.example.com/mcp");

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
  test("says what the well-known URLs answered when a server is down, not only that nothing was found", async () => {
    const asked: string[] = [];
    const fetch = (url: string) => {
      asked.push(url);
      return Promise.resolve(new Response("busy", { status: url.endsWith("/mcp") ? 503 : 404 }));
    };
    await assert.rejects(
      discoverResource(MCP, { metadataUrl: undefined, fetch }),
      new UpstreamAuthError(
        'no protected resource metadata found for "https://mcp.example.com/mcp" at the well-known URLs (HTTP 503, then HTTP 404)',
      ),
    );
    assert.equal(asked.length, 2);
  });

  test("a metadata request that cannot be sent names its URL", async () => {
    const fetch = () =>
      Promise.reject(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") }));
    await assert.rejects(
      discoverResource(MCP, { metadataUrl: undefined, fetch }),
      new UpstreamAuthError(
        'the request to "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" failed: fetch failed (connect ECONNREFUSED)',
      ),
    );
  });

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
        `the protected resource metadata at the endpoint's well-known URL names the resource "https://evil.example.com/mcp", expected "https://mcp.example.com/mcp" (without its query, with or without a trailing slash)`,
      ),
    );
    // The one the challenge names, as well.
    const given = scripted({
      "https://mcp.example.com/prm": {
        resource: "https://evil.example.com/mcp",
        authorization_servers: ["https://as.example.com"],
      },
    });
    await assert.rejects(
      discoverResource(new URL("https://mcp.example.com/mcp"), {
        metadataUrl: "https://mcp.example.com/prm",
        fetch: given.fetch,
      }),
      new UpstreamAuthError(
        'the protected resource metadata names the resource "https://evil.example.com/mcp", expected "https://mcp.example.com/mcp" or a URL above it on the same origin',
      ),
    );
  });

  test("takes a document at the endpoint's own well-known URL that names the endpoint without its query, or without or with a trailing slash", async () => {
    const taken: string[] = [];
    for (
      const [endpoint, resource] of [
        ["https://mcp.example.com/mcp?tenant=acme", "https://mcp.example.com/mcp"],
        ["https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"],
        ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp/"],
      ] as const
    ) {
      const url = new URL(endpoint);
      const wellKnown = new URL(url);
      wellKnown.pathname = `/.well-known/oauth-protected-resource${url.pathname}`;
      const { fetch } = scripted({
        [wellKnown.href]: { resource, authorization_servers: ["https://as.example.com"] },
      });
      taken.push((await discoverResource(url, { metadataUrl: undefined, fetch })).resource);
    }
    assert.deepEqual(taken, [
      "https://mcp.example.com/mcp",
      "https://mcp.example.com/mcp",
      "https://mcp.example.com/mcp/",
    ]);
    // Named by a challenge, without the endpoint's query, it is the same document.
    const { fetch } = scripted({
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp": {
        resource: "https://mcp.example.com/mcp/",
        authorization_servers: ["https://as.example.com"],
      },
    });
    const named = await discoverResource(new URL("https://mcp.example.com/mcp?key=1"), {
      metadataUrl: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
      fetch,
    });
    assert.equal(named.resource, "https://mcp.example.com/mcp/");
  });

  test("refuses a document at the endpoint's own well-known URL that names a URL above the endpoint: the token would be for every endpoint under it (RFC 9728 §3.3)", async () => {
    const { fetch, asked } = scripted({
      "https://mcp.example.com/.well-known/oauth-protected-resource/tenant1/mcp": {
        resource: "https://mcp.example.com",
        authorization_servers: ["https://as.example.com"],
      },
    });
    await assert.rejects(
      discoverResource(new URL("https://mcp.example.com/tenant1/mcp"), { metadataUrl: undefined, fetch }),
      new UpstreamAuthError(
        `the protected resource metadata at the endpoint's well-known URL names the resource "https://mcp.example.com", expected "https://mcp.example.com/tenant1/mcp" (without its query, with or without a trailing slash)`,
      ),
    );
    assert.deepEqual(asked, [
      "GET https://mcp.example.com/.well-known/oauth-protected-resource/tenant1/mcp redirect=manual",
    ]);
    // The same URL named by the challenge is the same document.
    await assert.rejects(
      discoverResource(new URL("https://mcp.example.com/tenant1/mcp"), {
        metadataUrl: "https://mcp.example.com/.well-known/oauth-protected-resource/tenant1/mcp",
        fetch,
      }),
      new UpstreamAuthError(
        `the protected resource metadata at the endpoint's well-known URL names the resource "https://mcp.example.com", expected "https://mcp.example.com/tenant1/mcp" (without its query, with or without a trailing slash)`,
      ),
    );
  });

  test("hides the values of the endpoint's query (a key, often) in what it reports", async () => {
    const server = new URL("https://mcp.example.com/mcp?key=TOPSECRET");
    const none = scripted({});
    await assert.rejects(
      discoverResource(server, { metadataUrl: undefined, fetch: none.fetch }),
      new UpstreamAuthError(
        'no protected resource metadata found for "https://mcp.example.com/mcp?key=…" at the well-known URLs',
      ),
    );
    const other = scripted({
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp?key=TOPSECRET": {
        resource: "https://evil.example.com/mcp",
        authorization_servers: ["https://as.example.com"],
      },
    });
    await assert.rejects(
      discoverResource(server, { metadataUrl: undefined, fetch: other.fetch }),
      new UpstreamAuthError(
        `the protected resource metadata at the endpoint's well-known URL names the resource "https://evil.example.com/mcp", expected "https://mcp.example.com/mcp?key=…" (without its query, with or without a trailing slash)`,
      ),
    );
    // A metadata URL the challenge names, with the same key, found or refused.
    await assert.rejects(
      discoverResource(server, {
        metadataUrl: "https://mcp.example.com/prm?key=TOPSECRET",
        fetch: none.fetch,
      }),
      new UpstreamAuthError(
        'no protected resource metadata found for "https://mcp.example.com/mcp?key=…" at "https://mcp.example.com/prm?key=…"',
      ),
    );
    await assert.rejects(
      discoverResource(server, {
        metadataUrl: "http://mcp.example.com/prm?key=TOPSECRET",
        fetch: none.fetch,
      }),
      new UpstreamAuthError(
        'the resource_metadata URL of the challenge must use https unless its host is loopback, received "http://mcp.example.com/prm?key=…"',
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
    const as = await discoverAuthorizationServer(issuer, { serverUrl: MCP, fetch });
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
    assert.deepEqual(await discoverAuthorizationServer(issuer, { serverUrl: MCP, fetch }), metadata(issuer));
    assert.deepEqual(asked, [
      "GET https://as.example.com/.well-known/oauth-authorization-server redirect=manual",
      "GET https://as.example.com/.well-known/openid-configuration redirect=manual",
    ]);
  });

  test("metadata answered HTTP 503 is a server that is down, not invalid metadata; an unreachable one names its URL", async () => {
    const down = () => Promise.resolve(new Response("busy", { status: 503 }));
    await assert.rejects(
      discoverAuthorizationServer("https://as.example.com", { serverUrl: MCP, fetch: down }),
      new UpstreamAuthError(
        'the authorization server metadata for "https://as.example.com" could not be read: HTTP 503',
      ),
    );
    const unreachable = () =>
      Promise.reject(new TypeError("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND") }));
    await assert.rejects(
      discoverAuthorizationServer("https://as.example.com", { serverUrl: MCP, fetch: unreachable }),
      new UpstreamAuthError(
        'the request to "https://as.example.com/.well-known/oauth-authorization-server" failed: fetch failed (getaddrinfo ENOTFOUND)',
      ),
    );
  });

  test("refuses metadata that names another issuer", async () => {
    const { fetch } = scripted({
      "https://as.example.com/.well-known/oauth-authorization-server": metadata(
        "https://attacker.example.com",
      ),
    });
    await assert.rejects(
      discoverAuthorizationServer("https://as.example.com", { serverUrl: MCP, fetch }),
      new UpstreamAuthError(
        'the authorization server metadata for "https://as.example.com" names the issuer "https://attacker.example.com", which is not identical; it is not used',
      ),
    );
  });

  test("hides the values of an issuer's query in what it reports", async () => {
    const { fetch } = scripted({});
    await assert.rejects(
      discoverAuthorizationServer("https://as.example.com/?tenant_secret=S", { serverUrl: MCP, fetch }),
      new UpstreamAuthError(
        'no authorization server metadata found for "https://as.example.com/?tenant_secret=…"',
      ),
    );
  });

  test("takes an issuer without a path whose metadata differs only by the trailing slash (Google's), and uses the metadata's", async () => {
    for (
      const [asked, named] of [["https://as.example.com/", "https://as.example.com"], [
        "https://as.example.com",
        "https://as.example.com/",
      ]]
    ) {
      const { fetch } = scripted({
        "https://as.example.com/.well-known/oauth-authorization-server": metadata(named!),
      });
      assert.equal((await discoverAuthorizationServer(asked!, { serverUrl: MCP, fetch })).issuer, named);
    }
  });

  test("refuses metadata whose issuer is the same URL written otherwise: identical means as written (RFC 8414 §3.3)", async () => {
    const cases = [
      ["https://as.example.com/tenant", "HTTPS://as.example.com/tenant"],
      ["https://as.example.com/tenant", "https://as.example.com/tenant/"],
      ["https://as.example.com/tenant/", "https://as.example.com/tenant"],
      ["https://as.example.com/", "HTTPS://as.example.com"],
    ];
    for (const [asked, named] of cases) {
      const { fetch } = scripted({
        "https://as.example.com/.well-known/oauth-authorization-server/tenant": metadata(named!),
        "https://as.example.com/.well-known/oauth-authorization-server/tenant/": metadata(named!),
        "https://as.example.com/.well-known/oauth-authorization-server": metadata(named!),
      });
      await assert.rejects(
        discoverAuthorizationServer(asked!, { serverUrl: MCP, fetch }),
        new UpstreamAuthError(
          `the authorization server metadata for "${asked}" names the issuer "${named}", which is not identical; it is not used`,
        ),
      );
    }
  });

  test("refuses a plain http issuer off loopback, and reports when nothing is found", async () => {
    const { fetch, asked } = scripted({});
    await assert.rejects(
      discoverAuthorizationServer("http://as.example.com", { serverUrl: MCP, fetch }),
      new UpstreamAuthError(
        `the authorization server's issuer must use https unless its host is loopback, received "http://as.example.com/"`,
      ),
    );
    assert.deepEqual(asked, []);
    // A server on loopback (development) may have its authorization server there, over http.
    await assert.rejects(
      discoverAuthorizationServer("http://127.0.0.1:9/", {
        serverUrl: new URL("http://127.0.0.1:8/mcp"),
        fetch,
      }),
      new UpstreamAuthError('no authorization server metadata found for "http://127.0.0.1:9/"'),
    );
  });
});

describe("the URLs discovery follows reach no further in than the MCP server (SSRF)", () => {
  const refusedFor = (what: string, url: string, server = "https://mcp.example.com") =>
    new UpstreamAuthError(
      `${what} must be on a public host, as the server "${server}" is, received "${url}"`,
    );

  for (
    const [given, href] of [
      // A query's values are not shown (a key, often).
      ["http://127.0.0.1:6379/internal/admin?x=1", "http://127.0.0.1:6379/internal/admin?x=…"],
      ["https://0x7f.1/prm", "https://127.0.0.1/prm"],
      ["https://localhost/prm", "https://localhost/prm"],
      ["https://10.0.0.1/prm", "https://10.0.0.1/prm"],
      ["https://169.254.169.254/latest/meta-data", "https://169.254.169.254/latest/meta-data"],
      ["https://[fd00::1]/prm", "https://[fd00::1]/prm"],
      ["https://[::ffff:127.0.0.1]/prm", "https://[::ffff:7f00:1]/prm"],
      ["https://redis.internal/prm", "https://redis.internal/prm"],
      ["https://app.localhost/prm", "https://app.localhost/prm"],
    ] as const
  ) {
    test(`a server on a public host: the resource_metadata URL "${given}" is refused, and nothing is sent`, async () => {
      const { fetch, asked } = scripted({});
      await assert.rejects(
        discoverResource(MCP, { metadataUrl: given, fetch }),
        refusedFor("the resource_metadata URL of the challenge", href),
      );
      assert.deepEqual(asked, []);
    });
  }

  test("a server on a public host: an issuer on loopback or a private address is refused, and nothing is sent", async () => {
    const { fetch, asked } = scripted({});
    for (const issuer of ["http://127.0.0.1:6379/", "https://10.1.2.3/"]) {
      await assert.rejects(
        discoverAuthorizationServer(issuer, { serverUrl: MCP, fetch }),
        refusedFor("the authorization server's issuer", issuer),
      );
    }
    assert.deepEqual(asked, []);
  });

  for (
    const [endpoint, url] of [
      ["authorization_endpoint", "http://127.0.0.1:8080/authorize"],
      ["token_endpoint", "http://127.0.0.1:6379/internal/admin?x=1"],
      ["registration_endpoint", "https://192.168.1.1/register"],
    ] as const
  ) {
    test(`a server on a public host: metadata whose ${endpoint} is "${url}" is not used`, async () => {
      const issuer = "https://as.example.com";
      const { fetch, asked } = scripted({
        "https://as.example.com/.well-known/oauth-authorization-server": {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          [endpoint]: url,
        },
      });
      await assert.rejects(
        discoverAuthorizationServer(issuer, { serverUrl: MCP, fetch }),
        refusedFor(`the authorization server's ${endpoint}`, url.replace("?x=1", "?x=…")),
      );
      assert.deepEqual(asked, [
        "GET https://as.example.com/.well-known/oauth-authorization-server redirect=manual",
      ]);
    });
  }

  test("a server on a private address: an authorization server on a private host is used, one on loopback refused", async () => {
    const serverUrl = new URL("https://10.0.0.5/mcp");
    const issuer = "https://sso.corp.internal";
    const document = { issuer, token_endpoint: "https://10.0.0.6/token" };
    const { fetch, asked } = scripted({
      "https://sso.corp.internal/.well-known/oauth-authorization-server": document,
    });
    assert.deepEqual(await discoverAuthorizationServer(issuer, { serverUrl, fetch }), document);
    await assert.rejects(
      discoverAuthorizationServer("https://localhost", { serverUrl, fetch }),
      new UpstreamAuthError(
        `the authorization server's issuer must be on a host that is not loopback, as the server "https://10.0.0.5" is, received "https://localhost/"`,
      ),
    );
    assert.deepEqual(asked, [
      "GET https://sso.corp.internal/.well-known/oauth-authorization-server redirect=manual",
    ]);
  });

  test("a server on loopback (development): loopback URLs, over http too, and private ones are followed", async () => {
    const serverUrl = new URL("http://127.0.0.1:7100/mcp");
    const { fetch, asked } = scripted({
      "http://localhost:7101/prm": {
        resource: "http://127.0.0.1:7100/mcp",
        authorization_servers: ["https://10.0.0.6"],
      },
    });
    const metadata = await discoverResource(serverUrl, { metadataUrl: "http://localhost:7101/prm", fetch });
    assert.deepEqual(metadata.authorizationServers, ["https://10.0.0.6"]);
    await assert.rejects(
      discoverAuthorizationServer("https://10.0.0.6", { serverUrl, fetch }),
      new UpstreamAuthError('no authorization server metadata found for "https://10.0.0.6"'),
    );
    assert.deepEqual(asked, [
      "GET http://localhost:7101/prm redirect=manual",
      "GET https://10.0.0.6/.well-known/oauth-authorization-server redirect=manual",
      "GET https://10.0.0.6/.well-known/openid-configuration redirect=manual",
    ]);
  });
});
