// What the front relays to a modern caller of a modern upstream, on every runtime: the
// upstream's progress under the caller's token, its text cleaned as the client's notification
// subscribers get it, and a completion only as its schema has it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  askScriptedFront,
  modernMeta,
  modernRequest,
  SCRIPTED_FRONT_URL,
  scriptedFront,
} from "../_support/gateway-caller.ts";
import { result, sse, toolsList } from "../_support/scripted-server.ts";
import { EventReader } from "../_support/legacy-caller.ts";

/** Text a server could send to forge a terminal line: an escape, a bidi override, a line break. */
const FORGED = "50%\u001b[2J\u202Eevil\nFAKE";

describe("frontModernPost()", () => {
  test("frontModernPost() relays a modern upstream's progress to a modern caller under its token, its message cleaned, never a step back", async () => {
    const front = scriptedFront(({ body }) => {
      if (body.method === "tools/list") {
        return toolsList(body.id, [{ name: "slow", inputSchema: { type: "object" } }]);
      }
      const progressToken = (body.params?._meta as { progressToken?: unknown }).progressToken;
      const step = (progress: number) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken, progress, total: 2 },
      });
      return sse([
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken, progress: 1, total: 2, message: FORGED },
        },
        // progress MUST increase with each notification: a step back or a repeat is not relayed.
        step(0.5),
        step(1),
        step(2),
        { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", content: [] } },
      ]);
    });
    const response = await front.app.fetch(modernRequest(
      SCRIPTED_FRONT_URL,
      "tools/call",
      { name: "slow", arguments: {}, _meta: { ...modernMeta(), progressToken: "caller-1" } },
      { accept: "application/json, text/event-stream" },
    ));
    assert.deepEqual(await new EventReader(response).rest(), [
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "caller-1", progress: 1, total: 2, message: "50%[2JevilFAKE" },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "caller-1", progress: 2, total: 2 },
      },
      { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [] } },
    ]);
    await front.client.close();
  });

  test("frontModernPost() answers a completion/complete whose result breaks the schema (101 values) -32010 (the upstream broke the protocol), and relays one that fits", async () => {
    let values = Array.from({ length: 101 }, (_, i) => `v${i}`);
    const front = scriptedFront(({ body }) =>
      result(body.id, { resultType: "complete", completion: { values } })
    );
    const params = { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "n", value: "" } };
    const refused = await askScriptedFront(front, "completion/complete", params);
    values = ["a"];
    assert.deepEqual([refused, await askScriptedFront(front, "completion/complete", params)], [
      {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 1,
          error: {
            code: -32010,
            message: 'Upstream server "up" is unavailable: it broke the protocol',
            data: { serverId: "up", cause: "protocol" },
          },
        },
      },
      {
        status: 200,
        body: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", completion: { values: ["a"] } } },
      },
    ]);
    await front.client.close();
  });

  test("frontModernPost() answers server/discover with what the upstream offers as the front serves it, logging included: it relays the upstream's logs to a caller that asks", async () => {
    const front = scriptedFront(({ body }) =>
      result(body.id, {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, sampling: {} },
      })
    );
    assert.deepEqual(await askScriptedFront(front, "server/discover", {}), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { logging: {}, tools: {}, resources: {} },
          ttlMs: 0,
          cacheScope: "private",
          _meta: {
            "io.modelcontextprotocol/serverInfo": {
              name: "sluice-front",
              title: "sluice: up",
              version: "0.1.0",
            },
          },
        },
      },
    });
    await front.client.close();
  });
});
