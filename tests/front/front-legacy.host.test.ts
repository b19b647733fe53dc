// The front (createFront, self-hosted client) in front of a legacy upstream: the official
// server-everything 2026.8.31 (2025-11-25) over stdio. Its elicitation/create, sent while a
// downstream tools/call is open, goes down as input_required while the upstream call stays
// parked; the caller's retry answers it and the call goes on. The hostile stdio server's flood,
// which asks two questions at once, is answered over two retries.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { toolCallHeaders } from "../_support/downstream.ts";
import { eventually } from "../_support/eventually.ts";
import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient, type Handler, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { EVERYTHING_FORM_DEFAULTS } from "../_support/everything-form.ts";
import everythingForm from "../fixtures/server-everything-elicitation-schema.json" with { type: "json" };
import {
  EVERYTHING_FORM_FIELDS,
  type EverythingHttp,
  everythingStdioCommand,
  startEverythingHttp,
} from "../_support/everything.ts";
import { hostileStdioTransport } from "../_support/hostile-process.ts";

const KEY = "front-legacy-test-key-0123456789abcdef";

let http: EverythingHttp | undefined;
before(async () => {
  http = await startEverythingHttp();
});
after(async () => {
  await http?.stop();
});

/** The JSON-RPC messages the front sent upstream over HTTP. */
const sent: Array<{ method?: string; params?: Record<string, unknown> }> = [];

/**
 * A front over stdio, or over HTTP with every message sent upstream recorded in `sent`; with
 * `"hostile"`, before the hostile stdio server (its `flood` asks several questions at once) as
 * server "hostile".
 */
function front(handler: Handler, policy: Partial<Policy> = {}, over: "stdio" | "http" | "hostile" = "stdio") {
  const transports = {
    stdio: everythingStdioCommand,
    http: () => ({ url: http?.url ?? "" }),
    hostile: hostileStdioTransport,
  };
  const client = createClient({
    name: "gate",
    handler,
    policies: [{
      server: over === "hostile" ? "hostile" : "everything",
      transport: transports[over](),
      era: "legacy",
      ...policy,
    }],
    fetch: (url, init) => {
      if (typeof init.body === "string") sent.push(JSON.parse(init.body));
      return globalThis.fetch(url, init);
    },
  });
  const app = createFront({ client, stateKey: KEY, allowedHosts: ["gate.example"], auth: "none" });
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> =>
    await app.fetch(new Request(url, init));
  return { client, fetch };
}

const capabilities = (declared: object) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": declared,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
});

async function post(
  fetch: ReturnType<typeof front>["fetch"],
  params: Record<string, unknown>,
  server = "everything",
) {
  const response = await fetch(`https://gate.example/mcp/${server}`, {
    method: "POST",
    headers: toolCallHeaders(String(params.name)),
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params }),
  });
  // deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON results
  return { status: response.status, body: await response.json() as Record<string, any> };
}

const ELICIT = {
  name: "trigger-elicitation-request",
  arguments: {},
  _meta: capabilities({ elicitation: { form: {} } }),
};
const ADA = { action: "accept", content: { name: "Ada Lovelace", check: true, email: "ada@example.com" } };
const { firstLine, ...defaults } = EVERYTHING_FORM_DEFAULTS;
/** ADA's answer as server-everything gets it: the form's defaults filled in, in the form's order. */
const ADA_FILLED = {
  action: "accept",
  content: { name: "Ada Lovelace", check: true, firstLine, email: "ada@example.com", ...defaults },
};
/** The whole answer to ELICIT once ADA's answer went upstream. */
const ADA_ANSWERED = {
  status: 200,
  body: {
    jsonrpc: "2.0",
    id: 7,
    result: {
      content: [
        { type: "text", text: "✅ User provided the requested information!" },
        {
          type: "text",
          text:
            "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Email: ada@example.com\n- Favorite Integer: 42\n- Favorite Number: 3.14",
        },
        { type: "text", text: `\nRaw result: ${JSON.stringify(ADA_FILLED, null, 2)}` },
      ],
      resultType: "complete",
    },
  },
};
const INVALID_STATE = { code: -32602, message: "Invalid or expired requestState" };
/** A valid state whose call has ended: the words say it, and that another instance may hold it. */
const NOT_HELD = {
  code: -32602,
  message:
    "Invalid or expired requestState: its call is not held by this gateway instance (it has ended, or another instance holds it: a legacy upstream's call stays on the instance that started it)",
};
const text = (body: Record<string, unknown>) =>
  (body.result as { content: { text: string }[] }).content.map((c) => c.text).join("\n");

/** The tools/call requests sent upstream that were then cancelled, with the reason sent. */
function cancelledCalls(): Array<[unknown, unknown]> {
  const calls = new Map(
    sent.filter((m) => m.method === "tools/call").map((m) => [(m as { id?: unknown }).id, m.params?.name]),
  );
  return sent.filter((m) => m.method === "notifications/cancelled" && calls.has(m.params?.requestId))
    .map((m) => [calls.get(m.params?.requestId), m.params?.reason]);
}

describe("the front before a legacy upstream (server-everything)", () => {
  test("passes a deferred elicitation down while the upstream call stays parked, and completes it on the retry", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    try {
      const first = await post(fetch, ELICIT);
      const { requestState } = first.body.result;
      assert.match(requestState, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      // server-everything's elicitation/create, passed down as it sent it.
      assert.deepEqual(first, {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 7,
          result: {
            resultType: "input_required",
            inputRequests: {
              "input-1": {
                method: "elicitation/create",
                params: {
                  message: "Please provide inputs for the following fields:",
                  requestedSchema: everythingForm,
                },
              },
            },
            requestState,
          },
        },
      });
      // Its fields in the server's order (deepEqual does not compare the order of keys).
      const passed = first.body.result.inputRequests["input-1"].params.requestedSchema.properties;
      assert.deepEqual(Object.keys(passed), EVERYTHING_FORM_FIELDS);

      const second = await post(fetch, { ...ELICIT, inputResponses: { "input-1": ADA }, requestState });
      assert.deepEqual(second, ADA_ANSWERED);
      // The state opened its round once: a replay finds no parked call.
      const replay = await post(fetch, { ...ELICIT, inputResponses: { "input-1": ADA }, requestState });
      assert.deepEqual(replay.body.error, NOT_HELD);
    } finally {
      await client.close();
    }
  });

  test("a request passed down says what the policy changed in it, as a modern server's does: the maxTokens the server asked", async () => {
    const { client, fetch } = front({}, { passDown: ["sampling"], sampling: { maxTokens: 4096 } });
    try {
      const first = await post(fetch, {
        name: "trigger-sampling-request",
        arguments: { prompt: "hi", maxTokens: 200_000 },
        _meta: capabilities({ sampling: {} }),
      });
      assert.deepEqual(first.body.result.inputRequests["input-1"], {
        method: "sampling/createMessage",
        params: {
          messages: [{
            role: "user",
            content: { type: "text", text: "Resource trigger-sampling-request context: hi" },
          }],
          systemPrompt: "You are a helpful test server.",
          maxTokens: 4096,
          temperature: 0.7,
          _meta: { "sluice/changes": [{ field: "maxTokens", from: 200_000, to: 4096 }] },
        },
      });
    } finally {
      await client.close();
    }
  });

  test("a 2026 caller's server/discover carries the server's instructions, as a 2025 host's initialize does", async () => {
    const { client, fetch } = front({});
    try {
      const discover = await fetch("https://gate.example/mcp/everything", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "server/discover",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "server/discover",
          params: { _meta: capabilities({}) },
        }),
      });
      const initialize = await fetch("https://gate.example/mcp/everything", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "host", version: "1" },
          },
        }),
      });
      const discovered = (await discover.json() as { result: { instructions?: string } }).result.instructions;
      const text = await initialize.text();
      const initialized = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as {
        result: { instructions?: string };
      };
      assert.deepEqual([typeof discovered, discovered], ["string", initialized.result.instructions]);
    } finally {
      await client.close();
    }
  });

  test("a URL elicitation a legacy server asks a 2026 caller comes without the 2025-11-25 elicitationId", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    try {
      const first = await post(fetch, {
        name: "trigger-url-elicitation",
        arguments: { url: "https://example.com/pay", elicitationId: "pay-1" },
        _meta: capabilities({ elicitation: { url: {} } }),
      });
      const asked = Object.values(first.body.result.inputRequests) as Array<
        { params: Record<string, unknown> }
      >;
      assert.deepEqual(asked.map((request) => Object.keys(request.params).sort()), [[
        "message",
        "mode",
        "url",
      ]]);
    } finally {
      await client.close();
    }
  });

  test("a request a legacy server asks within a task reaches a 2026 caller without the related task's _meta", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    try {
      const first = await post(fetch, {
        name: "simulate-research-query",
        arguments: { topic: "otters", ambiguous: true },
        _meta: capabilities({ elicitation: {} }),
      });
      const asked = Object.values(first.body.result.inputRequests) as Array<
        { params: Record<string, unknown> }
      >;
      assert.deepEqual(asked.map((request) => Object.keys(request.params).sort()), [[
        "message",
        "requestedSchema",
      ]]);
    } finally {
      await client.close();
    }
  });

  test("both events of a request a legacy server asks a 2026 caller name the era the server asked in", async () => {
    const { client, fetch } = front({}, { passDown: ["sampling"], sampling: { maxTokens: 4096 } });
    const events: Array<[string, unknown, unknown]> = [];
    client.onDecision((event) =>
      void (event.type === "input" && events.push([event.era, event.outcome, event.changes]))
    );
    try {
      const params = {
        name: "trigger-sampling-request",
        arguments: { prompt: "hi", maxTokens: 200_000 },
        _meta: capabilities({ sampling: {} }),
      };
      const first = await post(fetch, params);
      const reply = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
      await post(fetch, {
        ...params,
        inputResponses: { "input-1": reply },
        requestState: first.body.result.requestState,
      });
      const clamped = [{ field: "maxTokens", from: 200_000, to: 4096 }];
      assert.deepEqual(events, [["legacy", "deferred", clamped], ["legacy", "answered", []]]);
    } finally {
      await client.close();
    }
  });

  test("refuses a tampered state and a state for another request, and the parked call still completes", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    try {
      const { requestState } = (await post(fetch, ELICIT)).body.result;
      const flipped = requestState.slice(0, 12) + (requestState[12] === "A" ? "B" : "A") +
        requestState.slice(13);
      const tampered = await post(fetch, {
        ...ELICIT,
        inputResponses: { "input-1": ADA },
        requestState: flipped,
      });
      assert.deepEqual(tampered.body.error, INVALID_STATE);
      const other = await post(fetch, {
        ...ELICIT,
        arguments: { other: true },
        inputResponses: { "input-1": ADA },
        requestState,
      });
      assert.deepEqual(other.body.error, INVALID_STATE);
      const done = await post(fetch, {
        ...ELICIT,
        inputResponses: { "input-1": { action: "decline" } },
        requestState,
      });
      assert.match(text(done.body), /decline/i);
    } finally {
      await client.close();
    }
  });

  test("ignores answers to requests the state did not ask, and completes the call with the one asked", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    try {
      const { requestState } = (await post(fetch, ELICIT)).body.result;
      const done = await post(fetch, {
        ...ELICIT,
        inputResponses: { "input-1": ADA, "input-2": { action: "decline" }, extra: "not an answer" },
        requestState,
      });
      // ADA's answer alone went upstream.
      assert.deepEqual(done, ADA_ANSWERED);
    } finally {
      await client.close();
    }
  });

  test("a retry that reaches another instance is refused saying the call stays where it started, and completes at that one", async () => {
    const [one, two] = [
      front({}, { passDown: ["elicitation"] }, "hostile"),
      front({}, { passDown: ["elicitation"] }, "hostile"),
    ];
    const FLOOD = { name: "flood", arguments: { count: 1 }, _meta: ELICIT._meta };
    try {
      const first = (await post(one.fetch, FLOOD, "hostile")).body.result;
      const retry = {
        ...FLOOD,
        inputResponses: { "input-1": { action: "accept", content: { ok: true } } },
        requestState: first.requestState,
      };
      const elsewhere = await post(two.fetch, retry, "hostile");
      const there = await post(one.fetch, retry, "hostile");
      assert.deepEqual([elsewhere.body.error, there.body.result.structuredContent], [NOT_HELD, {
        tally: { "result:accept": 1 },
      }]);
    } finally {
      await one.client.close();
      await two.client.close();
    }
  });

  test("a 2026 caller's upstream session declares roots without listChanged: its caller has no such notification to send", async () => {
    const { client, fetch } = front({}, { passDown: ["roots"] }, "hostile");
    try {
      const { body } = await post(
        fetch,
        { name: "capabilities", arguments: {}, _meta: capabilities({ roots: {} }) },
        "hostile",
      );
      assert.deepEqual(body.result.structuredContent, { declared: { roots: {} } });
    } finally {
      await client.close();
    }
  });

  test("asks again what a retry left unanswered, with the answers given sent upstream once, and ignores answers to requests not asked", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] }, "hostile");
    const FLOOD = { name: "flood", arguments: { count: 2 }, _meta: ELICIT._meta };
    try {
      const first = (await post(fetch, FLOOD, "hostile")).body.result;
      const form = {
        method: "elicitation/create",
        params: {
          message: "Confirm?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        },
      };
      assert.deepEqual([first.resultType, first.inputRequests], [
        "input_required",
        { "input-1": form, "input-2": form },
      ]);
      // input-1 answered (its answer goes upstream now), input-2 left out, "extra" never asked.
      const again = (await post(fetch, {
        ...FLOOD,
        inputResponses: {
          "input-1": { action: "accept", content: { ok: true } },
          extra: { action: "decline" },
        },
        requestState: first.requestState,
      }, "hostile")).body.result;
      assert.deepEqual([again.resultType, again.inputRequests, again.requestState === first.requestState], [
        "input_required",
        { "input-2": form },
        false,
      ]);
      // The earlier round's state, replayed: refused, and the parked call goes on.
      const replayed = await post(fetch, {
        ...FLOOD,
        inputResponses: { "input-1": { action: "cancel" }, "input-2": { action: "cancel" } },
        requestState: first.requestState,
      }, "hostile");
      assert.deepEqual(replayed.body.error, INVALID_STATE);
      // Answers to requests this state did not ask (input-1 again, "extra") are ignored.
      const done = await post(fetch, {
        ...FLOOD,
        inputResponses: {
          "input-1": { action: "cancel" },
          "input-2": { action: "decline" },
          extra: { action: "accept" },
        },
        requestState: again.requestState,
      }, "hostile");
      assert.deepEqual(done.body.result.structuredContent, {
        tally: { "result:accept": 1, "result:decline": 1 },
      });
      const replayedAgain = await post(fetch, {
        ...FLOOD,
        inputResponses: { "input-2": { action: "decline" } },
        requestState: again.requestState,
      }, "hostile");
      assert.deepEqual(replayedAgain.body.error, NOT_HELD);
      // The server got one answer to each of its requests, r0 (input-1) and r1 (input-2).
      const received = await post(fetch, { name: "received", arguments: {}, _meta: ELICIT._meta }, "hostile");
      const { responses, tail } = received.body.result.structuredContent;
      assert.deepEqual([responses, tail], [2, ["r0", "r1"]]);
    } finally {
      await client.close();
    }
  });

  test("holds a 2026 caller's rounds to maxRounds and maxInputRequests, as a modern upstream's are; asking again what a retry left unanswered is no new round", async () => {
    const form = {
      method: "elicitation/create",
      params: {
        message: "Confirm?",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      },
    };
    const yes = { action: "accept", content: { ok: true } };
    const rounds = front({}, { passDown: ["elicitation"], maxRounds: 2 }, "hostile");
    const failures: unknown[] = [];
    rounds.client.onDecision((event) =>
      void (event.type === "call" && event.error && failures.push(event.error.kind))
    );
    try {
      const SEQUENCE = { name: "flood", arguments: { count: 3, sequential: true }, _meta: ELICIT._meta };
      const first = (await post(rounds.fetch, SEQUENCE, "hostile")).body.result;
      assert.deepEqual(first.inputRequests, { "input-1": form });
      // No answer: asked again, and that is no new round.
      const again = (await post(rounds.fetch, { ...SEQUENCE, requestState: first.requestState }, "hostile"))
        .body.result;
      assert.deepEqual(again.inputRequests, { "input-1": form });
      const second = (await post(rounds.fetch, {
        ...SEQUENCE,
        inputResponses: { "input-1": yes },
        requestState: again.requestState,
      }, "hostile")).body.result;
      assert.deepEqual(second.inputRequests, { "input-2": form });
      const third = await post(rounds.fetch, {
        ...SEQUENCE,
        inputResponses: { "input-2": yes },
        requestState: second.requestState,
      }, "hostile");
      assert.deepEqual(third.body.error, {
        code: -32603,
        message: 'Server "hostile" still asked for input after 2 rounds of tools/call (maxRounds 2)',
      });
      // The call's decision event names the limit, as a modern upstream's does.
      assert.deepEqual(failures, ["rounds_exceeded"]);
    } finally {
      await rounds.client.close();
    }
    const many = front({}, { passDown: ["elicitation"], maxInputRequests: 2 }, "hostile");
    try {
      const FLOOD = { name: "flood", arguments: { count: 3 }, _meta: ELICIT._meta };
      const refused = await post(many.fetch, FLOOD, "hostile");
      assert.deepEqual(refused.body.error, {
        code: -32603,
        message: 'Server "hostile" sent 3 input requests in one round, expected at most 2 (maxInputRequests)',
      });
    } finally {
      await many.client.close();
    }
  });

  test("refuses inputResponses that is no object, -32602, with a state or without, and the parked call goes on", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] }, "hostile");
    const FLOOD = { name: "flood", arguments: { count: 1 }, _meta: ELICIT._meta };
    try {
      const first = (await post(fetch, FLOOD, "hostile")).body.result;
      for (
        const [given, kind] of [["garbage", "a string"], [[], "an array"], [null, "null"], [5, "a number"]]
      ) {
        // With the state, and without (a first request).
        for (const state of [{ requestState: first.requestState }, {}]) {
          const refused = await post(fetch, { ...FLOOD, inputResponses: given, ...state }, "hostile");
          assert.deepEqual(refused.body.error, {
            code: -32602,
            message:
              `Invalid params: inputResponses must be an object keyed by the inputRequests' keys, received ${kind}`,
          });
        }
      }
      const done = await post(fetch, {
        ...FLOOD,
        inputResponses: { "input-1": { action: "decline" } },
        requestState: first.requestState,
      }, "hostile");
      assert.deepEqual(done.body.result.structuredContent, { tally: { "result:decline": 1 } });
    } finally {
      await client.close();
    }
  });

  test("post-checks the caller's answer like a handler's, and cancels the upstream call when it is refused", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] }, "http");
    sent.length = 0;
    try {
      const { requestState } = (await post(fetch, ELICIT)).body.result;
      const refused = await post(fetch, {
        ...ELICIT,
        inputResponses: { "input-1": { action: "accept", content: { name: "Ada", integer: 1000 } } },
        requestState,
      });
      assert.equal(refused.body.error.code, -32602);
      assert.match(
        refused.body.error.message,
        /^Answer to input request "input-1" refused: Elicitation answer refused: field "integer"/,
      );
      const again = await post(fetch, { ...ELICIT, inputResponses: { "input-1": ADA }, requestState });
      assert.deepEqual(again.body.error, NOT_HELD);
      assert.deepEqual(cancelledCalls(), [["trigger-elicitation-request", "cancelled by the client"]]);
    } finally {
      await client.close();
    }
  });

  test("fails with -32021 when the caller did not declare elicitation, and answers sampling with its own handler", async () => {
    const { client, fetch } = front({
      sampling: () => ({ role: "assistant", content: { type: "text", text: "gate reply" }, model: "m" }),
    }, { passDown: ["elicitation"] });
    try {
      const refused = await post(fetch, { ...ELICIT, _meta: capabilities({ sampling: {} }) });
      assert.deepEqual(refused.body.error, {
        code: -32021,
        message:
          "The upstream server needs input that only the caller can give, and the caller did not declare it",
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
      const sampled = await post(fetch, {
        name: "trigger-sampling-request",
        arguments: { prompt: "hi", maxTokens: 100 },
        _meta: capabilities({}),
      });
      assert.match(text(sampled.body), /gate reply/);
    } finally {
      await client.close();
    }
  });

  test("refuses the retry once the state's lifetime has passed, and the parked call is cancelled", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"], stateTtl: "1s" }, "http");
    sent.length = 0;
    try {
      const { requestState } = (await post(fetch, ELICIT)).body.result;
      assert.deepEqual(cancelledCalls(), []);
      // The state's lifetime ends 1 s after it was sealed; the parked call is cancelled then.
      await eventually("the parked call's cancellation", () => cancelledCalls()[0]);
      assert.deepEqual(cancelledCalls(), [["trigger-elicitation-request", "cancelled by the client"]]);
      const late = await post(fetch, { ...ELICIT, inputResponses: { "input-1": ADA }, requestState });
      assert.deepEqual(late.body.error, INVALID_STATE);
    } finally {
      await client.close();
    }
  });

  test("a parked call past maxTotalTimeout is cancelled upstream, and its retry gets -32010 timed_out", async () => {
    const { client, fetch } = front({}, {
      passDown: ["elicitation"],
      callTimeout: "1s",
      handlerTimeout: { elicitation: "1s", default: "1s" },
      maxTotalTimeout: "1s",
    }, "http");
    sent.length = 0;
    try {
      const { requestState } = (await post(fetch, ELICIT)).body.result;
      // The call's whole deadline ends 1 s after it started, while it waits for the retry.
      await eventually("the parked call's cancellation", () => cancelledCalls()[0]);
      assert.deepEqual(cancelledCalls(), [["trigger-elicitation-request", "cancelled by the client"]]);
      const late = await post(fetch, { ...ELICIT, inputResponses: { "input-1": ADA }, requestState });
      assert.deepEqual(late.body.error, {
        code: -32010,
        message: 'Upstream server "everything" is unavailable: timed out',
        data: { serverId: "everything", cause: "timed_out" },
      });
    } finally {
      await client.close();
    }
  });

  test("a 2026 caller is asked the roots a legacy server asks on its standalone stream during the call, and the server gets them", async () => {
    // server-everything over HTTP asks roots/list on its GET stream, tied to no call: the one
    // call in flight of the session the front pools for 2026 calls is the only one to ask.
    const { client, fetch } = front({}, { passDown: ["roots"] }, "http");
    const params = { name: "get-roots-list", arguments: {}, _meta: capabilities({ roots: {} }) };
    const first = await post(fetch, params);
    const asked = Object.values(first.body.result.inputRequests ?? {});
    const inputResponses = Object.fromEntries(
      Object.keys(first.body.result.inputRequests ?? {}).map((key) => [key, {
        roots: [{ uri: "file:///srv/sub", name: "sub" }],
      }]),
    );
    const second = await post(fetch, {
      ...params,
      inputResponses,
      requestState: first.body.result.requestState,
    });
    assert.deepEqual([first.body.result.resultType, asked], ["input_required", [{
      method: "roots/list",
      params: {},
    }]]);
    assert.match(
      text(second.body),
      /^Current MCP Roots \(1 total\):\n\n1\. sub\n {3}URI: file:\/\/\/srv\/sub\n/,
    );
    await client.close();
  });

  test("completes for sluice's client and the official client 2.4.0 downstream", async () => {
    const { client, fetch } = front({}, { passDown: ["elicitation"] });
    const ours = createClient({
      name: "host",
      handler: { elicitation: () => ADA as never },
      policies: [{
        server: "gate",
        transport: { url: "https://gate.example/mcp/everything" },
        era: "modern",
      }],
      fetch: (url, init) => fetch(url, init),
    });
    const official = new OfficialClient({ name: "official-host", version: "2.4.0" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    try {
      const mine = await ours.callTool("gate", "trigger-elicitation-request");
      assert.ok(text({ result: mine }).includes('"name": "Ada Lovelace"'), JSON.stringify(mine));
      official.setRequestHandler("elicitation/create", () => ADA as never);
      await official.connect(
        new StreamableHTTPClientTransport(new URL("https://gate.example/mcp/everything"), { fetch }),
      );
      const theirs = await official.callTool({ name: "trigger-elicitation-request", arguments: {} });
      assert.ok(text({ result: theirs }).includes('"email": "ada@example.com"'), JSON.stringify(theirs));
    } finally {
      await official.close();
      await ours.close();
      await client.close();
    }
  });
});
