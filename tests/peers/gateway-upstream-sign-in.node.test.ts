// Upstream sign-in through the gateway, per caller, end to end with no mocks: a real
// authorization server (oidc-provider, tests/_support/authorization-server.ts), an MCP server
// built with `@modelcontextprotocol/server` 2.4.0 that demands its bearer tokens
// (tests/_support/protected-mcp-server.ts), and the front with bearer-secret callers alice and
// bob. The test plays the callers (raw JSON-RPC, both eras) and their browsers (the gateway's
// start page, the authorization server's pages through the harness, the callback).
//
// Node only: oidc-provider is a Node library; the front's sign-in is the same code on every
// runtime.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createClient } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import type { SignInUser } from "../../src/front/front-sign-in.ts";
import { createMemoryTokenStore } from "../../src/auth/token-store.ts";
import { type AuthorizationServer, startAuthorizationServer } from "../_support/authorization-server.ts";
import { type ProtectedMcpServer, startProtectedMcpServer } from "../_support/protected-mcp-server.ts";
import { answerOf, modernMeta, modernRequest } from "../_support/gateway-caller.ts";
import { initializeMessage, legacyHeaders } from "../_support/legacy-caller.ts";
import { NODE_ONLY } from "./_hosts.ts";
import { within } from "../_support/eventually.ts";
import { gate } from "../_support/gate.ts";
import { createHash } from "node:crypto";

/** The cookie that binds the sign-in of the start link `url` to its browser: named after its state. */
function cookieOf(url: string): string {
  const state = new URL(url).pathname.split("/").at(-1) ?? "";
  return `sluice_sign_in_${createHash("sha256").update(state).digest("hex").slice(0, 32)}`;
}

const skip = NODE_ONLY;
// deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON results
type Json = any;
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "protected-peer", version: "1.0.0" } };
const BASE = "http://localhost:8787";
const ENDPOINT = `${BASE}/mcp/files`;
const STATE_KEY = "vJ2mXq8Lr4Tz9Wc6Bn1Hs5Kd3Fg7Ya0Pe2Ui4Ox6Qt8=";
const TOKENS = {
  alice: "Qm9fY2xpZW50LWFsaWNlLXNlY3JldC1rM2o5ZzJrMHA4dDF4",
  bob: "Ym9iLWNsaWVudC1zZWNyZXQtdjduNHEyejh3NmM1bTFyOWw",
} as const;

let as: AuthorizationServer;
let upstream: ProtectedMcpServer;
let now = Date.now();
const clock = { now: () => now };

before(async () => {
  if (skip !== false) return;
  as = await startAuthorizationServer({ scopes: ["mcp:tools"], accessTokenTtl: 600 });
  upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

after(async () => {
  await upstream?.close();
  await as?.close();
});

/** A gateway in front of the protected server, its callers alice and bob (its client on `fetch`, when given). */
function gateway(
  options: {
    readonly signInUser?: SignInUser;
    readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  } = {},
) {
  const { fetch, ...front } = options;
  const client = createClient({
    name: "gate",
    clock,
    ...(fetch === undefined ? {} : { fetch }),
    signIn: { tokens: createMemoryTokenStore({ clock }) },
    policies: [{
      server: "files",
      transport: { url: upstream.url, auth: { oauth: { scopes: ["mcp:tools"] } } },
    }],
  });
  const app = createFront({
    client,
    stateKey: STATE_KEY,
    auth: {
      bearer: [
        { secret: TOKENS.alice, subject: "alice" },
        { secret: TOKENS.bob, subject: "bob" },
      ],
    },
    ...front,
  });
  return { client, app };
}

type App = ReturnType<typeof gateway>["app"];

/** A modern caller's `tools/call whoami`, declaring URL elicitation unless told not to. */
async function whoami(
  app: App,
  caller: keyof typeof TOKENS,
  extra: Record<string, unknown> = {},
  url = true,
) {
  const meta = modernMeta(url ? { elicitation: { url: {} } } : {});
  const response = await app.request(
    modernRequest(ENDPOINT, "tools/call", { name: "whoami", arguments: {}, _meta: meta, ...extra }, {
      authorization: `Bearer ${TOKENS[caller]}`,
    }),
  );
  return await answerOf(response);
}

/**
 * The browser: the start page, its confirmation, the authorization server, the callback (with
 * `headers` on each of the gateway's pages, such as an SSO proxy's).
 */
async function signInAt(app: App, startUrl: string, subject: string, headers: Record<string, string> = {}) {
  const page = await app.request(startUrl, { headers });
  const html = await page.text();
  const confirmed = await app.request(startUrl, { method: "POST", headers: { ...headers, origin: BASE } });
  const cookie = (confirmed.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const toAs = confirmed.headers.get("location") ?? "";
  const back = await as.authorize(toAs, subject);
  const done = await app.request(back.href, { headers: { ...headers, cookie } });
  return { page: { status: page.status, html }, confirmed: confirmed.status, toAs, back, done };
}

describe("the gateway signs in to an OAuth-protected upstream for each caller", { skip }, () => {
  test("a modern caller gets input_required with the gateway's start page; after the sign-in its retry goes through with its own token", async () => {
    const { app, client } = gateway();
    const first = await whoami(app, "alice");
    const body = first.body as {
      result: { resultType: string; inputRequests: Record<string, Json>; requestState: string };
    };
    assert.equal(first.status, 200);
    assert.equal(body.result.resultType, "input_required");
    const ask = body.result.inputRequests["sluice/sign-in"];
    assert.deepEqual(Object.keys(body.result.inputRequests), ["sluice/sign-in"]);
    assert.equal(ask.method, "elicitation/create");
    assert.deepEqual(Object.keys(ask.params).sort(), ["message", "mode", "url"]);
    assert.equal(ask.params.mode, "url");
    assert.equal(ask.params.message, 'Sign in to "files" to continue: open the link, then retry');
    assert.match(ask.params.url, /^http:\/\/localhost:8787\/oauth\/start\/[A-Za-z0-9_-]{43}$/);

    const browser = await signInAt(app, ask.params.url, "alice@idp");
    assert.equal(browser.page.status, 200);
    assert.match(
      browser.page.html,
      /Sign in to the MCP server <b>files<\/b> as gateway caller <b>alice<\/b>/,
    );
    assert.equal(browser.confirmed, 303);
    const authorization = new URL(browser.toAs);
    assert.equal(`${authorization.origin}${authorization.pathname}`, `${as.issuer}/auth`);
    assert.equal(authorization.searchParams.get("redirect_uri"), `${BASE}/oauth/callback`);
    assert.equal(authorization.searchParams.get("resource"), upstream.url);
    assert.equal(authorization.searchParams.get("code_challenge_method"), "S256");
    assert.equal(`${browser.back.origin}${browser.back.pathname}`, `${BASE}/oauth/callback`);
    assert.equal(browser.back.searchParams.get("iss"), as.issuer);
    assert.equal(browser.done.status, 200);
    assert.match(await browser.done.text(), /You are signed in to <b>files<\/b>/);
    assert.equal(
      browser.done.headers.get("set-cookie"),
      `${cookieOf(ask.params.url)}=; Path=/oauth/callback; Max-Age=0; HttpOnly; SameSite=Lax`,
    );

    const retried = await whoami(app, "alice", {
      requestState: body.result.requestState,
      inputResponses: { "sluice/sign-in": { action: "accept" } },
    });
    assert.deepEqual(retried, {
      status: 200,
      headers: {},
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: "alice@idp" }],
          resultType: "complete",
          _meta: SERVER_INFO,
        },
      },
    });
    // The upstream saw alice's token, for its own audience; and a fresh call needs no sign-in.
    const used = upstream.requests().filter((r) => r.claims !== undefined).at(-1);
    assert.deepEqual([used?.claims?.sub, used?.claims?.aud], ["alice@idp", upstream.url]);
    const again = await whoami(app, "alice");
    assert.deepEqual((again.body as Json).result.content, [{ type: "text", text: "alice@idp" }]);
    await client.close();
  });

  test("alice's sign-in is never used for bob: bob is asked to sign in himself, and gets his own token", async () => {
    const { app, client } = gateway();
    const alice = await whoami(app, "alice");
    await signInAt(app, (alice.body as Json).result.inputRequests["sluice/sign-in"].params.url, "alice@idp");
    assert.deepEqual((await whoami(app, "alice")).body, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "alice@idp" }], resultType: "complete", _meta: SERVER_INFO },
    });
    // bob, without URL elicitation: 2026-07-28 forbids -32042, so he is told the capability to declare.
    const undeclared = await whoami(app, "bob", {}, false);
    assert.deepEqual([undeclared.status, (undeclared.body as Json).error], [400, {
      code: -32021,
      message:
        'Upstream server "files" needs you to sign in first: that takes URL elicitation, which this request does not declare',
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    }]);
    const bob = await whoami(app, "bob");
    const link = (bob.body as Json).result.inputRequests["sluice/sign-in"].params.url;
    assert.match(link, /^http:\/\/localhost:8787\/oauth\/start\//);
    const page = await (await app.request(link)).text();
    assert.match(page, /as gateway caller <b>bob<\/b>/);
    await signInAt(app, link, "bob@idp");
    assert.deepEqual((await whoami(app, "bob")).body, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "bob@idp" }], resultType: "complete", _meta: SERVER_INFO },
    });
    assert.deepEqual((await whoami(app, "alice")).body, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "alice@idp" }], resultType: "complete", _meta: SERVER_INFO },
    });
    await client.close();
  });

  test("a modern caller's server/discover and tools/list before its sign-in get -32010 sign_in_required naming the start page, declared URL elicitation or not; its list goes through once signed in there", async () => {
    const { app, client } = gateway();
    const ask = async (method: string, capabilities: Record<string, unknown>) =>
      await answerOf(
        await app.request(modernRequest(ENDPOINT, method, { _meta: modernMeta(capabilities) }, {
          authorization: `Bearer ${TOKENS.alice}`,
        })),
      );
    let link = "";
    for (const method of ["server/discover", "tools/list"]) {
      for (const capabilities of [{ elicitation: { url: {} } }, {}]) {
        const answer = await ask(method, capabilities);
        link = (answer.body as Json).error?.data?.url ?? "";
        assert.match(link, /^http:\/\/localhost:8787\/oauth\/start\/[A-Za-z0-9_-]{43}$/);
        const error = {
          code: -32010,
          message:
            `Upstream server "files" needs you to sign in first: sign in at ${link} (or call one of its tools to be asked), then retry`,
          data: { serverId: "files", cause: "sign_in_required", url: link },
        };
        assert.deepEqual([answer.status, answer.body], [200, { jsonrpc: "2.0", id: 1, error }]);
      }
    }
    await signInAt(app, link, "alice@idp");
    const listed = await ask("tools/list", {});
    assert.deepEqual(
      [listed.status, (listed.body as Json).result.tools.map((tool: Json) => tool.name)],
      [200, ["whoami"]],
    );
    await client.close();
  });

  test("a legacy caller's initialize gets -32042 naming the start page; after the sign-in a new session calls with its token", async () => {
    const { app, client } = gateway();
    const auth = { authorization: `Bearer ${TOKENS.bob}` };
    const initialize = () =>
      app.request(ENDPOINT, {
        method: "POST",
        headers: { ...legacyHeaders(), ...auth },
        body: JSON.stringify(initializeMessage("2025-11-25", { elicitation: { url: {} } })),
      });
    const refused = await initialize();
    assert.equal(refused.headers.get("mcp-session-id"), null);
    const error = (await messageOf(refused)).error;
    assert.equal(error.code, -32042);
    const elicitation = error.data.elicitations[0];
    assert.deepEqual(Object.keys(elicitation).sort(), ["elicitationId", "message", "mode", "url"]);
    await signInAt(app, elicitation.url, "bob@idp");
    const init = await initialize();
    const session = init.headers.get("mcp-session-id") ?? "";
    assert.equal((await messageOf(init)).result.serverInfo.title, "sluice: files");
    const call = await app.request(ENDPOINT, {
      method: "POST",
      headers: { ...legacyHeaders(session), ...auth },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      }),
    });
    assert.deepEqual((await messageOf(call)).result.content, [{ type: "text", text: "bob@idp" }]);
    await client.close();
  });

  test("a 2025 host that cannot take -32042 (2025-06-18, or no URL elicitation declared) is told -32010 sign_in_required with the link in the message", async () => {
    const { app, client } = gateway();
    const auth = { authorization: `Bearer ${TOKENS.bob}` };
    const errors = [];
    for (
      const [version, capabilities] of [["2025-06-18", { elicitation: {} }], ["2025-11-25", {}]] as const
    ) {
      const refused = await app.request(ENDPOINT, {
        method: "POST",
        headers: { ...legacyHeaders(), ...auth },
        body: JSON.stringify(initializeMessage(version, capabilities)),
      });
      errors.push((await messageOf(refused)).error);
    }
    const link = (error: Json) => error.data.url as string;
    assert.deepEqual(
      errors.map((error) => [error.code, error.data.cause, error.message]),
      errors.map((error) => [
        -32010,
        "sign_in_required",
        `Upstream server "files" needs you to sign in first: sign in at ${link(error)}, then retry`,
      ]),
    );
    assert.match(link(errors[0]), /^http:\/\/[^/]+\/oauth\/start\//);
    await client.close();
  });

  test("the start link is refused once used, in another browser, or unknown", async () => {
    const { app, client } = gateway();
    const url = ((await whoami(app, "alice")).body as Json).result.inputRequests["sluice/sign-in"].params.url;
    const confirmed = await app.request(url, { method: "POST", headers: { origin: BASE } });
    assert.equal(confirmed.status, 303);
    const second = await app.request(url, { method: "POST", headers: { origin: BASE } });
    assert.equal(second.status, 409);
    const back = await as.authorize(confirmed.headers.get("location") ?? "", "mallory@idp");
    // The callback in a browser without the start page's cookie: one of its name, made up.
    const name = cookieOf(url);
    assert.equal((confirmed.headers.get("set-cookie") ?? "").split("=")[0], name);
    const stranger = await app.request(back.href, { headers: { cookie: `${name}=forged` } });
    assert.equal(stranger.status, 400);
    assert.match(await stranger.text(), /not started in this browser/);
    assert.equal((await app.request(`${BASE}/oauth/start/unknown-state`)).status, 404);
    // Nothing was stored: alice is still asked to sign in.
    assert.equal(((await whoami(app, "alice")).body as Json).result.resultType, "input_required");
    await client.close();
  });

  test("one browser with two sign-ins pending completes each, the one confirmed first first: each flow has a cookie of its own", async () => {
    const { app, client } = gateway();
    const linkOf = async () =>
      ((await whoami(app, "alice")).body as Json).result.inputRequests["sluice/sign-in"].params.url as string;
    const [first, second] = [await linkOf(), await linkOf()];
    assert.notEqual(first, second);
    const jar: string[] = [];
    const confirm = async (url: string) => {
      const confirmed = await app.request(url, { method: "POST", headers: { origin: BASE } });
      assert.equal(confirmed.status, 303);
      jar.push((confirmed.headers.get("set-cookie") ?? "").split(";")[0] ?? "");
      return confirmed.headers.get("location") ?? "";
    };
    const [toAsFirst, toAsSecond] = [await confirm(first), await confirm(second)];
    assert.deepEqual(jar.map((pair) => pair.split("=")[0]), [cookieOf(first), cookieOf(second)]);
    const cookie = jar.join("; ");
    const doneFirst = await app.request((await as.authorize(toAsFirst, "alice@idp")).href, {
      headers: { cookie },
    });
    assert.equal(doneFirst.status, 200, await doneFirst.clone().text());
    const doneSecond = await app.request((await as.authorize(toAsSecond, "alice@idp")).href, {
      headers: { cookie },
    });
    assert.equal(doneSecond.status, 200, await doneSecond.clone().text());
    assert.deepEqual(((await whoami(app, "alice")).body as Json).result.content, [{
      type: "text",
      text: "alice@idp",
    }]);
    await client.close();
  });

  test("a browser that leaves the callback during the code exchange stops its token request: the sign-in fails with the page of a failed one, and alice's retry is asked to sign in again", async () => {
    // The token endpoint holds the code exchange: it ends only when its signal fires, as fetch does.
    const exchanges: AbortSignal[] = [];
    const held = gate();
    const { app, client } = gateway({
      fetch: (url, init) => {
        if (url !== `${as.issuer}/token`) return globalThis.fetch(url, init);
        const signal = init.signal ?? new AbortController().signal;
        exchanges.push(signal);
        held.open();
        return new Promise<Response>((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason), { once: true })
        );
      },
    });
    const url = ((await whoami(app, "alice")).body as Json).result.inputRequests["sluice/sign-in"].params.url;
    const confirmed = await app.request(url, { method: "POST", headers: { origin: BASE } });
    const cookie = (confirmed.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const back = await as.authorize(confirmed.headers.get("location") ?? "", "alice@idp");
    const browser = new AbortController();
    const done = Promise.resolve(app.request(back.href, { headers: { cookie }, signal: browser.signal }));
    await within("the code exchange", held.opened, 5_000);
    const gone = new Error("the browser closed the tab");
    browser.abort(gone);
    const page = await within("the callback's answer", done, 5_000);
    assert.deepEqual([exchanges.length, exchanges[0]?.reason === gone, page.status], [1, true, 400]);
    assert.match(
      await page.text(),
      new RegExp(
        `<h1>Sign-in failed</h1><p>sign-in failed: the token request to the authorization server &#34;${as.issuer}&#34; failed: the browser closed the tab\\.</p>`,
      ),
    );
    assert.equal(((await whoami(app, "alice")).body as Json).result.resultType, "input_required");
    await client.close();
  });

  test("a token past its lifetime is refreshed (offline_access) and a revoked one replaced through its refresh token", async () => {
    const { app, client } = gateway();
    const url = ((await whoami(app, "alice")).body as Json).result.inputRequests["sluice/sign-in"].params.url;
    const browser = await signInAt(app, url, "alice@idp");
    assert.equal(new URL(browser.toAs).searchParams.get("scope"), "mcp:tools offline_access");
    await whoami(app, "alice");
    const firstToken = upstream.requests().at(-1)?.token ?? "";
    const tokenRequests = as.tokenRequests();
    now += 11 * 60_000; // past the 600 s lifetime
    assert.deepEqual(((await whoami(app, "alice")).body as Json).result.content, [{
      type: "text",
      text: "alice@idp",
    }]);
    const refreshed = upstream.requests().at(-1)?.token ?? "";
    assert.notEqual(refreshed, firstToken);
    assert.equal(as.tokenRequests(), tokenRequests + 1);
    assert.equal(decodeJwt(refreshed).sub, "alice@idp");
    // Revoked at the server: its 401 makes the gateway refresh once more, and retry.
    upstream.revoke(refreshed);
    assert.deepEqual(((await whoami(app, "alice")).body as Json).result.content, [{
      type: "text",
      text: "alice@idp",
    }]);
    assert.equal(as.tokenRequests(), tokenRequests + 2);
    assert.notEqual(upstream.requests().at(-1)?.token, refreshed);
    // No token anywhere in what callers can read.
    const servers = await (await app.request(`${BASE}/servers`, {
      headers: { authorization: `Bearer ${TOKENS.alice}` },
    })).text();
    const tokens = upstream.requests().map((r) => r.token).filter((t) => t !== "");
    assert.deepEqual(tokens.filter((t) => servers.includes(t)), []);
    assert.equal(JSON.parse(servers).servers[0].transport, "http");
    await client.close();
  });

  test("the gateway serves its Client ID Metadata Document", async () => {
    const { app, client } = gateway();
    const response = await app.request(`${BASE}/oauth/client-metadata.json`);
    assert.deepEqual(await answerOf(response, ["cache-control"]), {
      status: 200,
      headers: { "cache-control": "public, max-age=3600" },
      body: {
        client_id: `${BASE}/oauth/client-metadata.json`,
        client_name: "gate",
        client_uri: BASE,
        redirect_uris: [`${BASE}/oauth/callback`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "web",
      },
    });
    await client.close();
  });
});

describe("the gateway's sign-in link and the person who opens it", { skip }, () => {
  // The operator's SSO proxy names the browser's user in a header the gateway trusts.
  const signInUser: SignInUser = (request) => request.headers.get("x-sso-user") ?? undefined;
  const alice = { "x-sso-user": "alice" };
  const bob = { "x-sso-user": "bob" };
  const linkOf = async (app: App) =>
    ((await whoami(app, "alice")).body as Json).result.inputRequests["sluice/sign-in"].params.url as string;
  const aliceCalls = (text: string) => ({
    status: 200,
    headers: {},
    body: {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text }], resultType: "complete", _meta: SERVER_INFO },
    },
  });

  test("with signInUser, alice's link is refused 403 in bob's browser and one of no known user, at the start page, its confirmation and the callback; alice's browser completes it and her call runs as alice@idp", async () => {
    const { app, client } = gateway({ signInUser });
    const link = await linkOf(app);
    const asBob = await app.request(link, { headers: bob });
    assert.deepEqual([asBob.status, await asBob.text()], [
      403,
      notYours("This browser is signed in as &#34;bob&#34;"),
    ]);
    const confirmedByBob = await app.request(link, { method: "POST", headers: { ...bob, origin: BASE } });
    assert.deepEqual(
      [confirmedByBob.status, confirmedByBob.headers.get("set-cookie"), await confirmedByBob.text()],
      [403, null, notYours("This browser is signed in as &#34;bob&#34;")],
    );
    const unknown = await app.request(link, { method: "POST", headers: { origin: BASE } });
    assert.deepEqual(
      [unknown.status, await unknown.text()],
      [403, notYours("This browser's user is not known to the gateway")],
    );

    // Still open for alice. Her confirmation's callback URL, opened in bob's browser, is refused too.
    const confirmed = await app.request(link, { method: "POST", headers: { ...alice, origin: BASE } });
    assert.equal(confirmed.status, 303);
    const cookie = (confirmed.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const back = await as.authorize(confirmed.headers.get("location") ?? "", "alice@idp");
    const callbackAsBob = await app.request(back.href, { headers: { ...bob, cookie } });
    assert.deepEqual(
      [callbackAsBob.status, await callbackAsBob.text()],
      [403, notYours("This browser is signed in as &#34;bob&#34;")],
    );
    const done = await app.request(back.href, { headers: { ...alice, cookie } });
    assert.equal(done.status, 200);
    assert.deepEqual(await whoami(app, "alice"), aliceCalls("alice@idp"));
    await client.close();
  });

  test("with signInUser, alice's own browser goes through the whole sign-in as without it", async () => {
    const { app, client } = gateway({ signInUser });
    const browser = await signInAt(app, await linkOf(app), "alice@idp", alice);
    assert.deepEqual([browser.page.status, browser.confirmed, browser.done.status], [200, 303, 200]);
    assert.deepEqual(await whoami(app, "alice"), aliceCalls("alice@idp"));
    await client.close();
  });

  test("without signInUser, the first browser to confirm alice's link binds it: alice's own is refused 409, and bob's sign-in runs her calls as bob@idp", async () => {
    const { app, client } = gateway();
    const link = await linkOf(app);
    const confirmed = await app.request(link, { method: "POST", headers: { origin: BASE } });
    assert.equal(confirmed.status, 303);
    const late = await app.request(link, { method: "POST", headers: { origin: BASE } });
    assert.equal(late.status, 409);
    const cookie = (confirmed.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const back = await as.authorize(confirmed.headers.get("location") ?? "", "bob@idp");
    assert.equal((await app.request(back.href, { headers: { cookie } })).status, 200);
    assert.deepEqual(await whoami(app, "alice"), aliceCalls("bob@idp"));
    await client.close();
  });
});

/** The whole `403` page for alice's sign-in in a browser that is not hers, as `seen` (HTML) describes it. */
function notYours(seen: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Not your sign-in</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>Not your sign-in</h1><p>${seen}: expected gateway caller &#34;alice&#34;, whose sign-in this is.</p>
<p>Only &#34;alice&#34; can complete it, in their own browser; the link still works for them. If someone sent you this link, do not sign in for them.</p></body></html>`;
}

/** The one JSON-RPC message of a legacy POST's answer (JSON or one SSE event). */
async function messageOf(response: Response): Promise<Json> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const data = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
    return JSON.parse(data.at(-1) ?? "null");
  }
  return JSON.parse(text);
}
