// The HTTP status of an upstream's error as a modern caller gets it (2026-07-28): a method the
// upstream does not implement is 404 with its -32601, as the gateway's own unknown methods are;
// an error of the call itself stays 200. (-32021 is 400: front-withheld.test.ts.) The upstream
// is scripted, so this runs the same on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { discovered, rpcError, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { answerOf, modernMeta, modernRequest } from "../_support/gateway-caller.ts";

const URL = "https://gate.example/mcp/up";

describe("an upstream error's HTTP status for a modern caller", () => {
  test("an upstream -32601 is 404, any other error of a call 200, each with the upstream's code and words", async () => {
    const upstream = scriptedServer(({ body: { id, method } }) => {
      if (method === "tools/list") return toolsList(id, [{ name: "busy", inputSchema: { type: "object" } }]);
      if (method === "completion/complete") return rpcError(id, -32601, "Method not found", undefined, 404);
      if (method === "tools/call") return rpcError(id, -32000, "Busy, try later");
      return discovered(id);
    });
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      policies: [{ server: "up", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const app = createFront({
      client,
      stateKey: "front-error-status-state-key-0123456789ab",
      allowedHosts: ["gate.example"],
      auth: "none",
    });
    const ask = async (method: string, params: Record<string, unknown>) => {
      const answer = await answerOf(
        await app.fetch(modernRequest(URL, method, { ...params, _meta: modernMeta({}) })),
      );
      return { status: answer.status, body: answer.body };
    };
    const complete = { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "b" } };
    assert.deepEqual(await ask("completion/complete", complete), {
      status: 404,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
    });
    assert.deepEqual(await ask("tools/call", { name: "busy", arguments: {} }), {
      status: 200,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "Busy, try later" } },
    });
    await client.close();
  });
});
