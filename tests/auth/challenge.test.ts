// A protected server's challenge (src/auth/_challenge.ts): what a sign-in started without a request
// sends to get it, and what it makes of the answer, against a scripted fetch.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { askForChallenge, challengeOf, NO_CHALLENGE } from "../../src/auth/_challenge.ts";

const MCP = new URL("https://mcp.example.com/mcp");

/** A fetch answering every request with `answer()`, recording what was sent (header names in lower case, as a server reads them). */
function answering(answer: () => Response) {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const fetch = (url: string, init: RequestInit) => {
    sent.push({ url, init: { ...init, headers: Object.fromEntries(new Headers(init.headers)) } });
    return Promise.resolve(answer());
  };
  return { fetch, sent };
}

/** What asking for the challenge sends: `method` without a token, redirects off. */
const asked = (method: string) => ({
  url: "https://mcp.example.com/mcp",
  init: {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
    redirect: "manual",
  },
});
const ASKED = asked("server/discover");

describe("askForChallenge()", () => {
  test("posts server/discover without a token, redirects off, and reads the 401's resource_metadata, scope and scheme", async () => {
    const { fetch, sent } = answering(() =>
      new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer resource_metadata="https://mcp.example.com/custom/prm.json", scope="a b"',
        },
      })
    );
    assert.deepEqual(await askForChallenge(MCP, { fetch }), {
      metadataUrl: "https://mcp.example.com/custom/prm.json",
      scopes: ["a", "b"],
      dpop: false,
      bearer: true,
    });
    assert.deepEqual(sent, [ASKED]);
  });

  test("a DPoP challenge's parameters are taken before a Bearer one's, and the Bearer one's where it has none", async () => {
    const { fetch } = answering(() =>
      new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer resource_metadata="https://a/x", scope="a b", DPoP resource_metadata="https://b/y"',
        },
      })
    );
    assert.deepEqual(await askForChallenge(MCP, { fetch }), {
      metadataUrl: "https://b/y",
      scopes: ["a", "b"],
      dpop: true,
      bearer: true,
    });
  });

  test("a server offering both schemes with its parameters in the Bearer challenge (RFC 9449 §7.1): they are read", async () => {
    const { fetch } = answering(() =>
      new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer resource_metadata="https://a/x", scope="mcp:tools", DPoP algs="ES256 PS256"',
        },
      })
    );
    assert.deepEqual(await askForChallenge(MCP, { fetch }), {
      metadataUrl: "https://a/x",
      scopes: ["mcp:tools"],
      dpop: true,
      bearer: true,
    });
  });

  for (
    const [what, answer] of [
      ["an answer", () => Response.json({ jsonrpc: "2.0", id: 0, result: {} })],
      ["a 401 without a challenge", () => new Response(null, { status: 401 })],
      [
        "a 401 with a Basic challenge",
        () => new Response(null, { status: 401, headers: { "www-authenticate": 'Basic realm="x"' } }),
      ],
      [
        "a redirect",
        () => new Response(null, { status: 307, headers: { location: "https://elsewhere.example.com/mcp" } }),
      ],
    ] as const
  ) {
    test(`${what} is no challenge: discovery goes to the well-known URLs once tools/list got none either`, async () => {
      const { fetch, sent } = answering(answer);
      assert.equal(await askForChallenge(MCP, { fetch }), NO_CHALLENGE);
      assert.deepEqual(sent, [ASKED, asked("tools/list")]);
    });
  }

  test("a server that leaves server/discover open is asked with tools/list, whose 401 names its metadata", async () => {
    const answers = [
      Response.json({ jsonrpc: "2.0", id: 0, result: { resultType: "complete" } }),
      new Response(null, {
        status: 401,
        headers: { "www-authenticate": 'Bearer resource_metadata="https://mcp.example.com/custom/prm.json"' },
      }),
    ];
    const { fetch, sent } = answering(() => answers.shift()!);
    assert.deepEqual(await askForChallenge(MCP, { fetch }), {
      metadataUrl: "https://mcp.example.com/custom/prm.json",
      scopes: undefined,
      dpop: false,
      bearer: true,
    });
    assert.deepEqual(sent, [ASKED, asked("tools/list")]);
  });
});

describe("challengeOf()", () => {
  test("reads the error of a 401 too, and gives undefined without a Bearer or DPoP challenge", async () => {
    const refused = new Response(null, {
      status: 401,
      headers: { "www-authenticate": 'Bearer error="invalid_token", resource_metadata="https://a/x"' },
    });
    assert.deepEqual(await challengeOf(refused), {
      metadataUrl: "https://a/x",
      scopes: undefined,
      error: "invalid_token",
      dpop: false,
      bearer: true,
    });
    assert.equal(await challengeOf(new Response(null, { status: 401 })), undefined);
  });
});
