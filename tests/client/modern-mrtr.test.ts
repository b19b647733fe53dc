import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { result, toolsList } from "../_support/scripted-server.ts";
import { failure, meta, plain, setup } from "./_client-fixtures.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { gate } from "../_support/gate.ts";
import type { ClientError } from "../../src/errors.ts";

const confirmSchema = {
  type: "object",
  properties: { confirmed: { type: "boolean" } },
  required: ["confirmed"],
};
const elicit = { method: "elicitation/create", params: { message: "Sure?", requestedSchema: confirmSchema } };
const listOne = (id: unknown) => toolsList(id, [{ name: "deploy", inputSchema: { type: "object" } }]);

describe("createClient() multi round-trip requests", () => {
  test("answers an elicitation in the calling flow and retries with a new id, the original params, the answer and the exact state", async () => {
    const state = '{"nonce": "a b", "x":1}';
    const seen: unknown[] = [];
    const { client, server } = setup((req, i) => {
      if (req.body.method === "tools/list") return listOne(req.body.id);
      return i === 1
        ? result(req.body.id, {
          resultType: "input_required",
          inputRequests: { confirm: elicit },
          requestState: state,
        })
        : result(req.body.id, { resultType: "complete", content: [{ type: "text", text: "deployed" }] });
    }, {
      handler: {
        elicitation: (params, ctx) => {
          seen.push(params.message, ctx.serverId, ctx.era, ctx.relatedRequestId, ctx.assigns, ctx.mode);
          return { action: "accept", content: { confirmed: true } };
        },
      },
    });
    const args = { env: "prod" };
    const answer = await client.callTool("demo", "deploy", args, { assigns: { user: "ada" } });
    assert.deepEqual(answer, { resultType: "complete", content: [{ type: "text", text: "deployed" }] });
    assert.deepEqual(seen, ["Sure?", "demo", "modern", null, { user: "ada" }, "form"]);
    assert.deepEqual(args, { env: "prod" });
    const [list, first, retry] = server.requests.map((r) => plain(r.body));
    assert.deepEqual(list, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: meta({ elicitation: { form: {} } }) },
    });
    assert.deepEqual(first, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "deploy", arguments: { env: "prod" }, _meta: meta({ elicitation: { form: {} } }) },
    });
    assert.deepEqual(retry, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "deploy",
        arguments: { env: "prod" },
        _meta: meta({ elicitation: { form: {} } }),
        inputResponses: { confirm: { action: "accept", content: { confirmed: true } } },
        requestState: state,
      },
    });
    assert.deepEqual(server.requests[2]?.headers["mcp-name"], "deploy");
  });

  test("sends no requestState when the server sent none, and treats a result without resultType as complete", async () => {
    const { client, server } = setup((req, i) => {
      if (req.body.method === "tools/list") return listOne(req.body.id);
      return i === 1
        ? result(req.body.id, { resultType: "input_required", inputRequests: { confirm: elicit } })
        : result(req.body.id, { content: [{ type: "text", text: "ok" }] });
    }, { handler: { elicitation: () => ({ action: "decline" }) } });
    assert.deepEqual(await client.callTool("demo", "deploy"), { content: [{ type: "text", text: "ok" }] });
    const retry = plain(server.requests[2]?.body.params);
    assert.deepEqual([Object.hasOwn(retry ?? {}, "requestState"), retry?.inputResponses], [false, {
      confirm: { action: "decline" },
    }]);
    assert.equal(server.requests.length, 3);
  });

  test("keeps a call made while another waits for input free of that flow's answers and state", async () => {
    const released = gate();
    const { client, server } = setup((req) => {
      if (req.body.method === "tools/list") return listOne(req.body.id);
      const p = req.body.params as { name: string; inputResponses?: unknown };
      if (p.name === "deploy" && p.inputResponses === undefined) {
        return result(req.body.id, {
          resultType: "input_required",
          inputRequests: { confirm: elicit },
          requestState: "S",
        });
      }
      return result(req.body.id, { resultType: "complete", content: [] });
    }, {
      handler: {
        elicitation: async () => {
          await released.opened;
          return { action: "accept", content: { confirmed: true } };
        },
      },
    });
    const first = client.callTool("demo", "deploy");
    while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 1));
    await client.callTool("demo", "deploy-other", { x: 1 });
    released.open();
    await first;
    const unrelated = plain(
      server.requests.find((r) => (r.body.params as { name?: string }).name === "deploy-other")?.body.params,
    );
    assert.deepEqual(Object.keys(unrelated ?? {}).sort(), ["_meta", "arguments", "name"]);
  });

  test("fails with rounds_exceeded after maxRounds rounds, carrying the last result", async () => {
    const last = { resultType: "input_required", inputRequests: { confirm: elicit }, requestState: "again" };
    const { client, server } = setup(
      (req) => req.body.method === "tools/list" ? listOne(req.body.id) : result(req.body.id, last),
      {
        handler: { elicitation: () => ({ action: "accept", content: { confirmed: true } }) },
        policy: { maxRounds: 3 },
      },
    );
    const error = await client.callTool("demo", "deploy").catch((e) => e);
    assert.deepEqual([error.kind, error.message, plain(error.data)], [
      "rounds_exceeded",
      'Server "demo" still asked for input after 3 rounds of tools/call (maxRounds 3)',
      last,
    ]);
    // tools/list, then the call and its three answered retries.
    assert.equal(server.requests.length, 5);
  });

  test("maxRounds 1 answers one round: the server that asks once gets its answer", async () => {
    const ask = { resultType: "input_required", inputRequests: { confirm: elicit }, requestState: "once" };
    let calls = 0;
    const { client, server } = setup(
      (req) =>
        req.body.method === "tools/list"
          ? listOne(req.body.id)
          : result(req.body.id, ++calls === 1 ? ask : { content: [{ type: "text", text: "deployed" }] }),
      {
        handler: { elicitation: () => ({ action: "accept", content: { confirmed: true } }) },
        policy: { maxRounds: 1 },
      },
    );
    const answered = await client.callTool("demo", "deploy");
    assert.deepEqual(plain(answered.content), [{ type: "text", text: "deployed" }]);
    const retry = server.requests.at(-1)?.body.params as Record<string, unknown>;
    assert.deepEqual(
      [plain(retry["inputResponses"]), retry["requestState"]],
      [{ confirm: { action: "accept", content: { confirmed: true } } }, "once"],
    );
    assert.equal(server.requests.length, 3);
  });

  test("refuses an unknown resultType and input_required without entries or state as protocol errors", async () => {
    for (
      const [body, message] of [
        [
          { resultType: "later" },
          'Server "demo" sent an invalid tools/call result: $.resultType: expected ("complete" | "input_required"), received "later"',
        ],
        [
          { resultType: "input_required" },
          'Server "demo" sent an invalid tools/call result: $: expected "inputRequests" or "requestState", received neither',
        ],
      ] as const
    ) {
      const { client } = setup(
        (req) => req.body.method === "tools/list" ? listOne(req.body.id) : result(req.body.id, body),
        {},
      );
      assert.deepEqual(await failure(client.callTool("demo", "deploy")), ["protocol", undefined, message]);
    }
  });

  test("refuses an entry for an undeclared capability before any callback runs, with its decision event", async () => {
    let calls = 0;
    const { client } = setup(
      (req) =>
        req.body.method === "tools/list" ? listOne(req.body.id) : result(req.body.id, {
          resultType: "input_required",
          inputRequests: {
            a: elicit,
            b: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
          },
        }),
      {
        handler: { elicitation: () => (calls++, { action: "cancel" }) },
        clock: new FakeTime(Date.UTC(2026, 11, 1)),
      },
    );
    const events: unknown[] = [];
    client.onDecision((event) => void events.push(event));
    const message =
      'Server "demo" sent input request "b" (sampling/createMessage) for the sampling capability, which this client did not declare';
    assert.deepEqual(await failure(client.callTool("demo", "deploy")), ["protocol", -32601, message]);
    assert.equal(calls, 0);
    const base = { time: "2026-12-01T00:00:00.000Z", client: "agent", server: "demo", durationMs: 0 };
    assert.deepEqual(events, [
      {
        ...base,
        type: "input",
        era: "modern",
        method: "sampling/createMessage",
        outcome: "capability",
        changes: [],
        refusal: {
          code: -32601,
          message: "Input request refused: this client did not declare the sampling capability",
        },
      },
      {
        ...base,
        type: "call",
        method: "tools/call",
        name: "deploy",
        outcome: "failed",
        error: { kind: "protocol", code: -32601, message },
      },
    ]);
  });

  test("an entry whose handler still runs when maxTotalTimeout ends the call gives timeout, as the call does", async () => {
    const time = new FakeTime(Date.UTC(2026, 11, 1));
    const running = gate();
    const { client } = setup(
      (req) =>
        req.body.method === "tools/list"
          ? listOne(req.body.id)
          : result(req.body.id, { resultType: "input_required", inputRequests: { confirm: elicit } }),
      {
        handler: { elicitation: () => (running.open(), new Promise(() => {})) },
        policy: { maxTotalTimeout: "1s" },
        timers: time,
        clock: time,
      },
    );
    const events: unknown[] = [];
    client.onDecision((event) => void events.push(event));
    const failed = failure(client.callTool("demo", "deploy"));
    await running.opened;
    await time.advance(1000);
    const message = 'Server "demo": the call did not finish within 1000 ms (maxTotalTimeout)';
    assert.deepEqual(await failed, ["timeout", undefined, message]);
    const base = { time: "2026-12-01T00:00:01.000Z", client: "agent", server: "demo" };
    // Before: outcome "cancelled", "Request cancelled".
    assert.deepEqual(events, [
      {
        ...base,
        type: "input",
        era: "modern",
        method: "elicitation/create",
        mode: "form",
        outcome: "timeout",
        changes: [],
        refusal: { code: -32603, message: "The request was not answered: the call it belongs to has ended" },
        handlerMs: 1000,
        durationMs: 1000,
      },
      {
        ...base,
        type: "call",
        method: "tools/call",
        name: "deploy",
        outcome: "failed",
        error: { kind: "timeout", message },
        durationMs: 1000,
      },
    ]);
    await client.close();
  });

  test("fails the call when one entry's handler refuses, with its error's code and data, aborting its sibling's signal", async () => {
    let siblingSignal: AbortSignal | undefined;
    const { client, server } = setup(
      (req) =>
        req.body.method === "tools/list" ? listOne(req.body.id) : result(req.body.id, {
          resultType: "input_required",
          inputRequests: {
            ask: elicit,
            think: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
          },
        }),
      {
        handler: {
          elicitation: (_p, ctx) => (siblingSignal = ctx.signal, new Promise(() => {})),
          sampling: async () => {
            await new Promise((r) => setTimeout(r, 5));
            return {
              error: { code: -1, message: "User rejected sampling request", data: { retryAfterMs: 1000 } },
            };
          },
        },
      },
    );
    const failed = await client.callTool("demo", "deploy").catch((error: ClientError) => error);
    assert.deepEqual([failed.kind, failed.code, failed.message, failed.data], [
      "input_handler",
      -1,
      'Input request "think" (sampling/createMessage) from server "demo" failed in the handler: User rejected sampling request',
      { retryAfterMs: 1000 },
    ]);
    assert.equal(siblingSignal?.aborted, true);
    assert.equal(server.requests.length, 2);
  });

  test("fails with a policy error when a check refuses an entry, and never sends its answer", async () => {
    const { client, server } = setup(
      (req) =>
        req.body.method === "tools/list" ? listOne(req.body.id) : result(req.body.id, {
          resultType: "input_required",
          inputRequests: {
            login: {
              method: "elicitation/create",
              params: { mode: "url", message: "Log in", url: "http://evil.example/" },
            },
          },
        }),
      { handler: { elicitationModes: ["url"], elicitation: () => ({ action: "accept" }) } },
    );
    const [kind, code, message] = await failure(client.callTool("demo", "deploy"));
    assert.deepEqual([
      kind,
      code,
      message.startsWith('Input request "login" (elicitation/create) from server "demo" refused by policy: '),
    ], [
      "policy",
      -32602,
      true,
    ]);
    assert.equal(server.requests.length, 2);
  });

  test("clamps a sampling entry to the policy's maxTokens before the handler sees it", async () => {
    const seen: number[] = [];
    const { client, server } = setup((req, i) => {
      if (req.body.method === "tools/list") return listOne(req.body.id);
      return i === 1
        ? result(req.body.id, {
          resultType: "input_required",
          inputRequests: {
            s: {
              method: "sampling/createMessage",
              params: {
                messages: [{ role: "user", content: { type: "text", text: "hi" } }],
                maxTokens: 999999,
              },
            },
          },
        })
        : result(req.body.id, { resultType: "complete", content: [] });
    }, {
      handler: {
        sampling: (
          p,
        ) => (seen.push(p.maxTokens),
          { role: "assistant", content: { type: "text", text: "yo" }, model: "m" }),
      },
    });
    await client.callTool("demo", "deploy");
    assert.deepEqual(seen, [4096]);
    assert.deepEqual(plain(server.requests[2]?.body.params?.inputResponses), {
      s: { role: "assistant", content: { type: "text", text: "yo" }, model: "m" },
    });
  });

  test("keeps __proto__ as an ordinary key of inputRequests and inputResponses", async () => {
    const { client, server } = setup((req, i) => {
      if (req.body.method === "tools/list") return listOne(req.body.id);
      if (i === 1) {
        return new Response(
          `{"jsonrpc":"2.0","id":${req.body.id},"result":{"resultType":"input_required","inputRequests":{"__proto__":${
            JSON.stringify(elicit)
          }}}}`,
          {
            headers: { "content-type": "application/json" },
          },
        );
      }
      return result(req.body.id, { resultType: "complete", content: [] });
    }, { handler: { elicitation: () => ({ action: "cancel" }) } });
    await client.callTool("demo", "deploy");
    const sent = server.requests[2]?.body.params?.inputResponses as Record<string, unknown>;
    assert.deepEqual([
      Object.keys(sent),
      Object.hasOwn(sent, "__proto__"),
      ({} as { polluted?: unknown }).polluted,
    ], [
      ["__proto__"],
      true,
      undefined,
    ]);
  });
});
