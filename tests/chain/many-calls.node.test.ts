// Many calls at once on one session wait on that session's signals without a Node warning: each
// call hears them through one listener per signal (`whenAborted`), not one each (Node warns with
// MaxListenersExceededWarning past ten listeners on an AbortSignal). The client's legacy session
// over HTTP, and a 2025 host's session through the gateway. Node only: the warning is Node's.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createGateway } from "../../src/adapters/node.ts";
import { initialized, result } from "../_support/scripted-server.ts";
import { legacySetup } from "../client/legacy/_legacy-fixtures.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";
import { KEY } from "../runtime/_entry-cases.ts";

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
