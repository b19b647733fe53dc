import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createChain } from "../../src/chain/chain.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import type { Handler } from "../../src/handler/handler.ts";
import type { RemoteHandlerOptions } from "../../src/handler/remote-handler.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";
import { dataOf, deferred, reply, wired } from "./_remote-fixtures.ts";

const MODERN = { version: "2026-07-28" } as const;
const base = {
  client: "agent",
  serverId: "github",
  era: "modern",
  assigns: {},
  relatedRequestId: null,
} as const;
/** What the app's handler is given: no principal went over the wire, so `ctx.principal` is undefined. */
const seenBase = { ...base, principal: undefined, changes: [] } as const;
const sampling = (params: Record<string, unknown>): InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 100, ...params },
} as InputRequest);

/** A chain whose handler is a remote handler wired to `handlerApp(appHandler)`. */
function chainAround(appHandler: Handler, remote: RemoteHandlerOptions = {}, time = new FakeTime()) {
  const pair = wired(appHandler, { remote });
  const chain = createChain({
    policy: compilePolicy({ server: "github", transport: { url: "https://mcp.example.com/mcp" } }),
    handler: pair.remote,
    client: "agent",
    store: createMemoryStore({ clock: time }),
    timers: time,
  });
  return { chain, ...pair };
}

describe("createChain() around remoteHandler()", () => {
  test("declares only the remote kinds", () => {
    const { chain } = chainAround({ sampling: () => reply }, { kinds: ["sampling", "roots"] });
    assert.deepEqual(chain.capabilities("2026-07-28"), { roots: {}, sampling: {} });
  });

  test("clamps maxTokens 999999 to 4096 and coerces includeContext before the remote handler sees them", async () => {
    const seen: unknown[] = [];
    const { chain, bodies } = chainAround({ sampling: (params) => (seen.push(params), reply) });
    const result = await chain.run(sampling({ maxTokens: 999_999, includeContext: "allServers" }), MODERN);
    assert.deepEqual(result, { ok: true, answer: reply });
    const params = {
      messages: [{ role: "user", content: { type: "text", text: "q" } }],
      maxTokens: 4096,
      includeContext: "none",
    };
    assert.deepEqual(seen, [params]);
    // The context says what the checks changed, so the remote handler can show what was asked.
    assert.deepEqual(bodies, [{
      kind: "sampling",
      params,
      ctx: {
        ...base,
        changes: [
          { field: "maxTokens", from: 999_999, to: 4096 },
          { field: "includeContext", from: "allServers", to: "none" },
        ],
      },
    }]);
  });

  test("refuses a bad remote answer with -32603 after its post-checks", async () => {
    const { chain } = chainAround({
      sampling: () => ({ role: "assistant", content: { type: "text", text: "x" } }) as never,
    });
    assert.deepEqual(await chain.run(sampling({}), MODERN), {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32603,
        message: "Sampling answer refused: $.model: expected a value (required)",
      },
    });
  });

  test("passes the remote { error } on as the handler's refusal", async () => {
    const { chain } = chainAround({
      sampling: () => ({ error: { code: -1, message: "User rejected sampling" } }),
    });
    assert.deepEqual(await chain.run(sampling({}), MODERN), {
      ok: false,
      stage: "handler",
      refusal: { code: -1, message: "User rejected sampling" },
    });
  });

  test("answers a remote handler's throw with the fixed -32603, the exception's text nowhere", async () => {
    const { chain } = chainAround({ sampling: () => Promise.reject(new Error("db password hunter2")) });
    const result = await chain.run(sampling({}), MODERN);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual([result.stage, result.refusal], [
      "handler",
      { code: -32603, message: "Internal error while answering the input request" },
    ]);
    assert.equal(String((result.cause as Error).message).includes("hunter2"), false);
  });

  test("times the remote handler out: the deadline aborts the request and the app's handler signal fires", async () => {
    const time = new FakeTime();
    const started = deferred();
    const aborted = deferred<boolean>();
    const { chain, requests } = chainAround(
      {
        sampling: (_params, ctx) =>
          new Promise(() => {
            ctx.signal.addEventListener("abort", () => aborted.resolve(true));
            started.resolve();
          }),
      },
      {},
      time,
    );
    const run = chain.run(sampling({}), MODERN);
    await started.promise;
    await time.advance(60_000);
    assert.deepEqual(await run, {
      ok: false,
      stage: "timeout",
      refusal: { code: -32603, message: "Handler timed out after 1m (handlerTimeout.default)" },
    });
    assert.equal(requests[0]?.signal.aborted, true);
    assert.equal(await aborted.promise, true);
  });

  test("sends a form elicitation with the fields the chain flagged and accepts a fitting answer", async () => {
    const seen: unknown[] = [];
    const answer = { action: "accept", content: { name: "Ada", api_token: "t" } } as const;
    const { chain } = chainAround({ elicitation: (_params, ctx) => (seen.push(dataOf(ctx)), answer) });
    const requestedSchema = {
      type: "object",
      properties: { name: { type: "string" }, api_token: { type: "string" } },
    };
    const request = {
      method: "elicitation/create",
      params: { mode: "form", message: "Who?", requestedSchema },
    };
    const result = await chain.run(request as InputRequest, MODERN);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), { ok: true, answer });
    same(seen, [{
      ...seenBase,
      assigns: np({}),
      mode: "form",
      fields: np({ name: { sensitiveSuspected: false }, api_token: { sensitiveSuspected: true } }),
    }]);
  });

  test("sends a URL elicitation with the chain's URL facts", async () => {
    const seen: unknown[] = [];
    const { chain, bodies } = chainAround(
      {
        elicitationModes: ["url"],
        elicitation: (_params, ctx) => (seen.push(dataOf(ctx)), { action: "accept" }),
      },
      { kinds: ["elicitation"], elicitationModes: ["url"] },
    );
    const params = { mode: "url", message: "Log in", url: "https://xn--80ak6aa92e.com/login" };
    const request = { method: "elicitation/create", params } as InputRequest;
    assert.deepEqual(await chain.run(request, MODERN), { ok: true, answer: { action: "accept" } });
    const facts = {
      mode: "url",
      url: params.url,
      host: "xn--80ak6aa92e.com",
      idn: true,
      originMismatch: true,
    };
    assert.deepEqual(bodies, [{ kind: "elicitation", params, ctx: { ...base, ...facts } }]);
    same(seen, [{ ...seenBase, assigns: np({}), ...facts }]);
  });

  test("reports the app handler's deferral as the chain's deferred stage", async () => {
    const { chain } = chainAround({ roots: (ctx) => ctx.defer() });
    const result = await chain.run({ method: "roots/list", params: {} }, MODERN);
    assert.deepEqual([result.ok, !result.ok && result.stage], [false, "deferred"]);
  });
});
