// The modern client inside workerd, calling the real modern peer over loopback: a multi
// round-trip flow (an elicitation answered in the calling flow) completes on Web standards only.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inject } from "vitest";
import { createClient } from "../../mod.ts";

describe("createClient() inside workerd", () => {
  test("completes a form elicitation round with the real modern peer over loopback", async () => {
    const fields: string[] = [];
    const client = createClient({
      name: "workerd-test",
      handler: {
        elicitation: (_params, ctx) => {
          if (ctx.mode === "form") fields.push(...Object.keys(ctx.fields));
          return { action: "accept", content: { name: "Grace", age: 85 } };
        },
      },
      policies: [{ server: "modern", transport: { url: inject("modernPeerUrl") }, era: "modern" }],
    });
    const result = await client.callTool("modern", "ask_form");
    assert.deepEqual(JSON.parse(JSON.stringify(result)), {
      resultType: "complete",
      content: [{ type: "text", text: JSON.stringify({ name: "Grace", age: 85, subscribe: false }) }],
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" } },
    });
    assert.deepEqual(fields, ["name", "age", "subscribe", "color"]);
    assert.equal(
      typeof (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent,
      "string",
    );
    await client.close();
  });
});
