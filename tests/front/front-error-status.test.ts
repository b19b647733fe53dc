// The HTTP status of an upstream's error as a modern caller gets it (2026-07-28): a method the
// upstream does not implement is 404 with its -32601, as the gateway's own unknown methods are;
// an error of the call itself stays 200. (-32021 is 400: front-withheld.test.ts.) The upstream
// is scripted, so this runs the same on every runtime. And what the front answers when a part of
// it throws what nobody foresaw.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { discovered, rpcError, toolsList } from "../_support/scripted-server.ts";
import {
  answerOf,
  askScriptedFront,
  LOOPBACK,
  scriptedFront,
  toolsUpstream,
} from "../_support/gateway-caller.ts";
import { initializeMessage, legacyHeaders } from "../_support/legacy-caller.ts";
import { createClient } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";

describe("an upstream error's HTTP status for a modern caller", () => {
  test("an upstream -32601 is 404, any other error of a call 200, each with the upstream's code and words", async () => {
    const front = scriptedFront(({ body: { id, method } }) => {
      if (method === "tools/list") return toolsList(id, [{ name: "busy", inputSchema: { type: "object" } }]);
      if (method === "completion/complete") return rpcError(id, -32601, "Method not found", undefined, 404);
      if (method === "tools/call") return rpcError(id, -32000, "Busy, try later");
      return discovered(id);
    });
    const complete = { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "b" } };
    assert.deepEqual(await askScriptedFront(front, "completion/complete", complete), {
      status: 404,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
    });
    assert.deepEqual(await askScriptedFront(front, "tools/call", { name: "busy", arguments: {} }), {
      status: 200,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "Busy, try later" } },
    });
    await front.client.close();
  });

  test("an upstream's -32002 (resource not found before 2026-07-28, which forbids it) reaches a modern caller as -32602", async () => {
    const front = scriptedFront(({ body: { id, method } }) => {
      if (method === "resources/read") {
        return rpcError(id, -32002, "Resource not found", { uri: "file:///gone" });
      }
      return discovered(id);
    });
    const read = await askScriptedFront(front, "resources/read", { uri: "file:///gone" }, {
      headers: { "mcp-name": "file:///gone" },
    });
    assert.deepEqual(read, {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Resource not found", data: { uri: "file:///gone" } },
      },
    });
    await front.client.close();
  });
});

describe("a failure the front did not foresee", () => {
  test("is answered 500 -32603 in JSON-RPC, and logged for the operator with the request's method and path", async () => {
    const client = createClient({
      name: "gate",
      fetch: toolsUpstream().fetch,
      policies: [{ server: "files", transport: { url: "https://up.example/mcp" }, era: "modern" }],
    });
    const failure = new Error("session pool broke");
    const app = createFront({
      client,
      stateKey: "front-error-status-key-0123456789abcdef",
      legacySessions: () => Promise.reject(failure),
    });
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    let answer: unknown;
    try {
      answer = await answerOf(
        await app.fetch(
          new Request(`${LOOPBACK}/mcp/files`, {
            method: "POST",
            headers: legacyHeaders(),
            body: JSON.stringify(initializeMessage()),
          }),
        ),
        ["content-type"],
      );
    } finally {
      console.error = original;
      await client.close();
    }
    assert.deepEqual(answer, {
      status: 500,
      headers: { "content-type": "application/json" },
      body: {
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error: the gateway failed to answer this request" },
      },
    });
    assert.deepEqual(logged, [["sluice: the gateway failed to answer POST /mcp/files:", failure]]);
  });
});
