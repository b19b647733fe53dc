// The two notifications the legacy session builds inline (`notifications/cancelled` when a call's
// signal aborts it, `notifications/roots/list_changed` from `client.rootsChanged()`), as a scripted
// legacy HTTP server receives them, checked against the official schema of each legacy version.
// Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../../src/client/legacy/legacy-client.ts";
import type { Client } from "../../../src/client/client-types.ts";
import type { LegacyProtocolVersion } from "../../../src/protocol/versions.ts";
import {
  legacyHandshake,
  postsOnly,
  type ScriptedServer,
  scriptedServer,
} from "../../_support/scripted-server.ts";
import { eventually } from "../../_support/eventually.ts";
import { schemaErrors } from "../../protocol/_official-schema.ts";
import { failure, URL_ } from "../_client-fixtures.ts";

const VERSIONS: LegacyProtocolVersion[] = ["2025-11-25", "2025-06-18"];

/**
 * A legacy client with a roots handler over a scripted server answering `initialize` with
 * `version`; `tools/call` never answers. `roots: false` turns roots off in the policy.
 */
function legacySetup(
  version: LegacyProtocolVersion,
  roots: { roots?: false } = {},
): { client: Client; server: ScriptedServer } {
  const server = scriptedServer((request) => {
    if (request.body.id === undefined) return new Response(null, { status: 202 });
    const handshake = legacyHandshake(request.body, version, "slow");
    if (handshake !== undefined) return handshake;
    return new Promise<Response>(() => {});
  });
  const client = createClient({
    name: "agent",
    version: "1.2.3",
    handler: { roots: () => ({ roots: [{ uri: "file:///work" }] }) },
    policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy", ...roots }],
    fetch: postsOnly(server),
  });
  return { client, server };
}

/** `[id, method, MCP-Protocol-Version]` of each message the server received, in order. */
const sent = (server: ScriptedServer) =>
  server.requests.map((r) => [r.body.id, r.body.method, r.headers["mcp-protocol-version"]]);

describe("legacy notifications against the official schemas", () => {
  for (const version of VERSIONS) {
    test(`${version}: an aborted call sends notifications/cancelled with its id`, async () => {
      const { client, server } = legacySetup(version);
      try {
        const abort = new AbortController();
        const call = failure(client.callTool("demo", "slow", {}, { signal: abort.signal }));
        await eventually(
          "tools/call sent",
          () => server.requests.find((r) => r.body.method === "tools/call"),
        );
        abort.abort();
        assert.deepEqual(await call, [
          "cancelled",
          undefined,
          'Call of tools/call to server "demo" was cancelled',
        ]);
        const message = await eventually(
          "cancelled received",
          () => server.requests.find((r) => r.body.method === "notifications/cancelled")?.body,
        );
        assert.deepEqual(message, {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 3, reason: "cancelled by the client" },
        });
        assert.deepEqual(schemaErrors(version, "CancelledNotification", message), []);
        assert.deepEqual(sent(server), [
          [1, "initialize", undefined],
          [undefined, "notifications/initialized", version],
          [2, "tools/list", version],
          [3, "tools/call", version],
          [undefined, "notifications/cancelled", version],
        ]);
      } finally {
        await client.close();
      }
    });

    test(`${version}: rootsChanged() sends notifications/roots/list_changed`, async () => {
      const { client, server } = legacySetup(version);
      try {
        await client.listTools("demo");
        await client.rootsChanged("demo");
        const message = server.requests.at(-1)?.body;
        assert.deepEqual(message, { jsonrpc: "2.0", method: "notifications/roots/list_changed" });
        assert.deepEqual(schemaErrors(version, "RootsListChangedNotification", message), []);
        assert.deepEqual(sent(server), [
          [1, "initialize", undefined],
          [undefined, "notifications/initialized", version],
          [2, "tools/list", version],
          [undefined, "notifications/roots/list_changed", version],
        ]);
      } finally {
        await client.close();
      }
    });

    test(`${version}: rootsChanged() sends nothing to a server the client declared no roots to`, async () => {
      const { client, server } = legacySetup(version, { roots: false });
      try {
        await client.listTools("demo");
        await client.rootsChanged("demo");
        assert.deepEqual(server.requests[0]?.body.params?.capabilities, {});
        assert.deepEqual(sent(server), [
          [1, "initialize", undefined],
          [undefined, "notifications/initialized", version],
          [2, "tools/list", version],
        ]);
      } finally {
        await client.close();
      }
    });
  }
});
