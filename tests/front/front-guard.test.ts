// The front's Host and Origin guard (src/front/guard.ts) on every runtime: which Host values it
// answers (loopback names always; others by "allowedHosts"; every one when "routed"), which
// Origins may call it, CORS only for "allowedOrigins", refusals before the body is read, the
// /healthz exemption, and the option errors at start-up (signInUser's too). Also peerRefusal(),
// the refusal of a request from another machine to a gateway with neither auth nor allowedHosts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront, type FrontOptions } from "../../src/front/create-front.ts";
import { checkHostRules, peerRefusal } from "../../src/front/guard.ts";
import {
  answerOf,
  guardRefusal,
  hostRefusal,
  LOOPBACK,
  loopbackHostRefused,
  modernMeta,
  modernRequest,
  originRefusal,
  peerRefused,
  toolsUpstream,
} from "../_support/gateway-caller.ts";
import { unreadBody } from "../_support/unread-body.ts";

const KEY = "front-guard-test-state-key-0123456789abcdef";

function front(options: Partial<FrontOptions> = {}) {
  const upstream = toolsUpstream();
  const client = createClient({
    name: "gate",
    fetch: upstream.fetch,
    policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
  });
  const app = createFront({ client, stateKey: KEY, ...options });
  return { app, upstream, client };
}

const listTools = (base: string, headers: Record<string, string> = {}) =>
  modernRequest(`${base}/mcp/files`, "tools/list", { _meta: modernMeta() }, headers);

/** The status of `GET /servers` at each base URL. */
async function serversStatuses(app: ReturnType<typeof front>["app"], bases: readonly string[]) {
  const out: Array<[string, number]> = [];
  for (const base of bases) {
    const response = await app.fetch(new Request(`${base}/servers`));
    await response.body?.cancel();
    out.push([base, response.status]);
  }
  return out;
}

/** The headers of a response whose names start with `access-control-`, sorted. */
function corsHeaders(response: Response): Array<[string, string]> {
  return [...response.headers].filter(([name]) => name.startsWith("access-control-")).sort();
}

describe("hostAndOriginGuard() in the front: Host", () => {
  test("hostAndOriginGuard() answers loopback names with and without a port: localhost, 127.0.0.1, 127.0.0.2, [::1]", async () => {
    const { app, client } = front();
    const bases = [
      "http://localhost",
      "http://localhost:8787",
      "http://127.0.0.1",
      "http://127.0.0.1:8787",
      "http://127.0.0.2:8787",
      "http://[::1]",
      "http://[::1]:8787",
      "https://localhost:8443",
    ];
    assert.deepEqual(await serversStatuses(app, bases), bases.map((base) => [base, 200]));
    await client.close();
  });

  test("hostAndOriginGuard() refuses Host rebind.attacker.example:8787 with 403 on POST /mcp/files and GET /servers, and nothing reaches upstream", async () => {
    const { app, upstream, client } = front();
    const base = "http://rebind.attacker.example:8787";
    const posted = await answerOf(await app.fetch(listTools(base)), ["content-type"]);
    const listed = await answerOf(await app.fetch(new Request(`${base}/servers`)), ["content-type"]);
    assert.deepEqual([posted, listed], [
      hostRefusal("rebind.attacker.example:8787"),
      hostRefusal("rebind.attacker.example:8787"),
    ]);
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test("hostAndOriginGuard() refuses Host headers that only look loopback: userinfo, suffixes, subdomains", async () => {
    const { app, client } = front();
    const hosts = [
      "evil.com@127.0.0.1",
      "127.0.0.1@evil.com",
      "127.0.0.1.evil.com",
      "localhost.evil.com:8787",
      "app.localhost",
      "127.0.0.1:8787/x",
      "10.0.0.1",
    ];
    const answers = [];
    for (const host of hosts) {
      // The URL is loopback; the Host header, which the guard reads first, is not.
      const response = await app.fetch(new Request(`${LOOPBACK}/servers`, { headers: { host } }));
      answers.push(await answerOf(response, ["content-type"]));
    }
    assert.deepEqual(answers, hosts.map(hostRefusal));
    await client.close();
  });

  test("hostAndOriginGuard() refuses a URL of a host it does not serve under a Host it does (an absolute request target), so a JWT's aud cannot be chosen by it", async () => {
    const { app, client } = front({ allowedHosts: ["gate.example.com"], auth: "none" });
    const answers = [];
    for (const url of ["https://victim.example.com/servers", "http://127.0.0.1.evil.com/servers"]) {
      const response = await app.fetch(new Request(url, { headers: { host: "gate.example.com" } }));
      answers.push(await answerOf(response, ["content-type"]));
    }
    // A loopback URL under a listed Host (what Hono's app.request() makes of a path and a Host) passes.
    const routed = await app.fetch(
      new Request(`${LOOPBACK}/servers`, { headers: { host: "gate.example.com" } }),
    );
    assert.deepEqual([answers, routed.status], [
      ["victim.example.com", "127.0.0.1.evil.com"].map((host) =>
        guardRefusal(
          `Forbidden: the request's URL host ${
            JSON.stringify(host)
          } is not served here: expected a loopback name (localhost, 127.0.0.1, [::1]) or one in "allowedHosts"`,
        )
      ),
      200,
    ]);
    await client.close();
  });

  test('hostAndOriginGuard() answers an "allowedHosts" entry without a port on any port, and nothing else', async () => {
    const { app, client } = front({ allowedHosts: ["gate.example.com"], auth: "none" });
    assert.deepEqual(
      await serversStatuses(app, [
        "https://gate.example.com",
        "https://gate.example.com:8443",
        "http://gate.example.com:8787",
        "http://127.0.0.1:8787",
        "https://other.example.com",
        "https://sub.gate.example.com",
      ]),
      [
        ["https://gate.example.com", 200],
        ["https://gate.example.com:8443", 200],
        ["http://gate.example.com:8787", 200],
        ["http://127.0.0.1:8787", 200],
        ["https://other.example.com", 403],
        ["https://sub.gate.example.com", 403],
      ],
    );
    await client.close();
  });

  test('hostAndOriginGuard() answers an "allowedHosts" entry with a port on that port only', async () => {
    const { app, client } = front({ allowedHosts: ["Gate.Example.com:8443"], auth: "none" });
    assert.deepEqual(
      await serversStatuses(app, [
        "https://gate.example.com:8443",
        "https://gate.example.com",
        "http://gate.example.com:8787",
      ]),
      [
        ["https://gate.example.com:8443", 200],
        ["https://gate.example.com", 403],
        ["http://gate.example.com:8787", 403],
      ],
    );
    await client.close();
  });

  test('hostAndOriginGuard() answers every Host with allowedHosts "routed"', async () => {
    const { app, client } = front({ allowedHosts: "routed", auth: "none" });
    const bases = ["https://my-worker.example.workers.dev", "http://rebind.attacker.example:8787", LOOPBACK];
    assert.deepEqual(await serversStatuses(app, bases), bases.map((base) => [base, 200]));
    await client.close();
  });

  test("hostAndOriginGuard() exempts GET /healthz: any Host and any Origin get { ok: true }", async () => {
    const { app, client } = front();
    const response = await app.fetch(
      new Request("http://rebind.attacker.example:8787/healthz", {
        headers: { origin: "https://evil.example" },
      }),
    );
    assert.deepEqual(await answerOf(response), { status: 200, headers: {}, body: { ok: true } });
    await client.close();
  });

  test("hostAndOriginGuard() refuses before the body is read: a POST whose body errors when read gets the 403", async () => {
    const { app, upstream, client } = front();
    const { body, pulled } = unreadBody();
    const request = new Request("http://rebind.attacker.example:8787/mcp/files", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    const answer = await answerOf(await app.fetch(request), ["content-type"]);
    assert.deepEqual([answer, pulled(), upstream.requests], [
      hostRefusal("rebind.attacker.example:8787"),
      false,
      [],
    ]);
    await client.close();
  });
});

describe("peerRefusal(): the address a request came from", () => {
  test("peerRefusal() lets loopback addresses through, IPv4-mapped too, and /healthz from anywhere", () => {
    const servers = new Request("http://127.0.0.1:8787/servers");
    const loopback = [
      "127.0.0.1",
      "127.8.9.10",
      "::1",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "::FFFF:127.0.0.2",
    ];
    assert.deepEqual(
      [
        ...loopback.map((address) => [address, peerRefusal(servers, address, "open")]),
        ["/healthz", peerRefusal(new Request("http://127.0.0.1:8787/healthz"), "192.0.2.7", "open")],
      ],
      [...loopback.map((address) => [address, undefined]), ["/healthz", undefined]],
    );
  });

  test("peerRefusal() refuses every other address with the 403 naming it: private, mapped, IPv6, scoped, 128.0.0.1", async () => {
    const others = ["10.0.0.5", "192.0.2.7", "128.0.0.1", "::ffff:10.0.0.5", "2001:db8::1", "fe80::1%eth0"];
    const answers = [];
    for (const address of others) {
      const refusal = peerRefusal(
        new Request("http://127.0.0.1:8787/mcp/files", { method: "POST" }),
        address,
        "open",
      );
      answers.push(refusal === undefined ? undefined : await answerOf(refusal, ["content-type"]));
    }
    assert.deepEqual(answers, others.map(peerRefused));
  });

  test("peerRefusal() of a gateway with auth or allowedHosts refuses another machine a loopback Host it does not list, and nothing else", async () => {
    const at = async (url: string, address: string, hosts: readonly string[] | "routed" | undefined) => {
      const refusal = peerRefusal(new Request(url), address, hosts);
      return refusal === undefined ? "through" : await answerOf(refusal, ["content-type"]);
    };
    assert.deepEqual(
      [
        await at("http://127.0.0.1:8787/mcp/files", "192.0.2.7", undefined),
        await at("http://LocalHost:8787/mcp/files", "10.0.0.5", ["gate.example.com"]),
        await at("http://[::1]/mcp/files", "2001:db8::1", "routed"),
        await at("http://localhost:8787/mcp/files", "10.0.0.5", ["localhost"]),
        await at("http://localhost:8787/mcp/files", "10.0.0.5", ["localhost:8787"]),
        await at("http://localhost:9999/mcp/files", "10.0.0.5", ["localhost:8787"]),
        await at("https://gate.example.com/mcp/files", "192.0.2.7", ["gate.example.com"]),
        await at("http://127.0.0.1:8787/mcp/files", "127.0.0.1", undefined),
        await at("http://127.0.0.1:8787/healthz", "192.0.2.7", undefined),
      ],
      [
        loopbackHostRefused("192.0.2.7", "127.0.0.1:8787"),
        loopbackHostRefused("10.0.0.5", "localhost:8787"),
        loopbackHostRefused("2001:db8::1", "[::1]"),
        "through",
        "through",
        loopbackHostRefused("10.0.0.5", "localhost:9999"),
        "through",
        "through",
        "through",
      ],
    );
  });
});

describe("hostAndOriginGuard() in the front: Origin and CORS", () => {
  test("hostAndOriginGuard() lets a request without Origin and one from the gateway's own origin through, with no CORS headers", async () => {
    const { app, client } = front();
    const bare = await app.fetch(listTools(LOOPBACK));
    const own = await app.fetch(listTools(LOOPBACK, { origin: LOOPBACK }));
    assert.deepEqual(
      [bare.status, corsHeaders(bare), own.status, corsHeaders(own)],
      [200, [], 200, []],
    );
    await bare.body?.cancel();
    await own.body?.cancel();
    await client.close();
  });

  test(
    'hostAndOriginGuard() takes "publicUrl" as the own origin behind a TLS proxy: https://gate.example.com may call http://gate.example.com',
    async () => {
      const { app, client } = front({
        allowedHosts: ["gate.example.com"],
        auth: "none",
        publicUrl: "https://gate.example.com",
      });
      const response = await app.fetch(
        new Request("http://gate.example.com/servers", { headers: { origin: "https://gate.example.com" } }),
      );
      await response.body?.cancel();
      assert.equal(response.status, 200);
      await client.close();
    },
  );

  test("hostAndOriginGuard() refuses another Origin with 403 (a page elsewhere, another port, null), and nothing reaches upstream", async () => {
    const { app, upstream, client } = front();
    const origins = ["https://evil.example", "http://127.0.0.1:9999", "http://localhost:8787", "null"];
    const answers = [];
    for (const origin of origins) {
      answers.push(await answerOf(await app.fetch(listTools(LOOPBACK, { origin })), ["content-type"]));
    }
    assert.deepEqual(answers, origins.map(originRefusal));
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test('hostAndOriginGuard() sends CORS headers exactly for an "allowedOrigins" origin', async () => {
    const { app, client } = front({ allowedOrigins: ["https://app.example.com"] });
    const response = await app.fetch(
      new Request(`${LOOPBACK}/servers`, { headers: { origin: "https://app.example.com" } }),
    );
    assert.deepEqual([response.status, corsHeaders(response), response.headers.get("vary")], [200, [
      ["access-control-allow-origin", "https://app.example.com"],
      ["access-control-expose-headers", "mcp-session-id,www-authenticate"],
    ], "Origin"]);
    await response.body?.cancel();
    await client.close();
  });

  test('hostAndOriginGuard() answers an "allowedOrigins" preflight with 204, the methods and the headers', async () => {
    const { app, upstream, client } = front({ allowedOrigins: ["https://app.example.com"] });
    const response = await app.fetch(
      new Request(`${LOOPBACK}/mcp/files`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, authorization, mcp-protocol-version",
        },
      }),
    );
    assert.deepEqual([response.status, await response.text(), corsHeaders(response)], [204, "", [
      [
        "access-control-allow-headers",
        "authorization,content-type,accept,last-event-id,mcp-session-id,mcp-protocol-version,mcp-method,mcp-name",
      ],
      ["access-control-allow-methods", "GET,POST,DELETE"],
      ["access-control-allow-origin", "https://app.example.com"],
      ["access-control-expose-headers", "mcp-session-id,www-authenticate"],
      ["access-control-max-age", "600"],
    ]]);
    assert.deepEqual(upstream.requests, []);
    await client.close();
  });

  test('hostAndOriginGuard() lets an "allowedOrigins" preflight ask for the Mcp-Param-* headers of a tool\'s x-mcp-header arguments', async () => {
    const { app, client } = front({ allowedOrigins: ["https://app.example.com"] });
    const response = await app.fetch(
      new Request(`${LOOPBACK}/mcp/files`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers":
            "content-type, mcp-method, mcp-name, Mcp-Param-Region, mcp-param-x_1, x-other, mcp-param-, mcp-param-a b",
        },
      }),
    );
    assert.deepEqual([response.status, response.headers.get("access-control-allow-headers")], [
      204,
      "authorization,content-type,accept,last-event-id,mcp-session-id,mcp-protocol-version,mcp-method,mcp-name,mcp-param-region,mcp-param-x_1",
    ]);
    await client.close();
  });

  test('hostAndOriginGuard() refuses the preflight and the request of an origin not in "allowedOrigins"', async () => {
    const { app, client } = front({ allowedOrigins: ["https://app.example.com"] });
    const preflight = await app.fetch(
      new Request(`${LOOPBACK}/mcp/files`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example.com.evil.example", "access-control-request-method": "POST" },
      }),
    );
    const call = await app.fetch(listTools(LOOPBACK, { origin: "https://APP.example.com" }));
    assert.deepEqual([await answerOf(preflight, ["content-type"]), await answerOf(call, ["content-type"])], [
      originRefusal("https://app.example.com.evil.example"),
      originRefusal("https://APP.example.com"),
    ]);
    await client.close();
  });

  test("hostAndOriginGuard() without allowedOrigins sends no CORS headers at all: a preflight from elsewhere is refused", async () => {
    const { app, client } = front();
    const preflight = await app.fetch(
      new Request(`${LOOPBACK}/mcp/files`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
      }),
    );
    assert.deepEqual(corsHeaders(preflight), []);
    assert.deepEqual(await answerOf(preflight, ["content-type"]), originRefusal("https://app.example.com"));
    await client.close();
  });
});

describe("checkHostRules() and createFront(): the options", () => {
  test("checkHostRules() lower-cases hosts, normalises origins, and keeps absent options absent", () => {
    assert.deepEqual(
      checkHostRules({
        allowedHosts: ["Gate.Example.com", " gate.example.com:8443 ", "[::1]:8787"],
        allowedOrigins: ["https://App.Example.com", "http://localhost:5173/"],
      }, "createFront()"),
      {
        allowedHosts: ["gate.example.com", "gate.example.com:8443", "[::1]:8787"],
        allowedOrigins: ["https://app.example.com", "http://localhost:5173"],
      },
    );
    assert.deepEqual(checkHostRules({}, "createFront()"), {});
    assert.deepEqual(checkHostRules({ allowedHosts: "routed" }, "createFront()"), { allowedHosts: "routed" });
  });

  test("checkHostRules() throws a TypeError naming a bad host: a URL, a path, userinfo, a space", () => {
    for (
      const entry of [
        "https://gate.example.com",
        "gate.example.com/mcp",
        "user@gate.example.com",
        "gate example",
      ]
    ) {
      assert.throws(() => checkHostRules({ allowedHosts: [entry] }, "createFront()"), {
        name: "TypeError",
        message: `createFront(): "allowedHosts" has ${
          JSON.stringify(entry)
        }, expected a host name with an optional port, like "gate.example.com" or "gate.example.com:8443"`,
      });
    }
  });

  test("checkHostRules() throws a TypeError naming a bad origin: no scheme, a path, a query, null", () => {
    for (
      const entry of [
        "app.example.com",
        "https://app.example.com/page",
        "https://app.example.com?x=1",
        "null",
      ]
    ) {
      assert.throws(() => checkHostRules({ allowedOrigins: [entry] }, "createFront()"), {
        name: "TypeError",
        message: `createFront(): "allowedOrigins" has ${
          JSON.stringify(entry)
        }, expected an origin: a scheme, a host and an optional port, like "https://app.example.com"`,
      });
    }
  });

  test("checkHostRules() throws a TypeError for lists that are not lists of strings", () => {
    assert.throws(
      () => checkHostRules({ allowedHosts: "gate.example.com" as unknown as string[] }, "createFront()"),
      {
        name: "TypeError",
        message: 'createFront(): "allowedHosts" must be an array of strings, received "string"',
      },
    );
    assert.throws(
      () => checkHostRules({ allowedOrigins: [42] as unknown as string[] }, "createFront()"),
      {
        name: "TypeError",
        message: 'createFront(): "allowedOrigins" must be an array of strings, received "object"',
      },
    );
  });

  test('createFront() with "allowedHosts" and no "auth" throws the exact TypeError, for a list and for "routed"', () => {
    const message =
      'createFront(): "auth" is required when the gateway answers names other than loopback ("allowedHosts"): give bearer secrets, JWT settings or a function, or "none" to let anyone in';
    const client = createClient({
      name: "gate",
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    for (const allowedHosts of [["gate.example.com"], "routed" as const]) {
      assert.throws(() => createFront({ client, stateKey: KEY, allowedHosts }), {
        name: "TypeError",
        message,
      });
    }
    assert.throws(() => createFront({ client, stateKey: KEY, allowedHosts: ["bad/host"], auth: "none" }), {
      name: "TypeError",
      message:
        'createFront(): "allowedHosts" has "bad/host", expected a host name with an optional port, like "gate.example.com" or "gate.example.com:8443"',
    });
  });

  test('createFront() refuses a "signInUser" that is not a function, or with auth "none"', () => {
    const client = createClient({ name: "gate", policies: [] });
    const auth = { bearer: [{ secret: "front-guard-caller-secret-0123456789abcdef", subject: "alice" }] };
    const signInUser = (request: Request) => request.headers.get("x-sso-user") ?? undefined;
    assert.equal(typeof createFront({ client, stateKey: KEY, auth, signInUser }).fetch, "function");
    assert.throws(() => createFront({ client, stateKey: KEY, auth, signInUser: "x-sso-user" as never }), {
      name: "TypeError",
      message:
        'createFront(): "signInUser" must be a function (request) => subject | undefined, received "string"',
    });
    for (const none of [{}, { auth: "none" as const }]) {
      assert.throws(() => createFront({ client, stateKey: KEY, ...none, signInUser }), {
        name: "TypeError",
        message:
          'createFront(): "signInUser" needs "auth": with auth "none" callers have no subject to compare a browser\'s user with, expected bearer secrets, JWT settings or a function',
      });
    }
  });

  test("createFront() takes an optional option written as undefined as left out: loopback names only, no auth", async () => {
    const { app, client } = front({
      legacySessions: undefined,
      auth: undefined,
      allowedHosts: undefined,
      allowedOrigins: undefined,
      publicUrl: undefined,
      heartbeat: undefined,
      signInUser: undefined,
    });
    assert.deepEqual(await serversStatuses(app, [LOOPBACK, "http://gate.example.com"]), [
      [LOOPBACK, 200],
      ["http://gate.example.com", 403],
    ]);
    await client.close();
  });

  test('createFront() takes "heartbeat" as a duration from 100ms to 596h or false, and names any other', () => {
    const client = createClient({
      name: "gate",
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    for (const heartbeat of ["100ms", "15s", "1m", "596h", false] as const) {
      assert.equal(typeof createFront({ client, stateKey: KEY, heartbeat }).fetch, "function");
    }
    const refused = [
      ["99ms", '"99ms"'],
      ["596.001h", '"596.001h"'],
      ["597h", '"597h"'],
      ["soon", '"soon"'],
      [15000, "15000"],
      [true, "true"],
    ];
    for (const [heartbeat, shown] of refused) {
      assert.throws(() => createFront({ client, stateKey: KEY, heartbeat: heartbeat as "15s" }), {
        name: "TypeError",
        message:
          `createFront(): "heartbeat" must be a duration from "100ms" to "596h" (such as "15s") or false, received ${shown}`,
      });
    }
  });
});
