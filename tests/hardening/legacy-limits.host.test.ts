// The policy's message limits in the legacy era, against hostile servers that are real processes:
// Streamable HTTP over loopback (request streams and the standalone GET stream) and stdio. Each
// failure is exact, the connection is cleaned up, the next call succeeds, and another server of
// the same client is not disturbed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, ClientError, createClient, type Policy } from "../../src/legacy.ts";
import { HOSTILE_STDIO, type HostilePeer, startHostilePeer } from "./_hostile-peer.ts";

let peer: HostilePeer;

before(async () => {
  peer = await startHostilePeer();
});

after(async () => {
  await peer.stop();
});

function legacyClient(policies: Policy[]): Client {
  return createClient({ name: "hardening", policies });
}

/** Calls `tool` on `server` and returns the ClientError's kind and message. */
async function failure(client: Client, server: string, tool: string): Promise<[string, string]> {
  const error = await client.callTool(server, tool).then(
    () => assert.fail(`${tool} should have failed`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ClientError, String(error));
  return [error.kind, error.message];
}

const echo = { content: [{ type: "text", text: "echo legacy" }] };
const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text;

describe("legacy Streamable HTTP limits against a hostile server", () => {
  let client: Client;
  before(() => {
    client = legacyClient([
      { server: "hostile", transport: { url: `${peer.origin}/legacy` }, era: "legacy" },
      { server: "calm", transport: { url: `${peer.origin}/legacy` }, era: "legacy" },
    ]);
  });
  after(() => client.close());

  const cases: Array<[string, string, string]> = [
    ["huge-body", "3", "JSON response body is larger than 4194304 bytes (maxMessageBytes)"],
    ["endless-json", "5", "JSON response body is larger than 4194304 bytes (maxMessageBytes)"],
    ["endless-event", "7", "SSE event is larger than 4194304 bytes (maxEventBytes)"],
    [
      "deep",
      "9",
      "JSON response body: $: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
    ],
    [
      "deep-sse",
      "11",
      "SSE event data: $: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
    ],
  ];
  for (const [tool, id, reason] of cases) {
    test(`${tool}: the request fails as a protocol error, the session goes on, another server is undisturbed`, async () => {
      const [failed, calm] = await Promise.all([
        failure(client, "hostile", tool),
        client.callTool("calm", "echo"),
      ]);
      assert.deepEqual(calm, echo);
      assert.deepEqual(failed, ["protocol", `Server "hostile": Request ${id} ("tools/call"): ${reason}`]);
      if (tool.startsWith("endless")) await peer.waitFor(`${tool}: closed by the client`);
      assert.deepEqual(await client.callTool("hostile", "echo"), echo);
    });
  }
});

describe("maxInputRequests in the legacy era", () => {
  test("a -32042 with 10 000 URL elicitations fails the call before any handler runs", async () => {
    let asked = 0;
    const client = createClient({
      name: "hardening",
      handler: { elicitationModes: ["url"], elicitation: () => (asked++, { action: "accept" }) },
      policies: [{ server: "hostile", transport: { url: `${peer.origin}/legacy` }, era: "legacy" }],
    });
    try {
      assert.deepEqual(await failure(client, "hostile", "many-urls"), [
        "protocol",
        'Server "hostile" sent 10000 input requests in one round, expected at most 16 (maxInputRequests)',
      ]);
      assert.equal(asked, 0);
      assert.deepEqual(await client.callTool("hostile", "echo"), echo);
    } finally {
      await client.close();
    }
  });
});

describe("a -32042 to a client without URL elicitation", () => {
  test("fails the call naming what it needs (the server answered the call with an error, as it may), and the session goes on", async () => {
    const client = createClient({
      name: "hardening",
      policies: [{ server: "hostile", transport: { url: `${peer.origin}/legacy` }, era: "legacy" }],
    });
    try {
      assert.deepEqual(await failure(client, "hostile", "one-url"), [
        "input_handler",
        'Server "hostile" requires a URL elicitation first, which this client did not declare',
      ]);
      assert.deepEqual(await client.callTool("hostile", "echo"), echo);
    } finally {
      await client.close();
    }
  });
});

describe("the legacy standalone GET stream against a hostile server", () => {
  test("an endless event on the listen stream closes that stream; requests go on", async () => {
    const client = legacyClient([
      { server: "bad-get", transport: { url: `${peer.origin}/legacy-bad-get` }, era: "legacy" },
    ]);
    try {
      assert.deepEqual(await client.callTool("bad-get", "echo"), echo);
      await peer.waitFor("GET /legacy-bad-get: closed by the client");
      assert.deepEqual(await client.callTool("bad-get", "echo"), echo);
    } finally {
      await client.close();
    }
  });
});

describe("stdio limits against a hostile server process", () => {
  let client: Client;
  before(() => {
    client = legacyClient([
      { server: "stdio", transport: HOSTILE_STDIO, era: "legacy" },
      { server: "calm", transport: { url: `${peer.origin}/legacy` }, era: "legacy" },
    ]);
  });
  after(() => client.close());

  // Request ids: initialize 1, tools/list 2, echo 3, the hostile call 4; then a new process:
  // initialize 5, echo 6; echo 7, the hostile call 8.
  const cases: Array<[string, string, string]> = [
    ["endless-line", "4", "stdout line is larger than 4194304 bytes (maxMessageBytes)"],
    [
      "deep",
      "8",
      "stdout line: $: expected at most 64 levels of nesting (maxJsonDepth), received more than 64",
    ],
  ];
  for (const [tool, id, reason] of cases) {
    test(`${tool}: the connection fails, its call fails as transport, and the next call starts a new process`, async () => {
      const before = text(await client.callTool("stdio", "echo"));
      const [failed, calm] = await Promise.all([
        failure(client, "stdio", tool),
        client.callTool("calm", "echo"),
      ]);
      assert.deepEqual(calm, echo);
      assert.deepEqual(failed, [
        "transport",
        `Server "stdio": Request ${id} "tools/call" got no response: the connection ended (${reason})`,
      ]);
      const afterwards = text(await client.callTool("stdio", "echo"));
      assert.match(afterwards ?? "", /^pid \d+$/);
      assert.notEqual(afterwards, before);
    });
  }
});
