import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type HandlerAppOptions, remoteHandler, type RemoteHandlerOptions } from "../../mod.ts";
import { isDeferral } from "../../src/handler/deferral.ts";
import { np, same } from "../_support/exact.ts";
import {
  contextOf,
  dataOf,
  deferred,
  reply,
  samplingParams,
  SECRET,
  wireContext,
  wired,
} from "./_remote-fixtures.ts";

const formParams = {
  mode: "form",
  message: "Who?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
} as const;
const formFacts = { mode: "form", fields: np({ name: { sensitiveSuspected: false } }) } as const;
const urlFacts = {
  mode: "url",
  url: "https://auth.example.com/login",
  host: "auth.example.com",
  idn: false,
  originMismatch: true,
} as const;
const roots = { roots: [{ uri: "file:///srv/project", name: "project" }] };
/**
 * What the app's handler is given besides the kind's fields: the wire context, its assigns
 * prototype-free, and `principal`, which is `undefined` when the call had none (none was sent).
 */
const appContext = {
  ...wireContext,
  assigns: np({ team: "core" }),
  principal: undefined,
  changes: [],
} as const;

describe("remoteHandler() with handlerApp()", () => {
  test("sends sampling as { kind, params, ctx } and returns the app's answer; the handler gets the same params and ctx", async () => {
    const seen: unknown[] = [];
    const { remote, bodies, requests } = wired({
      sampling: (params, ctx) => (seen.push(params, dataOf(ctx), ctx.signal.aborted), reply),
    });
    assert.deepEqual(await remote.sampling?.(samplingParams, contextOf({})), reply);
    assert.deepEqual(bodies, [{ kind: "sampling", params: samplingParams, ctx: wireContext }]);
    same(seen, [samplingParams, { ...appContext }, false]);
    const request = requests[0];
    assert.equal(request?.method, "POST");
    assert.equal(request?.url, "https://handler.invalid/");
    assert.equal(request?.headers.get("content-type"), "application/json");
    assert.equal(request?.headers.get("accept"), "application/json");
  });

  test("sends a form elicitation with mode and fields, and returns the answer", async () => {
    const seen: unknown[] = [];
    const answer = { action: "accept", content: { name: "Ada" } } as const;
    const { remote, bodies } = wired({
      elicitation: (params, ctx) => (seen.push(params, dataOf(ctx)), answer),
    });
    assert.deepEqual(await remote.elicitation?.(formParams, contextOf(formFacts)), answer);
    assert.deepEqual(bodies, [{
      kind: "elicitation",
      params: formParams,
      ctx: { ...wireContext, mode: "form", fields: { name: { sensitiveSuspected: false } } },
    }]);
    same(seen, [
      {
        ...formParams,
        requestedSchema: { ...formParams.requestedSchema, properties: np({ name: np({ type: "string" }) }) },
      },
      { ...appContext, ...formFacts },
    ]);
  });

  test("sends a URL elicitation with the URL facts when both ends present URL mode", async () => {
    const seen: unknown[] = [];
    const params = { mode: "url", message: "Log in", url: "https://auth.example.com/login" } as const;
    const { remote, bodies } = wired(
      {
        elicitationModes: ["url"],
        elicitation: (_params, ctx) => (seen.push(dataOf(ctx)), { action: "accept" }),
      },
      { remote: { kinds: ["elicitation"], elicitationModes: ["form", "url"] } },
    );
    assert.deepEqual(remote.elicitationModes, ["form", "url"]);
    assert.deepEqual(await remote.elicitation?.(params, contextOf(urlFacts)), { action: "accept" });
    assert.deepEqual(bodies, [{ kind: "elicitation", params, ctx: { ...wireContext, ...urlFacts } }]);
    same(seen, [{ ...appContext, ...urlFacts }]);
  });

  test("sends roots without params, legacy context included, and returns the roots", async () => {
    const seen: unknown[] = [];
    const { remote, bodies } = wired({ roots: (ctx) => (seen.push(dataOf(ctx)), roots) });
    const legacy = { era: "legacy", relatedRequestId: 7 } as const;
    assert.deepEqual(await remote.roots?.(contextOf(legacy)), roots);
    assert.deepEqual(bodies, [{ kind: "roots", ctx: { ...wireContext, ...legacy } }]);
    same(seen, [{ ...appContext, ...legacy }]);
  });

  test("sends the caller's principal in ctx, and the app's handler gets it as it was", async () => {
    const seen: unknown[] = [];
    const { remote, bodies } = wired({ roots: (ctx) => (seen.push(dataOf(ctx)), roots) });
    const principal = { subject: "alice", scopes: ["files:read"], claims: { iss: "https://as.example" } };
    assert.deepEqual(await remote.roots?.(contextOf({ principal })), roots);
    assert.deepEqual(bodies, [{ kind: "roots", ctx: { ...wireContext, principal } }]);
    same(seen, [{
      ...appContext,
      principal: { ...principal, claims: np({ iss: "https://as.example" }) },
    }]);
  });

  test("passes the handler's { error } on as its answer", async () => {
    const { remote } = wired({
      sampling: () => ({ error: { code: -1, message: "User rejected sampling" } }),
    });
    assert.deepEqual(await remote.sampling?.(samplingParams, contextOf({})), {
      error: { code: -1, message: "User rejected sampling" },
    });
  });

  test("turns the app handler's ctx.defer() into the caller's ctx.defer()", async () => {
    const { remote } = wired({ roots: (ctx) => ctx.defer() });
    assert.equal(isDeferral(await remote.roots?.(contextOf({}))), true);
  });

  test("throws a fixed message when the app's handler throws, never the exception's text", async () => {
    const { remote } = wired({ sampling: () => Promise.reject(new Error("db password hunter2")) });
    await assert.rejects(
      async () => await remote.sampling?.(samplingParams, contextOf({})),
      (error: Error) => {
        assert.equal(
          error.message,
          'remoteHandler(): the endpoint answered HTTP 500, expected 200: "The handler failed"',
        );
        return !error.message.includes("hunter2");
      },
    );
  });

  test("aborts the request when the caller's signal fires, and the app's handler sees its signal fire", async () => {
    const started = deferred();
    const handlerAborted = deferred<unknown>();
    const { remote, requests } = wired({
      sampling: (_params, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => (handlerAborted.resolve(ctx.signal.reason), reject()));
          started.resolve();
        }),
    });
    const controller = new AbortController();
    const call = remote.sampling?.(samplingParams, contextOf({}, controller.signal));
    await started.promise;
    const reason = new Error("the caller gave up");
    controller.abort(reason);
    await assert.rejects(async () => await call, (error) => error === reason);
    assert.equal(requests[0]?.signal.aborted, true);
    assert.equal(await handlerAborted.promise, reason);
  });

  test("with an already aborted signal sends nothing and throws the reason", async () => {
    const { remote, requests } = wired({ roots: () => roots });
    const reason = new Error("too late");
    await assert.rejects(
      async () => await remote.roots?.(contextOf({}, AbortSignal.abort(reason))),
      (e) => e === reason,
    );
    assert.equal(requests.length, 0);
  });

  test("refuses an answer larger than maxResponseBytes", async () => {
    const big = { ...reply, content: { type: "text" as const, text: "x".repeat(500) } };
    const { remote } = wired({ sampling: () => big }, { remote: { maxResponseBytes: 100 } });
    await assert.rejects(
      async () => await remote.sampling?.(samplingParams, contextOf({})),
      { message: "remoteHandler(): the response body is larger than 100 bytes (maxResponseBytes)" },
    );
  });

  test("sends the shared secret from headers; without it or with a wrong one the call throws on 401", async () => {
    const handler = { roots: () => roots };
    const app = { sharedSecret: SECRET };
    const right = wired(handler, { app, remote: { headers: { Authorization: `Bearer ${SECRET}` } } });
    assert.deepEqual(await right.remote.roots?.(contextOf({})), roots);
    assert.equal(right.requests[0]?.headers.get("authorization"), `Bearer ${SECRET}`);
    const missing = wired(handler, { app });
    await assert.rejects(async () => await missing.remote.roots?.(contextOf({})), {
      message:
        'remoteHandler(): the endpoint answered HTTP 401, expected 200: "Authorization refused: no Bearer credentials"',
    });
    const wrong = wired(handler, { app, remote: { headers: { authorization: `Bearer ${SECRET}x` } } });
    await assert.rejects(async () => await wrong.remote.roots?.(contextOf({})), {
      message:
        'remoteHandler(): the endpoint answered HTTP 401, expected 200: "Authorization refused: the Bearer credentials do not match"',
    });
  });

  test("remoteHandler() and handlerApp() take an optional option written as undefined as left out: every kind, the fetcher URL, no secret, https only", async () => {
    const app: HandlerAppOptions = { sharedSecret: undefined, maxRequestBytes: undefined };
    const options: RemoteHandlerOptions = {
      kinds: undefined,
      elicitationModes: undefined,
      headers: undefined,
      maxResponseBytes: undefined,
      url: undefined,
      allowHttp: undefined,
    };
    const { remote, requests } = wired({ roots: () => roots }, { app, remote: options });
    assert.deepEqual(
      [
        Object.keys(remote),
        await remote.roots?.(contextOf({})),
        requests.map((request) => [request.url, request.headers.get("authorization")]),
      ],
      [["sampling", "elicitation", "roots"], roots, [["https://handler.invalid/", null]]],
    );
    assert.throws(() => remoteHandler("http://handlers.example.com/roots", options), {
      name: "TypeError",
      message:
        'remoteHandler(): the target must use https unless its host is loopback, received "http://handlers.example.com/roots" (set "allowHttp: true" to accept the risk)',
    });
  });

  test("refuses options that are not an object, and a misspelt option (a misspelt kinds would declare every kind)", () => {
    assert.throws(() => remoteHandler("https://handlers.example.com/", { kind: ["sampling"] } as never), {
      name: "TypeError",
      message:
        'remoteHandler(): "kind" is not an option (did you mean "kinds"?); expected "kinds", "elicitationModes", "headers", "maxResponseBytes", "url", "allowHttp"',
    });
    assert.throws(() => remoteHandler("https://handlers.example.com/", null as never), {
      name: "TypeError",
      message: "remoteHandler(): the options must be an object { kinds?, headers?, … }, received null",
    });
  });

  test("refuses a header value that cannot be sent, naming the header and never the value (a secret read with its newline)", () => {
    const secret = "Zm9vYmFyLWN1cnJlbnQtc2VjcmV0\nbmV4dC1zZWNyZXQ=";
    const refused = (headers: Record<string, string>) => {
      try {
        remoteHandler("https://handlers.example.com/", { headers });
        return "accepted";
      } catch (error) {
        return [(error as Error).name, (error as Error).message];
      }
    };
    const message = (name: string) =>
      `remoteHandler(): "headers" must hold valid header names and values, received an invalid name or value for "${name}"`;
    assert.deepEqual([
      refused({ "x-team": "a", authorization: `Bearer ${secret}` }),
      refused({ authorization: "Bearer \u0000x" }),
      refused({ "bad name": "x" }),
    ], [["TypeError", message("authorization")], ["TypeError", message("authorization")], [
      "TypeError",
      message("bad name"),
    ]]);
  });
});
