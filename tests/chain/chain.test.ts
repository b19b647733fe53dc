import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CALL_ENDED, chainSteps, createChain } from "../../src/chain/chain.ts";
import { DeadlineReached } from "../../src/_internal/signals.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";
import type { Policy } from "../../src/policy/policy.ts";
import { createMemoryStore } from "../../src/limits/memory-store.ts";
import type { Handler } from "../../src/handler/handler.ts";
import type { InputRequest } from "../../src/protocol/input-request.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { np, same } from "../_support/exact.ts";

const MODERN = { version: "2026-07-28" } as const;
const LEGACY = { version: "2025-11-25" } as const;
const reply = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" } as const;

function chainFor(handler: Handler | undefined, policy: Partial<Policy> = {}, time = new FakeTime()) {
  return createChain({
    policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, ...policy }),
    handler,
    client: "agent",
    store: createMemoryStore({ clock: time }),
    timers: time,
  });
}

const sampling = (params: Record<string, unknown> = {}): InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 100, ...params },
} as InputRequest);
const formRequest = (requestedSchema: unknown): InputRequest => ({
  method: "elicitation/create",
  params: { mode: "form", message: "Who?", requestedSchema },
} as InputRequest);
const urlRequest = (url: string): InputRequest => ({
  method: "elicitation/create",
  params: { mode: "url", message: "Log in", url },
} as InputRequest);
const nameSchema = {
  type: "object",
  properties: { name: { type: "string", minLength: 1 }, age: { type: "integer", default: 30 } },
  required: ["name"],
};

describe("createChain()", () => {
  test("with no handler declares nothing and refuses every kind at the capability gate with -32601", async () => {
    const chain = chainFor(undefined);
    assert.deepEqual(chain.capabilities("2026-07-28"), {});
    assert.deepEqual(chain.capabilities("2025-06-18"), {});
    assert.deepEqual(await chain.run(sampling(), MODERN), {
      ok: false,
      stage: "capability",
      refusal: {
        code: -32601,
        message: "Input request refused: this client did not declare the sampling capability",
      },
    });
    assert.deepEqual((await chain.run({ method: "roots/list", params: {} }, LEGACY)).ok, false);
  });

  test("clamps maxTokens 999999 to 4096 and coerces includeContext before the handler, and decodes its answer", async () => {
    const seen: unknown[] = [];
    const chain = chainFor({
      sampling: (params, ctx) => (seen.push(params, ctx.serverId, ctx.era, ctx.client), reply),
    });
    const request = sampling({ maxTokens: 999_999, includeContext: "allServers" });
    assert.deepEqual(await chain.run(request, MODERN), { ok: true, answer: reply });
    assert.deepEqual(seen, [
      {
        messages: [{ role: "user", content: { type: "text", text: "q" } }],
        maxTokens: 4096,
        includeContext: "none",
      },
      "demo",
      "modern",
      "agent",
    ]);
    assert.equal((request.params as { maxTokens: number }).maxTokens, 999_999);
  });

  test("refuses legacy sampling with no call in flight with the rejection code, but not modern sampling", async () => {
    const chain = chainFor({ sampling: () => reply }, { sampling: { rejectionCode: -7 } });
    assert.deepEqual(await chain.run(sampling(), { ...LEGACY, callInFlight: false }), {
      ok: false,
      stage: "policy",
      refusal: { code: -7, message: "Sampling request refused: no call to this server is in flight" },
    });
    assert.deepEqual(await chain.run(sampling(), { ...MODERN, callInFlight: false }), {
      ok: true,
      answer: reply,
    });
  });

  test("refuses a sampling answer that is not a CreateMessageResult with -32603", async () => {
    const chain = chainFor({
      sampling: () => ({ role: "assistant", content: { type: "text", text: "x" } }) as never,
    });
    assert.deepEqual(await chain.run(sampling(), MODERN), {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32603,
        message: "Sampling answer refused: $.model: expected a value (required)",
      },
    });
  });

  test("refuses a malformed sampling answer naming where and what was expected, never quoting the answer to the server", async () => {
    const caption = "PRIVATE caption: meet at 5pm, door code 4471";
    const answers = [
      { role: "assistant", model: "m", content: { type: "image", data: caption, mimeType: "image/png" } },
      { role: "assistant", model: "m", content: `Summary of your inbox: ${caption}` },
    ];
    const refusals = [];
    for (const answer of answers) {
      const result = await chainFor({ sampling: () => answer as never }).run(sampling(), MODERN);
      refusals.push(result.ok ? result : result.refusal);
    }
    assert.deepEqual(refusals, [
      { code: -32603, message: "Sampling answer refused: $.content.data: expected base64 text" },
      { code: -32603, message: "Sampling answer refused: $.content: expected Object" },
    ]);
  });

  test("spends a burst of 20, then refuses sampling with -1 and elicitation with -32000", async () => {
    const chain = chainFor({ sampling: () => reply, elicitation: () => ({ action: "decline" }) });
    for (let i = 0; i < 20; i++) assert.equal((await chain.run(sampling(), MODERN)).ok, true);
    const over = (code: number) => ({
      ok: false,
      stage: "policy",
      refusal: {
        code,
        message:
          "Input request refused: over the policy's inputRateLimit of 10 per 1000 ms (burst 20); retry in 100 ms",
      },
    });
    assert.deepEqual(await chain.run(sampling(), MODERN), over(-1));
    assert.deepEqual(await chain.run(formRequest(nameSchema), MODERN), over(-32000));
  });

  test("refuses a URL elicitation over http with -32602, and passes an https one with its context", async () => {
    const contexts: unknown[] = [];
    const chain = chainFor({
      elicitationModes: ["form", "url"],
      elicitation: (params, ctx) => {
        if (ctx.mode === "url") {
          contexts.push([params, ctx.url, ctx.host, ctx.idn, ctx.originMismatch, ctx.signal.aborted]);
        }
        return { action: "accept" };
      },
    });
    const refusedHttp = await chain.run(urlRequest("http://mcp.example.com/login"), MODERN);
    assert.deepEqual([
      refusedHttp.ok,
      !refusedHttp.ok && refusedHttp.stage,
      !refusedHttp.ok && refusedHttp.refusal.code,
    ], [
      false,
      "policy",
      -32602,
    ]);
    assert.deepEqual(await chain.run(urlRequest("https://MCP.example.com/login?next=1"), MODERN), {
      ok: true,
      answer: { action: "accept" },
    });
    assert.deepEqual(await chain.run(urlRequest("https://xn--bcher-kva.com/"), MODERN), {
      ok: true,
      answer: { action: "accept" },
    });
    assert.deepEqual(contexts, [
      [
        { mode: "url", message: "Log in", url: "https://mcp.example.com/login?next=1" },
        "https://mcp.example.com/login?next=1",
        "mcp.example.com",
        false,
        false,
        false,
      ],
      [
        { mode: "url", message: "Log in", url: "https://xn--bcher-kva.com/" },
        "https://xn--bcher-kva.com/",
        "xn--bcher-kva.com",
        true,
        true,
        false,
      ],
    ]);
  });

  test("refuses a URL elicitation when the handler declares only form, with -32602", async () => {
    const chain = chainFor({ elicitation: () => ({ action: "accept" }) });
    assert.deepEqual(await chain.run(urlRequest("https://mcp.example.com/"), MODERN), {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32602,
        message: 'Elicitation request refused: mode "url" is not one this client declared ("form")',
      },
    });
  });

  test("applies form defaults to an accepted answer and refuses one that breaks the schema with -32603", async () => {
    const answers = [{ action: "accept", content: { name: "Ada" } }, {
      action: "accept",
      content: { name: "" },
    }];
    const fields: unknown[] = [];
    const chain = chainFor({
      elicitation: (_params, ctx) => {
        if (ctx.mode === "form") fields.push({ ...ctx.fields });
        return answers.shift() as never;
      },
    });
    const accepted = await chain.run(formRequest(nameSchema), MODERN);
    assert.deepEqual(JSON.parse(JSON.stringify(accepted)), {
      ok: true,
      answer: { action: "accept", content: { name: "Ada", age: 30 } },
    });
    const broken = await chain.run(formRequest(nameSchema), MODERN);
    assert.deepEqual([broken.ok, !broken.ok && broken.stage, !broken.ok && broken.refusal.code], [
      false,
      "policy",
      -32603,
    ]);
    assert.deepEqual(fields, [
      { name: { sensitiveSuspected: false }, age: { sensitiveSuspected: false } },
      { name: { sensitiveSuspected: false }, age: { sensitiveSuspected: false } },
    ]);
  });

  test("refuses a nested form schema with -32602 before the handler runs", async () => {
    let calls = 0;
    const chain = chainFor({ elicitation: () => (calls++, { action: "cancel" }) });
    const result = await chain.run(
      formRequest({ type: "object", properties: { a: { type: "object" } } }),
      MODERN,
    );
    assert.deepEqual([result.ok, !result.ok && result.refusal.code, calls], [false, -32602, 0]);
  });

  test("sends only local file roots", async () => {
    const chain = chainFor({
      roots: (ctx) => ({
        roots: [{ uri: "file:///srv/a/../b", name: String(ctx.relatedRequestId) }, {
          uri: "https://x.example/",
        }],
      }),
    });
    assert.deepEqual(
      await chain.run({ method: "roots/list", params: {} }, { ...LEGACY, relatedRequestId: 7 }),
      {
        ok: true,
        answer: { roots: [{ uri: "file:///srv/b", name: "7" }] },
      },
    );
  });

  test("passes a handler's { error } on as its own refusal, and turns a throw into a fixed -32603", async () => {
    const boom = new Error("secret detail");
    const chain = chainFor({
      sampling: () => ({ error: { code: -1, message: "User rejected sampling request" } }),
      roots: () => {
        throw boom;
      },
    });
    assert.deepEqual(await chain.run(sampling(), MODERN), {
      ok: false,
      stage: "handler",
      refusal: { code: -1, message: "User rejected sampling request" },
    });
    assert.deepEqual(await chain.run({ method: "roots/list", params: {} }, MODERN), {
      ok: false,
      stage: "handler",
      refusal: { code: -32603, message: "Internal error while answering the input request" },
      cause: boom,
    });
  });

  test("resolves an answer that throws when read, given at once or by an async handler, with a fixed -32603 and never rejects", async () => {
    const boom = new Error("secret detail");
    const thrower = (): never => {
      throw boom;
    };
    const revoked = (): object => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const answers: Record<string, () => unknown> = {
      "a roots getter": () => ({
        get roots() {
          return thrower();
        },
      }),
      "a root's uri getter": () => ({
        roots: [{
          get uri() {
            return thrower();
          },
        }],
      }),
      "an error getter": () => ({
        get error() {
          return thrower();
        },
      }),
      "a revoked proxy": revoked,
    };
    const unreadable = {
      ok: false,
      stage: "policy",
      refusal: { code: -32603, message: "Roots answer refused: expected plain JSON, reading it threw Error" },
    };
    const crashed = {
      ok: false,
      stage: "handler",
      refusal: { code: -32603, message: "Internal error while answering the input request" },
    };
    const results: Record<string, unknown> = {};
    for (const [name, make] of Object.entries(answers)) {
      for (
        const [how, roots] of [["sync", make], ["async", async () => await Promise.resolve(make())]] as const
      ) {
        const chain = chainFor({ roots: roots as NonNullable<Handler["roots"]> });
        const result = await chain.run({ method: "roots/list", params: {} }, MODERN);
        // The cause is what was thrown: shown by its name (the async proxy's is another TypeError).
        const { cause, ...rest } = result as typeof result & { cause?: unknown };
        results[`${name}, ${how}`] = cause instanceof Error ? { ...rest, cause: cause.name } : rest;
      }
    }
    // An async function resolving with a revoked proxy rejects (reading its "then" throws).
    assert.deepEqual(results, {
      "a roots getter, sync": unreadable,
      "a roots getter, async": unreadable,
      "a root's uri getter, sync": unreadable,
      "a root's uri getter, async": unreadable,
      "an error getter, sync": { ...crashed, cause: "Error" },
      "an error getter, async": { ...crashed, cause: "Error" },
      "a revoked proxy, sync": { ...crashed, cause: "TypeError" },
      "a revoked proxy, async": { ...crashed, cause: "TypeError" },
    });
  });

  test("times a hung elicitation out after 5 minutes of fake time and aborts its signal", async () => {
    const time = new FakeTime();
    let signal: AbortSignal | undefined;
    const chain = chainFor(
      { elicitation: (_p, ctx) => (signal = ctx.signal, new Promise(() => {})) },
      {},
      time,
    );
    const pending = chain.run(formRequest(nameSchema), MODERN);
    await time.advance(299_999);
    assert.equal(signal?.aborted, false);
    await time.advance(1);
    assert.deepEqual(await pending, {
      ok: false,
      stage: "timeout",
      refusal: { code: -32603, message: "Handler timed out after 5m (handlerTimeout.elicitation)" },
    });
    assert.equal(signal?.aborted, true);
    assert.equal(time.pending, 0);
  });

  test("stops a handler when the caller's signal aborts, and drops its late answer", async () => {
    const time = new FakeTime();
    const controller = new AbortController();
    let release: (value: never) => void = () => {};
    let signal: AbortSignal | undefined;
    const chain = chainFor(
      { sampling: (_p, ctx) => (signal = ctx.signal, new Promise((r) => (release = r))) },
      {},
      time,
    );
    const pending = chain.run(sampling(), { ...MODERN, signal: controller.signal });
    await time.advance(10);
    controller.abort("sibling failed");
    const result = await pending;
    release(reply as never);
    assert.deepEqual(result, {
      ok: false,
      stage: "cancelled",
      refusal: { code: -32603, message: "Request cancelled" },
      cause: "sibling failed",
    });
    assert.equal(signal?.aborted, true);
    assert.equal(time.pending, 0);
  });

  test("ends a handler its call's maxTotalTimeout aborts as timed out with the call, any other abort as cancelled", async () => {
    const time = new FakeTime();
    const ended = async (reason: unknown) => {
      const controller = new AbortController();
      const chain = chainFor({ sampling: () => new Promise(() => {}) }, {}, time);
      const pending = chain.run(sampling(), { ...LEGACY, signal: controller.signal });
      await time.advance(10);
      controller.abort(reason);
      return await pending;
    };
    const total = new DeadlineReached("total", 1000);
    const leg = new DeadlineReached("leg", 1000);
    assert.deepEqual([await ended(total), await ended(leg), await ended("the user left")], [
      { ok: false, stage: "timeout", refusal: { code: -32603, message: CALL_ENDED }, cause: total },
      { ok: false, stage: "cancelled", refusal: { code: -32603, message: "Request cancelled" }, cause: leg },
      {
        ok: false,
        stage: "cancelled",
        refusal: { code: -32603, message: "Request cancelled" },
        cause: "the user left",
      },
    ]);
    assert.equal(CALL_ENDED, "The request was not answered: the call it belongs to has ended");
  });

  test("shapes the declared capabilities per protocol version", () => {
    const chain = chainFor(
      {
        sampling: () => reply,
        elicitationModes: ["form", "url"],
        elicitation: () => ({ action: "cancel" }),
        roots: () => ({ roots: [] }),
      },
      { sampling: { context: true } },
    );
    assert.deepEqual(chain.capabilities("2026-07-28", { tasks: true }), {
      roots: {},
      sampling: { context: {} },
      elicitation: { form: {}, url: {} },
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
    assert.deepEqual(chain.capabilities("2025-11-25"), {
      roots: { listChanged: true },
      sampling: { context: {} },
      elicitation: { form: {}, url: {} },
    });
    assert.deepEqual(chain.capabilities("2025-06-18"), {
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
    });
  });

  test("refuses an elicitation from a 2025-06-18 server at the gate with -32601 when the policy allows only URL mode, which that version lacks", async () => {
    const asked: unknown[] = [];
    const chain = chainFor(
      {
        elicitationModes: ["form", "url"],
        elicitation: (params) => (asked.push(params), { action: "decline" }),
      },
      { elicitation: { modes: ["url"] } },
    );
    assert.deepEqual(chain.capabilities("2025-06-18"), {});
    assert.deepEqual(await chain.run(formRequest(nameSchema), { version: "2025-06-18" }), {
      ok: false,
      stage: "capability",
      refusal: {
        code: -32601,
        message: "Input request refused: this client did not declare the elicitation capability",
      },
    });
    assert.deepEqual(await chain.run(urlRequest("https://login.example.com/"), LEGACY), {
      ok: true,
      answer: { action: "decline" },
    });
    assert.deepEqual(asked, [{ mode: "url", message: "Log in", url: "https://login.example.com/" }]);
  });

  test("refuses a 2025-06-18 server's form with a multi-select, which that version lacks, -32602 before the handler; 2025-11-25 takes it", async () => {
    const asked: unknown[] = [];
    const chain = chainFor({
      elicitation: (params) => (asked.push(params), { action: "accept", content: { tags: ["a"] } }),
    });
    const tags = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
    };
    assert.deepEqual(await chain.run(formRequest(tags), { version: "2025-06-18" }), {
      ok: false,
      stage: "policy",
      refusal: {
        code: -32602,
        message:
          'Elicitation schema refused: property "tags": expected a field of a 2025-06-18 form (text, number, boolean or single-select), received a multi-select, which that version does not have',
      },
    });
    assert.deepEqual(asked, []);
    same(await chain.run(formRequest(tags), LEGACY), {
      ok: true,
      answer: { action: "accept", content: np({ tags: ["a"] }) },
    });
  });

  test("declares nothing the policy forbids, and intersects elicitation modes", () => {
    const chain = chainFor(
      { sampling: () => reply, elicitationModes: ["url"], elicitation: () => ({ action: "cancel" }) },
      { sampling: false, elicitation: { modes: ["form"] } },
    );
    assert.deepEqual(chain.declared, { sampling: undefined, elicitation: undefined, roots: false });
    assert.deepEqual(chain.capabilities("2026-07-28"), {});
  });

  test("reports a deferral with the request as the checks left it (maxTokens clamped, context coerced)", async () => {
    const chain = chainFor({ sampling: (_params, ctx) => ctx.defer() });
    const result = await chain.run(sampling({ maxTokens: 999_999, includeContext: "allServers" }), MODERN);
    assert.deepEqual(result, {
      ok: false,
      stage: "deferred",
      refusal: { code: -32603, message: "The handler deferred the request to the caller" },
      request: {
        method: "sampling/createMessage",
        params: {
          messages: [{ role: "user", content: { type: "text", text: "q" } }],
          maxTokens: 4096,
          includeContext: "none",
        },
      },
    });
  });

  test("checkAnswer() post-checks an answer from elsewhere with the same rules, defaults included", () => {
    const chain = chainFor({ elicitation: () => ({ action: "cancel" }) });
    const request = formRequest(nameSchema);
    const accepted = chain.checkAnswer(request, { action: "accept", content: { name: "Ada" } }, "2026-07-28");
    assert.deepEqual(JSON.parse(JSON.stringify(accepted)), {
      ok: true,
      value: { action: "accept", content: { name: "Ada", age: 30 } },
    });
    const broken = chain.checkAnswer(request, { action: "accept", content: { name: 5 } }, "2026-07-28");
    assert.deepEqual([broken.ok, !broken.ok && broken.refusal.code], [false, -32603]);
    const badSchema = chain.checkAnswer(formRequest({ type: "array" }), { action: "decline" }, "2026-07-28");
    assert.deepEqual([badSchema.ok, !badSchema.ok && badSchema.refusal.code], [false, -32602]);
  });

  test("an answer to a request the chain deferred is checked in the version the server asked in, whoever answers: two blocks, fine in 2025-11-25 and 2026-07-28, are refused for a 2025-06-18 server, and one block in an array is sent as that block", async () => {
    const chain = chainFor({ sampling: (_params, ctx) => ctx.defer() });
    const twoBlocks = { ...reply, content: [reply.content, reply.content] };
    const deferredIn = async (version: "2025-06-18" | "2025-11-25") => {
      const result = await chain.run(sampling(), { version });
      assert.equal(result.ok || result.stage, "deferred");
      return (result as { request: InputRequest }).request;
    };
    const old = await deferredIn("2025-06-18");
    for (const answerer of ["2025-11-25", "2026-07-28"] as const) {
      assert.deepEqual(chain.checkAnswer(old, twoBlocks, answerer), {
        ok: false,
        refusal: {
          code: -32603,
          message:
            'Sampling answer refused: $.content: expected one content block (a list of blocks came with "2025-11-25")',
        },
      });
      const elsewhere = await chain.answerElsewhere(old, () => Promise.resolve(twoBlocks), {
        version: answerer,
        signal: new AbortController().signal,
      });
      assert.deepEqual(elsewhere, {
        ok: false,
        stage: "policy",
        refusal: {
          code: -32603,
          message:
            'Sampling answer refused: $.content: expected one content block (a list of blocks came with "2025-11-25")',
        },
      });
      assert.deepEqual(chain.checkAnswer(old, { ...reply, content: [reply.content] }, answerer), {
        ok: true,
        value: reply,
      });
    }
    // A 2025-06-18 caller's one block, to a 2025-11-25 server, as before; two blocks are that version's.
    const newer = await deferredIn("2025-11-25");
    assert.deepEqual(chain.checkAnswer(newer, reply, "2025-06-18"), { ok: true, value: reply });
    assert.deepEqual(chain.checkAnswer(newer, twoBlocks, "2025-06-18"), { ok: true, value: twoBlocks });
  });

  test("admit() is the capability gate alone: it passes declared kinds and refuses the rest with -32601", () => {
    const chain = chainFor({ roots: () => ({ roots: [] }) });
    assert.deepEqual(chain.admit("roots/list"), { ok: true, value: undefined });
    assert.deepEqual(chain.admit("sampling/createMessage"), {
      ok: false,
      refusal: {
        code: -32601,
        message: "Input request refused: this client did not declare the sampling capability",
      },
    });
  });
});

describe("chainSteps()", () => {
  const compiled = (policy: Partial<Policy> = {}) =>
    compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, ...policy });

  test("lists the gate, then each kind's steps numbered on from it, in the order the chain runs them", () => {
    assert.deepEqual(chainSteps(compiled({ sampling: { rejectionCode: -7 } })), {
      gate: [
        { number: 1, name: "capability", code: -32601 },
        { number: 2, name: "budget", code: -32000 },
      ],
      kinds: {
        "sampling/createMessage": [
          { number: 3, name: "tools", code: -32602 },
          { number: 4, name: "maxTokens", code: -32602 },
          { number: 5, name: "tool_result", code: -32602 },
          { number: 6, name: "idle", code: -7 },
          { number: 7, name: "tool loop", code: -7 },
          { number: 8, name: "context", code: undefined },
          { number: 9, name: "handler", code: -32603, timeoutMs: 60_000 },
          { number: 10, name: "answer", code: -32603 },
        ],
        "elicitation/create": [
          { number: 3, name: "mode", code: -32602 },
          { number: 4, name: "url", code: -32602 },
          { number: 5, name: "form", code: -32602 },
          { number: 6, name: "handler", code: -32603, timeoutMs: 300_000 },
          { number: 7, name: "answer", code: -32603 },
        ],
        "roots/list": [
          { number: 3, name: "handler", code: -32603, timeoutMs: 60_000 },
          { number: 4, name: "answer", code: -32603 },
        ],
      },
    });
  });

  test("lists nothing after the gate for a kind the policy refuses, and no check for a mode it refuses", () => {
    const steps = chainSteps(compiled({ sampling: false, roots: false, elicitation: { modes: ["url"] } }));
    assert.deepEqual(steps.kinds, {
      "sampling/createMessage": [],
      "elicitation/create": [
        { number: 3, name: "mode", code: -32602 },
        { number: 4, name: "url", code: -32602 },
        { number: 5, name: "handler", code: -32603, timeoutMs: 300_000 },
        { number: 6, name: "answer", code: -32603 },
      ],
      "roots/list": [],
    });
  });
});
