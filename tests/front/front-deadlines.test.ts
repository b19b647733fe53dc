// The front's deadlines against a scripted upstream that never answers: an upstream leg that
// runs out of callTimeout ends the downstream call with a JSON-RPC error, and leaves no timer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import { scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { FakeTime } from "../_support/fake-time.ts";
import { eventually } from "../_support/eventually.ts";
import { toolCallHeaders } from "../_support/downstream.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

describe("the front's deadlines", () => {
  test("an upstream leg past callTimeout answers -32010 timed_out at that moment, and no timer is left", async () => {
    const time = new FakeTime();
    const upstream = scriptedServer((req) =>
      req.body.method === "tools/list" ? toolsList(req.body.id, []) : new Promise<Response>(() => {})
    );
    const client = createClient({
      name: "gate",
      fetch: upstream.fetch,
      timers: time,
      policies: [{
        server: "up",
        transport: { url: "https://up.example/mcp" },
        era: "modern",
        callTimeout: "2s",
      }],
    });
    const app = createFront({
      client,
      stateKey: "front-deadline-state-key-0123456789abcdef",
      allowedHosts: ["gate.example"],
      auth: "none",
    });
    const pending = Promise.resolve(app.fetch(
      new Request("https://gate.example/mcp/up", {
        method: "POST",
        headers: toolCallHeaders("echo"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "echo", arguments: {}, _meta: META },
        }),
      }),
    ));
    // The front reaches upstream after real work (on workerd, its state key's import).
    await eventually("the upstream tools/call", () => Promise.resolve(upstream.requests[1]));
    let answered = false;
    void pending.then(() => (answered = true));
    await time.advance(1999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual([upstream.requests.map((r) => r.body.method), answered], [
      ["tools/list", "tools/call"],
      false,
    ]);
    await time.advance(1);
    const response = await pending;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32010,
        message: 'Upstream server "up" is unavailable: timed out',
        data: { serverId: "up", cause: "timed_out" },
      },
    });
    assert.equal(time.pending, 0);
    await client.close();
  });
});
