// The legacy session's handshake through the legacy entry's client, against a scripted legacy
// HTTP server: the handshake is shared by the calls waiting for it, and one of them cancelled
// fails alone. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { legacyHandshake } from "../../_support/scripted-server.ts";
import { cancelFirstOfTwo, gate } from "../_client-fixtures.ts";
import { legacySetup } from "./_legacy-fixtures.ts";

describe("LegacySession handshake", () => {
  test("a call cancelled during initialize fails alone: the other call waiting for it goes on", async () => {
    const initializeAnswered = gate();
    const { client, server } = legacySetup(async (request) => {
      if (request.body.method === "initialize") await initializeAnswered.opened;
      return legacyHandshake(request.body, "2025-11-25", "echo") ?? new Response(null, { status: 500 });
    });
    try {
      const list = (signal: AbortSignal) => client.listTools("demo", { signal });
      assert.deepEqual(
        await cancelFirstOfTwo(list, { gate: initializeAnswered, sent: () => server.requests[0] }),
        [
          ["cancelled", undefined, 'Call of initialize to server "demo" was cancelled'],
          { tools: [{ name: "echo", inputSchema: { type: "object" } }] },
        ],
      );
      // One handshake for both calls; only the call that was not cancelled.
      assert.deepEqual(server.requests.map((request) => [request.body.id, request.body.method]), [
        [1, "initialize"],
        [undefined, "notifications/initialized"],
        [2, "tools/list"],
      ]);
    } finally {
      await client.close();
    }
  });
});
