// The policy's message limits against a hostile modern-era server over real loopback HTTP: each
// failure is exact, the cut stream is closed, the same server answers the next call, and another
// server of the same client is not disturbed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, createClient, type Policy } from "../../mod.ts";
import { type HostilePeer, startHostilePeer } from "./_hostile-peer.ts";
import { BIG_STATE } from "./_hostile-replies.ts";

let peer: HostilePeer;
let client: Client;
let elicitations = 0;

before(async () => {
  peer = await startHostilePeer();
  const url = `${peer.origin}/modern`;
  const policy = (server: string, extra: Partial<Policy> = {}): Policy => ({
    server,
    transport: { url },
    era: "modern",
    ...extra,
  });
  client = createClient({
    name: "hardening",
    handler: {
      elicitation: () => (elicitations++, { action: "accept", content: { ok: true } }),
    },
    policies: [
      policy("hostile"),
      policy("calm"),
      policy("slow", { callTimeout: "1s" }),
      policy("tight", { maxMessageBytes: 1_048_576, maxEventBytes: 1_048_576 }),
      policy("flooding", { maxWaitingNotifications: 5 }),
    ],
  });
});

after(async () => {
  await client.close();
  await peer.stop();
});

const echo = { content: [{ type: "text", text: "echo modern" }] };

/** Calls `tool` on `server` and returns the ClientError's kind and message. */
async function failure(server: string, tool: string): Promise<[string, string]> {
  const error = await client.callTool(server, tool).then(
    () => assert.fail(`${tool} should have failed`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ClientError, String(error));
  return [error.kind, error.message];
}

/** Fails `tool` on "hostile" while "calm" answers a call made at the same time. */
async function failBesideCalm(tool: string): Promise<[string, string]> {
  const [failed, calm] = await Promise.all([failure("hostile", tool), client.callTool("calm", "echo")]);
  assert.deepEqual(calm, echo);
  return failed;
}

describe("modern era limits against a hostile server", () => {
  test("a 5 MiB body (Content-Length) fails the call as a protocol error; the next call succeeds", async () => {
    assert.deepEqual(await failBesideCalm("huge-body"), [
      "protocol",
      'Server "hostile" broke the protocol in its answer to tools/call: JSON response body is larger than 4194304 bytes (maxMessageBytes)',
    ]);
    assert.deepEqual(await client.callTool("hostile", "echo"), echo);
  });

  test("an endless JSON body is cut past maxMessageBytes and its connection closed", async () => {
    assert.deepEqual(await failBesideCalm("endless-json"), [
      "protocol",
      'Server "hostile" broke the protocol in its answer to tools/call: JSON response body is larger than 4194304 bytes (maxMessageBytes)',
    ]);
    await peer.waitFor("endless-json: closed by the client");
    assert.deepEqual(await client.callTool("hostile", "echo"), echo);
  });

  test("an SSE event that never ends is cut past maxEventBytes and its connection closed", async () => {
    assert.deepEqual(await failBesideCalm("endless-event"), [
      "protocol",
      'Server "hostile" broke the protocol in its answer to tools/call: SSE event is larger than 4194304 bytes (maxEventBytes)',
    ]);
    await peer.waitFor("endless-event: closed by the client");
    assert.deepEqual(await client.callTool("hostile", "echo"), echo);
  });

  test("an SSE stream of keep-alive comments forever ends at callTimeout and its connection is closed", async () => {
    const [failed, calm] = await Promise.all([failure("slow", "keepalive"), client.callTool("calm", "echo")]);
    assert.deepEqual(calm, echo);
    assert.deepEqual(failed, [
      "timeout",
      'Server "slow": no response to tools/call within 1000 ms (callTimeout)',
    ]);
    await peer.waitFor("keepalive: closed by the client");
    assert.deepEqual(await client.callTool("slow", "echo"), echo);
  });

  test("10 000 input requests in one round fail the call before any handler runs", async () => {
    elicitations = 0;
    assert.deepEqual(await failBesideCalm("many-inputs"), [
      "protocol",
      'Server "hostile" sent 10000 input requests in one round, expected at most 16 (maxInputRequests)',
    ]);
    assert.equal(elicitations, 0);
    assert.deepEqual(await client.callTool("hostile", "echo"), echo);
  });

  test("a 1 MB requestState under maxMessageBytes is echoed back exactly", async () => {
    elicitations = 0;
    assert.deepEqual(await client.callTool("hostile", "big-state"), {
      content: [{ type: "text", text: "requestState echoed intact (1000000 characters)" }],
    });
    assert.deepEqual([elicitations, BIG_STATE.length], [1, 1_000_000]);
  });

  test("the same requestState over a 1 MiB maxMessageBytes fails the call; the next call succeeds", async () => {
    assert.deepEqual(await failure("tight", "big-state"), [
      "protocol",
      'Server "tight" broke the protocol in its answer to tools/call: JSON response body is larger than 1048576 bytes (maxMessageBytes)',
    ]);
    assert.deepEqual(await client.callTool("tight", "echo"), echo);
  });

  test("JSON nested 100 000 levels deep, as a body or as an SSE event, is refused before it is parsed", async () => {
    const refused = "expected at most 64 levels of nesting (maxJsonDepth), received more than 64";
    assert.deepEqual(await failBesideCalm("deep"), [
      "protocol",
      `Server "hostile" broke the protocol in its answer to tools/call: JSON response body: $: ${refused}`,
    ]);
    assert.deepEqual(await failBesideCalm("deep-sse"), [
      "protocol",
      `Server "hostile" broke the protocol in its answer to tools/call: SSE event data: $: ${refused}`,
    ]);
    assert.deepEqual(await client.callTool("hostile", "echo"), echo);
  });

  test("a flood of notifications fills only its server's maxWaitingNotifications; another server's still wait", async () => {
    const entries = client.notifications();
    assert.deepEqual(await client.callTool("flooding", "flood", { count: 50 }), {
      content: [{ type: "text", text: "flooded 50" }],
    });
    assert.deepEqual(await client.callTool("calm", "flood", { count: 1 }), {
      content: [{ type: "text", text: "flooded 1" }],
    });
    const read: Array<[string, unknown]> = [];
    for (let i = 0; i < 6; i++) {
      const next = await entries.next();
      if (next.done) break;
      const entry = next.value;
      read.push([entry.serverId, entry.kind === "notification" ? entry.params.n : entry.kind]);
    }
    await entries.return?.();
    assert.deepEqual(read, [["flooding", 0], ["flooding", 1], ["flooding", 2], ["flooding", 3], [
      "flooding",
      4,
    ], ["calm", 0]]);
    assert.deepEqual(
      { flooding: client.stats().flooding, calm: client.stats().calm },
      {
        flooding: { delivered: 5, dropped: 45, rateLimited: 0 },
        calm: { delivered: 1, dropped: 0, rateLimited: 0 },
      },
    );
  });
});
