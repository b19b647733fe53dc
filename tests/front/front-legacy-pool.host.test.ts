// The front's pool of legacy upstream sessions for 2026-07-28 callers (FrontUpstreams): the
// official server-everything 2026.8.31 over stdio, where a server's request ties to a call only
// while that call is the one in flight. Each call leases a session (its own process) for its
// whole life, parked rounds included, so one caller's abandoned call or a second call at once
// never takes another's elicitation; a principal has at most MAX_CALLS_PER_CALLER calls at once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toolCallHeaders } from "../_support/downstream.ts";
import { createClient, type Policy } from "../../src/legacy.ts";
import { createFront } from "../../src/front/create-front.ts";
import { MAX_CALLS_PER_CALLER } from "../../src/front/front-upstreams.ts";
import { EVERYTHING_FORM_FIELDS, everythingStdioCommand } from "../_support/everything.ts";
import { EVERYTHING_FORM_DEFAULTS } from "../_support/everything-form.ts";
import { FakeTime } from "../_support/fake-time.ts";

const KEY = "front-legacy-pool-test-key-0123456789abcdef";
/** Bearer secrets of two callers (random, as the gateway requires). */
const SECRETS = { alice: randomSecret(), bob: randomSecret() };

function randomSecret(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

/** A front before server-everything over stdio that passes elicitation down; with `auth`, two callers. */
function front(auth = false, policy: Partial<Policy> = {}, time?: FakeTime) {
  const client = createClient({
    name: "gate",
    ...(time === undefined ? {} : { timers: time, clock: time }),
    policies: [{
      server: "everything",
      transport: everythingStdioCommand(),
      era: "legacy",
      passDown: ["elicitation"],
      ...policy,
    }],
  });
  const app = createFront({
    client,
    stateKey: KEY,
    ...(auth
      ? {
        auth: {
          bearer: [{ secret: SECRETS.alice, subject: "alice" }, { secret: SECRETS.bob, subject: "bob" }],
        },
      }
      : {}),
  });
  return { client, app };
}

type Front = ReturnType<typeof front>;

const ELICIT = {
  name: "trigger-elicitation-request",
  arguments: {},
  _meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  },
};

/** One raw modern tools/call of the elicitation tool; with `answer`, the retry that answers `input-1`. */
async function call(
  { app }: Front,
  id: number,
  options: { readonly as?: keyof typeof SECRETS; readonly answer?: { name: string; state: string } } = {},
) {
  const params = options.answer === undefined ? ELICIT : {
    ...ELICIT,
    inputResponses: { "input-1": { action: "accept", content: { name: options.answer.name, check: true } } },
    requestState: options.answer.state,
  };
  const headers: Record<string, string> = toolCallHeaders(ELICIT.name);
  if (options.as !== undefined) headers.authorization = `Bearer ${SECRETS[options.as]}`;
  const response = await app.fetch(
    new Request("http://localhost/mcp/everything", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
    }),
  );
  // deno-lint-ignore no-explicit-any -- the tests walk arbitrary JSON results
  return { status: response.status, body: await response.json() as Record<string, any> };
}

/** The names of the tools a raw modern tools/list gets. */
async function toolNames({ app }: Front, id: number): Promise<unknown> {
  const response = await app.fetch(
    new Request("http://localhost/mcp/everything", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: ELICIT._meta } }),
    }),
  );
  const body = await response.json() as { result?: { tools?: { name: string }[] } };
  return body.result?.tools?.map((tool) => tool.name).filter((name) =>
    name.startsWith("trigger-elicitation")
  );
}

/** Checks that a first round came back as this call's own input_required; returns its state. */
function inputRequired(first: Awaited<ReturnType<typeof call>>, id: number): string {
  const { result } = first.body;
  assert.deepEqual(
    [first.status, first.body.id, result?.resultType, Object.keys(result?.inputRequests ?? {})],
    [200, id, "input_required", ["input-1"]],
    JSON.stringify(first.body),
  );
  const entry = result.inputRequests["input-1"];
  assert.deepEqual(
    [entry.method, entry.params.message, Object.keys(entry.params.requestedSchema.properties)],
    ["elicitation/create", "Please provide inputs for the following fields:", EVERYTHING_FORM_FIELDS],
  );
  return result.requestState;
}

/** The whole answer server-everything gives to an accepted form with this name. */
function completed(id: number, name: string) {
  const content = { name, check: true, ...EVERYTHING_FORM_DEFAULTS };
  return {
    status: 200,
    body: {
      jsonrpc: "2.0",
      id,
      result: {
        content: [
          { type: "text", text: "✅ User provided the requested information!" },
          {
            type: "text",
            text:
              `User inputs:\n- Name: ${name}\n- Agreed to terms: true\n- Favorite Integer: 42\n- Favorite Number: 3.14`,
          },
          { type: "text", text: `\nRaw result: ${JSON.stringify({ action: "accept", content }, null, 2)}` },
        ],
        resultType: "complete",
      },
    },
  };
}

describe("FrontUpstreams: legacy sessions of modern callers (server-everything over stdio)", () => {
  test("forModernCallers() gives a second caller its own elicitation while another caller's call stays parked, abandoned", async () => {
    const gate = front();
    try {
      // Caller A: its call parks waiting for an answer A never sends.
      inputRequired(await call(gate, 1), 1);
      // A list does not wait behind the parked call (it may share its session).
      assert.deepEqual(await toolNames(gate, 9), ["trigger-elicitation-request"]);
      const state = inputRequired(await call(gate, 2), 2);
      assert.deepEqual(
        await call(gate, 3, { answer: { name: "Grace Hopper", state } }),
        completed(3, "Grace Hopper"),
      );
    } finally {
      await gate.client.close();
    }
  });

  test("forModernCallers() gives two calls at once each its own elicitation, and each completes with its own answer", async () => {
    const gate = front();
    try {
      const [ada, grace] = await Promise.all([call(gate, 1), call(gate, 2)]);
      const adaState = inputRequired(ada, 1);
      const graceState = inputRequired(grace, 2);
      const answers = await Promise.all([
        call(gate, 3, { answer: { name: "Grace Hopper", state: graceState } }),
        call(gate, 4, { answer: { name: "Ada Lovelace", state: adaState } }),
      ]);
      assert.deepEqual(answers, [completed(3, "Grace Hopper"), completed(4, "Ada Lovelace")]);
    } finally {
      await gate.client.close();
    }
  });

  test(`forModernCallers() takes a principal's call past ${MAX_CALLS_PER_CALLER} in progress by abandoning its call that waited longest for input; another principal's are not touched`, async () => {
    const gate = front(true);
    try {
      // One after the other, so that the first waits longest.
      const states: string[] = [];
      for (const id of [1, 2, 3, 4]) states.push(inputRequired(await call(gate, id, { as: "alice" }), id));
      const bobState = inputRequired(await call(gate, 6, { as: "bob" }), 6);
      // A 2026 caller may leave a call waiting for input, and cannot cancel it: the fifth is taken.
      inputRequired(await call(gate, 5, { as: "alice" }), 5);
      assert.deepEqual(
        await call(gate, 7, { as: "alice", answer: { name: "Alice", state: states[0] ?? "" } }),
        {
          status: 200,
          body: {
            jsonrpc: "2.0",
            id: 7,
            error: {
              code: -32602,
              message:
                "Invalid or expired requestState: its call is not held by this gateway instance (it has ended, or another instance holds it: a legacy upstream's call stays on the instance that started it)",
            },
          },
        },
      );
      assert.deepEqual(
        [
          await call(gate, 8, { as: "alice", answer: { name: "Alice", state: states[1] ?? "" } }),
          await call(gate, 9, { as: "bob", answer: { name: "Bob", state: bobState } }),
        ],
        [completed(8, "Alice"), completed(9, "Bob")],
      );
    } finally {
      await gate.client.close();
    }
  });

  test("forModernCallers() refuses a new session while all maxSessions are in use, and makes room by closing an idle one", async () => {
    const gate = front(true, { maxSessions: 1 });
    try {
      const aliceState = inputRequired(await call(gate, 1, { as: "alice" }), 1);
      assert.deepEqual(await call(gate, 2, { as: "bob" }), {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 2,
          error: {
            code: -32000,
            message:
              'Too many sessions: all upstream sessions for 2026-07-28 callers of server "everything" are in use (maxSessions 1 in its policy); try again later',
          },
        },
      });
      assert.deepEqual(
        await call(gate, 3, { as: "alice", answer: { name: "Alice", state: aliceState } }),
        completed(3, "Alice"),
      );
      // Alice's session is idle now: it is closed to make room for Bob's own.
      const bobState = inputRequired(await call(gate, 4, { as: "bob" }), 4);
      assert.deepEqual(
        await call(gate, 5, { as: "bob", answer: { name: "Bob", state: bobState } }),
        completed(5, "Bob"),
      );
    } finally {
      await gate.client.close();
    }
  });

  test("forModernCallers() reuses an idle session, and closes one unused for sessionIdleTimeout", async () => {
    const time = new FakeTime(Date.now());
    const gate = front(false, { sessionIdleTimeout: "1m" }, time);
    // server-everything's logging toggle is the state of its process: "Stopped" shows the same one.
    const toggle = async (id: number) => {
      const response = await gate.app.fetch(
        new Request("http://localhost/mcp/everything", {
          method: "POST",
          headers: toolCallHeaders("toggle-simulated-logging"),
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "toggle-simulated-logging", arguments: {}, _meta: ELICIT._meta },
          }),
        }),
      );
      const body = await response.json() as { result?: { content?: { text: string }[] } };
      return body.result?.content?.map((part) => part.text.split(" for session")[0]);
    };
    try {
      assert.deepEqual(await toggle(1), ["Started simulated, random-leveled logging"]);
      await time.advance(30_000);
      assert.deepEqual(await toggle(2), ["Stopped simulated logging"]);
      assert.deepEqual(await toggle(3), ["Started simulated, random-leveled logging"]);
      await time.advance(2 * 60_000);
      // A new process: its logging is off, so the toggle starts it (the old one would stop it).
      assert.deepEqual(await toggle(4), ["Started simulated, random-leveled logging"]);
    } finally {
      await gate.client.close();
    }
  });
});
