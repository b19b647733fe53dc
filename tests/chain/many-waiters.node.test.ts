// Many waiters on one signal without a Node warning (MaxListenersExceededWarning, past ten
// listeners on an AbortSignal): each hears a signal through one listener per signal
// (`whenAborted`), not one each. A round of more than ten input requests waits on the call's
// signal; many calls at once wait on their session's, on the client's legacy session over HTTP
// and on a 2025 host's session through the gateway. Node only: the warning is Node's.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createClient } from "../../mod.ts";
import { createGateway } from "../../src/adapters/node.ts";
import { initialized, result, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { legacySetup } from "../client/legacy/_legacy-fixtures.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";
import { KEY } from "../runtime/_entry-cases.ts";

const ROUND = 12;
const CALLS = 25;

/** Runs `body`, then gives back the warnings Node printed meanwhile. */
async function warningsOf(body: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const hear = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", hear);
  try {
    await body();
    // A warning is emitted on the next tick.
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off("warning", hear);
  }
  return warnings;
}

describe("a round of many input requests", () => {
  test("12 roots requests in one round are answered, and Node prints no warning", async () => {
    const upstream = scriptedServer((request) => {
      const { id } = request.body;
      if (request.body.method === "tools/list") return toolsList(id, []);
      const answers = request.body.params?.inputResponses as Record<string, unknown> | undefined;
      if (answers !== undefined) {
        return result(id, {
          resultType: "complete",
          content: [{ type: "text", text: String(Object.keys(answers).length) }],
        });
      }
      const inputRequests = Object.fromEntries(
        Array.from({ length: ROUND }, (_, index) => [`r${index}`, { method: "roots/list", params: {} }]),
      );
      return result(id, { resultType: "input_required", inputRequests, requestState: "s" });
    });
    const client = createClient({
      name: "agent",
      fetch: upstream.fetch,
      handler: {
        roots: async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { roots: [] };
        },
      },
      policies: [{
        server: "many",
        transport: { url: "https://mcp.example.com/mcp" },
        era: "modern",
        maxInputRequests: ROUND,
        inputRateLimit: { rate: 100, per: "1s", burst: 100 },
      }],
    });
    try {
      let content: unknown;
      const warnings = await warningsOf(async () => {
        content = (await client.callTool("many", "ask_many")).content;
      });
      assert.deepEqual([content, warnings], [[{ type: "text", text: String(ROUND) }], []]);
    } finally {
      await client.close();
    }
  });
});

describe("many calls at once on one session", () => {
  let peer: ModernPeer;
  before(async () => {
    peer = await startModernPeer();
  });
  after(async () => {
    await peer?.stop();
  });

  test(`${CALLS} legacy calls on one HTTP session are answered, and Node prints no warning`, async () => {
    const { client } = legacySetup((request) =>
      request.body.method === "initialize"
        ? initialized(request.body.id, {})
        : result(request.body.id, { content: [{ type: "text", text: "done" }] })
    );
    let answers: unknown[] = [];
    try {
      const warnings = await warningsOf(async () => {
        answers = await Promise.all(Array.from({ length: CALLS }, () => client.callTool("demo", "t", {})));
      });
      assert.deepEqual(
        [answers, warnings],
        [Array.from({ length: CALLS }, () => ({ content: [{ type: "text", text: "done" }] })), []],
      );
    } finally {
      await client.close();
    }
  });

  test(`a 2025 host's ${CALLS} requests in flight at once on its gateway session are answered, and Node prints no warning`, async () => {
    const gateway = createGateway({
      stateKey: KEY,
      playground: false,
      decisions: false,
      policies: [{ server: "modern", transport: { url: peer.url }, era: "modern" }],
    });
    const caller = new LegacyCaller(
      async (url, init) => await gateway.fetch(new Request(url, init)),
      "http://127.0.0.1/mcp/modern",
    );
    let answers: unknown[] = [];
    try {
      await caller.initialize();
      const warnings = await warningsOf(async () => {
        answers = await Promise.all(
          Array.from(
            { length: CALLS },
            (_, index) => caller.request(index + 1, "tools/call", { name: "add", arguments: { a: index } }),
          ),
        );
      });
      assert.deepEqual(
        [answers.map((answer) => (answer as { result: { content: unknown } }).result.content), warnings],
        [Array.from({ length: CALLS }, (_, index) => [{ type: "text", text: String(index) }]), []],
      );
    } finally {
      await gateway.client.close();
    }
  });
});
