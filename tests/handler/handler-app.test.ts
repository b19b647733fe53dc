import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { Handler } from "../../src/handler/handler.ts";
import { handlerApp } from "../../src/handler/handler-app.ts";
import { remoteHandler } from "../../src/handler/remote-handler.ts";
import { contextOf, reply, samplingParams, SECRET, wireContext } from "./_remote-fixtures.ts";

const handler: Handler = { sampling: () => reply, roots: () => ({ roots: [] }) };
const JSON_TYPE = { "content-type": "application/json" };

async function post(
  body: unknown,
  options: { app?: Parameters<typeof handlerApp>[1]; headers?: Record<string, string>; raw?: string } = {},
): Promise<[number, unknown]> {
  const response = await handlerApp(handler, options.app).request("/", {
    method: "POST",
    headers: { ...JSON_TYPE, ...options.headers },
    body: options.raw ?? JSON.stringify(body),
  });
  return [response.status, await response.json()];
}

const refused = (message: string) => ({ message: `Request body refused: ${message}` });

describe("handlerApp()", () => {
  test("answers 200 with the handler's answer as JSON", async () => {
    const response = await handlerApp(handler).request("/", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ kind: "sampling", params: samplingParams, ctx: wireContext }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.deepEqual(await response.json(), reply);
  });

  test("answers 400 naming what is wrong in a malformed body", async () => {
    const cases: [unknown, string][] = [
      [[], "$: expected Object, received Array"],
      [
        { kind: "tools", ctx: wireContext },
        '$.kind: expected ("sampling" | "elicitation" | "roots"), received "tools"',
      ],
      [
        { kind: "elicitation", params: {}, ctx: wireContext },
        '$.kind: expected a kind this handler implements ("sampling" | "roots"), received "elicitation"',
      ],
      [
        { kind: "roots", ctx: { ...wireContext, era: "future" } },
        '$.ctx.era: expected ("modern" | "legacy"), received "future"',
      ],
      [
        { kind: "roots", ctx: { ...wireContext, assigns: [] } },
        "$.ctx.assigns: expected Object, received Array",
      ],
      [{ kind: "roots", params: [], ctx: wireContext }, "$.params: expected Object, received Array"],
      [
        { kind: "sampling", params: { ...samplingParams, maxTokens: "ten" }, ctx: wireContext },
        '$.params.maxTokens: expected number, received "ten"',
      ],
    ];
    for (const [body, message] of cases) assert.deepEqual(await post(body), [400, refused(message)]);
    assert.deepEqual(await post(undefined, { raw: "{kind" }), [400, refused("the body is not valid JSON")]);
    const deep = `{"kind":"roots","ctx":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    assert.deepEqual(await post(undefined, { raw: deep }), [
      400,
      refused("the body nests more than 64 levels deep"),
    ]);
  });

  test("answers 400 for an elicitation whose ctx.mode is not the params' or not one the handler presents", async () => {
    const app = handlerApp({ elicitation: () => ({ action: "decline" }) });
    const ask = async (params: unknown, ctx: unknown) => {
      const response = await app.request("/", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ kind: "elicitation", params, ctx }),
      });
      return [response.status, await response.json()];
    };
    const url = { mode: "url", message: "Log in", url: "https://auth.example.com/" };
    const urlCtx = {
      ...wireContext,
      mode: "url",
      url: url.url,
      host: "auth.example.com",
      idn: false,
      originMismatch: true,
    };
    const form = { message: "Who?", requestedSchema: { type: "object", properties: {} } };
    assert.deepEqual(await ask(form, urlCtx), [
      400,
      refused('$.ctx.mode: expected "form" (the mode of the params), received "url"'),
    ]);
    assert.deepEqual(await ask(url, urlCtx), [
      400,
      refused('$.ctx.mode: expected a mode this handler presents ("form"), received "url"'),
    ]);
    assert.deepEqual(await ask(form, { ...wireContext, mode: "form", fields: {} }), [200, {
      action: "decline",
    }]);
  });

  test("decodes legacy params by the legacy schema: a legacy URL elicitation needs its elicitationId", async () => {
    const app = handlerApp({ elicitationModes: ["url"], elicitation: () => ({ action: "accept" }) });
    const ctx = {
      ...wireContext,
      era: "legacy",
      mode: "url",
      url: "https://a.example/",
      host: "a.example",
      idn: false,
      originMismatch: true,
    };
    const response = await app.request("/", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ kind: "elicitation", params: { mode: "url", message: "m", url: ctx.url }, ctx }),
    });
    assert.deepEqual([response.status, await response.json()], [
      400,
      refused("$.params.elicitationId: expected a value (required), received undefined"),
    ]);
  });

  test("answers 413 for a body over maxRequestBytes and 415 for a body that is not JSON", async () => {
    const body = { kind: "sampling", params: samplingParams, ctx: wireContext };
    assert.deepEqual(await post(body, { app: { maxRequestBytes: 64 } }), [
      413,
      refused("the body is larger than 64 bytes"),
    ]);
    assert.deepEqual(await post(body, { headers: { "content-type": "text/plain" } }), [
      415,
      refused('expected content type "application/json", received "text/plain"'),
    ]);
  });

  test("answers 405 with Allow: POST for another method, and 404 for another path", async () => {
    const app = handlerApp(handler);
    const get = await app.request("/", { method: "GET" });
    assert.deepEqual([get.status, get.headers.get("allow"), await get.json()], [
      405,
      "POST",
      { message: 'Method "GET" not allowed: expected "POST"' },
    ]);
    const other = await app.request("/other", { method: "POST" });
    assert.deepEqual([other.status, await other.json()], [
      404,
      { message: 'Not found: "/other"; the handler is served at POST /' },
    ]);
  });

  test("with sharedSecret answers 401 to missing or wrong Bearer credentials, and accepts the right ones", async () => {
    const app = { sharedSecret: SECRET };
    const body = { kind: "roots", ctx: wireContext };
    assert.deepEqual(await post(body, { app }), [401, {
      message: "Authorization refused: no Bearer credentials",
    }]);
    assert.deepEqual(await post(body, { app, headers: { authorization: `Basic ${SECRET}` } }), [
      401,
      { message: "Authorization refused: no Bearer credentials" },
    ]);
    assert.deepEqual(await post(body, { app, headers: { authorization: "Bearer c2x1aWNl" } }), [
      401,
      { message: "Authorization refused: the Bearer credentials do not match" },
    ]);
    assert.deepEqual(await post(body, { app, headers: { authorization: `bearer ${SECRET}` } }), [200, {
      roots: [],
    }]);
    const response = await handlerApp(handler, app).request("/", { method: "POST", body: "{}" });
    assert.equal(response.headers.get("www-authenticate"), "Bearer");
  });

  test("answers 500 with a fixed message when the handler throws or its answer has no JSON form", async () => {
    const body = JSON.stringify({ kind: "roots", ctx: wireContext });
    const throwing = handlerApp({ roots: () => Promise.reject(new Error("secret path /etc/shadow")) });
    const thrown = await throwing.request("/", { method: "POST", headers: JSON_TYPE, body });
    assert.deepEqual([thrown.status, await thrown.text()], [500, '{"message":"The handler failed"}']);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const unencodable = handlerApp({ roots: () => cyclic as never });
    const response = await unencodable.request("/", { method: "POST", headers: JSON_TYPE, body });
    assert.deepEqual([response.status, await response.json()], [
      500,
      { message: "The handler's answer could not be encoded as JSON" },
    ]);
  });

  test("serves the same contract mounted under a prefix, reached through a fetcher's url", async () => {
    const gateway = new Hono().route("/handlers/github", handlerApp(handler));
    const remote = remoteHandler(
      { fetch: async (input, init) => await gateway.fetch(new Request(input, init)) },
      { kinds: ["roots"], url: "https://gate.internal/handlers/github" },
    );
    assert.deepEqual(await remote.roots?.(contextOf({})), { roots: [] });
  });

  test("refuses a handler that implements no kind, a bad secret, a bad size limit and a misspelt option", () => {
    assert.throws(() => handlerApp({ log: () => {} }), {
      name: "TypeError",
      message: 'handlerApp(): the handler must implement "sampling", "elicitation" or "roots"',
    });
    assert.throws(() => handlerApp(handler, { sharedSecret: "two words" }), { name: "TypeError" });
    assert.throws(() => handlerApp(handler, { sharedSecret: "" }), { name: "TypeError" });
    assert.throws(() => handlerApp(handler, { maxRequestBytes: 0 }), {
      name: "RangeError",
      message: 'handlerApp(): "maxRequestBytes" must be a positive integer, received "0"',
    });
    // A misspelt sharedSecret would leave the app open to anyone.
    assert.throws(
      () => handlerApp(handler, { sharedsecret: "ci-secret-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9Sa0Tc" } as never),
      {
        name: "TypeError",
        message:
          'handlerApp(): "sharedsecret" is not an option (did you mean "sharedSecret"?); expected "sharedSecret", "maxRequestBytes"',
      },
    );
    assert.throws(() => handlerApp(handler, null as never), {
      name: "TypeError",
      message:
        "handlerApp(): the options must be an object { sharedSecret?, maxRequestBytes? }, received null",
    });
  });
});
