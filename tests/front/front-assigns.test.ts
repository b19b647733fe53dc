// The client's `assigns` reach its handlers behind the front as in its own calls: for a 2026
// caller of a modern and of a legacy upstream, and for a 2025 host. Runs on every runtime, against
// scripted upstreams.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/legacy/legacy-client.ts";
import type { Handler } from "../../src/handler/handler.ts";
import { createFront } from "../../src/front/create-front.ts";
import { LOOPBACK, modernMeta, modernRequest, toolsUpstream } from "../_support/gateway-caller.ts";
import { legacyAskingServer } from "../_support/scripted-server.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";

const ASSIGNS = { tenant: "acme" };

describe("the front's handlers and the client's assigns", () => {
  test("a handler answering for a 2026 caller of a modern and of a legacy upstream, and for a 2025 host, gets the client's assigns as ctx.assigns", async () => {
    const seen: [string, unknown][] = [];
    const handler: Handler = {
      roots: (ctx) => (seen.push([`roots ${ctx.serverId}`, ctx.assigns]), { roots: [] }),
      elicitationModes: ["form"],
      elicitation: (_params, ctx) => (
        seen.push([`elicitation ${ctx.serverId}`, ctx.assigns]),
          { action: "accept", content: { name: "Ada" } }
      ),
    };
    const modern = toolsUpstream();
    const legacy = legacyAskingServer("2025-11-25", [{ jsonrpc: "2.0", id: 1, method: "roots/list" }]);
    const client = createClient({
      name: "gate",
      assigns: ASSIGNS,
      handler,
      fetch: (url, init) =>
        url.startsWith("https://modern.example/") ? modern.fetch(url, init) : legacy.fetch(url, init),
      policies: [
        { server: "modern", transport: { url: "https://modern.example/mcp" }, era: "modern" },
        { server: "legacy", transport: { url: "https://legacy.example/mcp" }, era: "legacy" },
      ],
    });
    const app = createFront({ client, stateKey: "front-assigns-state-key-0123456789abcdef" });
    const call = (server: string, name: string) =>
      app.request(
        modernRequest(`${LOOPBACK}/mcp/${server}`, "tools/call", {
          name,
          arguments: {},
          _meta: modernMeta(),
        }),
      );
    try {
      await (await call("modern", "ask")).text();
      await (await call("legacy", "ask")).text();
      const host = new LegacyCaller(
        async (url, init) => await app.fetch(new Request(url, init)),
        `${LOOPBACK}/mcp/modern`,
      );
      await host.initialize({});
      await (await host.post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask" } }))
        .text();
    } finally {
      await client.close();
    }
    assert.deepEqual(seen, [
      ["roots modern", ASSIGNS],
      ["elicitation modern", ASSIGNS],
      ["roots legacy", ASSIGNS],
      ["roots modern", ASSIGNS],
      ["elicitation modern", ASSIGNS],
    ]);
  });
});
