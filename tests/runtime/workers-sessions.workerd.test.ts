// createWorker() inside workerd with a real Durable Object namespace: the test pool's main Worker
// (tests/_workerd/worker-main.ts) binds the sessions' class as SLUICE_SESSIONS, so a 2025 host's
// session runs in a Durable Object of workerd's own, in front of the real modern peer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { env } from "cloudflare:workers";
import worker, { type PoolEnv } from "../_workerd/worker-main.ts";
import { EventReader, type Fetch, LegacyCaller } from "../_support/legacy-caller.ts";

const SERVER_INFO = {
  "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" },
};

describe("createWorker() with a Durable Object namespace, inside workerd", () => {
  test("a 2025-06-18 host's session: initialize, a form passed down and answered, the result, DELETE, then 404", async () => {
    const fetch: Fetch = (url, init) =>
      worker.fetch(new Request(url, init), env as PoolEnv, { waitUntil() {} });
    const host = new LegacyCaller(fetch, "https://gate.example/mcp/modern", "2025-06-18");
    assert.deepEqual(await host.initialize({ elicitation: {} }), {
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { logging: {}, tools: {}, prompts: {}, resources: {} },
        serverInfo: { name: "sluice-front", title: "sluice: modern", version: "0.1.0" },
      },
    });
    assert.match(host.session ?? "", /^[A-Za-z0-9_-]{22}$/);
    const called = await host.post({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "ask_form" },
    });
    assert.deepEqual([called.status, called.headers.get("content-type")], [200, "text/event-stream"]);
    const events = new EventReader(called);
    const asked = await events.message();
    assert.deepEqual([asked?.id, asked?.method, (asked?.params as { message?: unknown }).message], [
      "sluice-1",
      "elicitation/create",
      "Tell us about you",
    ]);
    const answered = await host.post({
      jsonrpc: "2.0",
      id: "sluice-1",
      result: { action: "accept", content: { name: "Ada", age: 36 } },
    });
    assert.deepEqual([answered.status, await answered.text()], [202, ""]);
    assert.deepEqual(await events.rest(), [{
      jsonrpc: "2.0",
      id: 7,
      result: {
        _meta: SERVER_INFO,
        content: [{ type: "text", text: '{"name":"Ada","age":36,"subscribe":false}' }],
      },
    }]);
    const deleted = await host.close();
    assert.deepEqual([deleted.status, await deleted.text()], [200, ""]);
    const gone = await host.post({ jsonrpc: "2.0", id: 8, method: "ping" });
    assert.deepEqual([gone.status, await gone.json()], [404, {
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32001, message: "Session not found: initialize a new session" },
    }]);
  });
});
