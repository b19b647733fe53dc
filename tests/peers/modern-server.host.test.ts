// The modern peer driven with raw fetch (no client library): what a 2026-07-28 server built on
// @modelcontextprotocol/server 2.4.0 answers, byte for byte, so client tests can rely on it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";
import { PROFILE_SCHEMA } from "../_support/profile-form.ts";
import { rawRpc, SERVER_INFO, VERSION } from "./_raw-rpc.ts";

const FORM_AND_SAMPLING = { elicitation: { form: {} }, sampling: {} };

describe("tests/peers/modern-server.ts over raw HTTP", () => {
  let peer: ModernPeer;

  before(async () => {
    peer = await startModernPeer();
  });

  after(async () => {
    await peer.stop();
  });

  const { post } = rawRpc(() => peer.url);

  const callTool = (name: string, extra: Record<string, unknown>, capabilities: object = FORM_AND_SAMPLING) =>
    post("tools/call", { name, arguments: {}, ...extra }, { name, capabilities });

  test('server/discover answers supportedVersions ["2026-07-28"] and the tasks extension', async () => {
    const sent = await post("server/discover", {});
    assert.deepEqual(sent, {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: sent.body.id,
        result: {
          supportedVersions: [VERSION],
          capabilities: {
            tools: { listChanged: true },
            resources: { listChanged: true },
            prompts: { listChanged: true },
            extensions: { "io.modelcontextprotocol/tasks": {} },
          },
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          _meta: SERVER_INFO,
        },
      },
    });
  });

  test("ask_form answers input_required with the form entry, then completes on the retry", async () => {
    const first = await callTool("ask_form", {});
    const result = first.body.result as Record<string, unknown>;
    assert.equal(typeof result.requestState, "string");
    assert.match(result.requestState as string, /^v1\.[\w-]+\.[\w-]+$/);
    assert.deepEqual(first, {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: first.body.id,
        result: {
          resultType: "input_required",
          inputRequests: {
            profile: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: "Tell us about you",
                requestedSchema: PROFILE_SCHEMA,
              },
            },
          },
          requestState: result.requestState,
          _meta: SERVER_INFO,
        },
      },
    });

    const content = { name: "Ada", age: 36, subscribe: true, color: "green" };
    const retry = await callTool("ask_form", {
      inputResponses: { profile: { action: "accept", content } },
      requestState: result.requestState,
    });
    assert.deepEqual(retry, {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: retry.body.id,
        result: {
          content: [{ type: "text", text: JSON.stringify(content) }],
          resultType: "complete",
          _meta: SERVER_INFO,
        },
      },
    });
  });

  test("ask_form refuses a tampered requestState with -32602", async () => {
    const first = await callTool("ask_form", {});
    const state = (first.body.result as { requestState: string }).requestState;
    const tampered = `${state.slice(0, -4)}${state.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    const retry = await callTool("ask_form", {
      inputResponses: { profile: { action: "accept", content: { name: "Ada" } } },
      requestState: tampered,
    });
    assert.deepEqual(retry, {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: retry.body.id,
        error: {
          code: -32602,
          message: "Invalid or expired requestState",
          data: { reason: "invalid_request_state" },
        },
      },
    });
  });

  test("undeclared gets -32021 with requiredCapabilities when roots is not declared", async () => {
    const sent = await callTool("undeclared", {});
    assert.deepEqual(sent, {
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: sent.body.id,
        error: {
          code: -32021,
          message:
            "Cannot request input 'need' (roots/list): the request's client capabilities do not declare the required capability",
          data: { requiredCapabilities: { roots: {} } },
        },
      },
    });
  });

  test("a request without Mcp-Method gets -32020", async () => {
    const sent = await post("tools/list", {}, { omitHeader: "mcp-method" });
    const reason = "the body names method tools/list but the required Mcp-Method header is absent";
    assert.deepEqual(sent, {
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: sent.body.id,
        error: {
          code: -32020,
          message: `Bad Request: the request headers and body disagree: ${reason}`,
          data: { mismatch: { header: "(missing)", body: reason } },
        },
      },
    });
  });
});
