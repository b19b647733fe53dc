// The answers sluice sends to what a server asks (sampling, elicitation, roots), as the server
// receives them, checked against the official schema of each version: modern, the retry's
// `inputResponses`; legacy, the JSON-RPC responses to the server's requests on the call's stream.
// Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/legacy/legacy-client.ts";
import type { Handler } from "../../src/handler/handler.ts";
import type { LegacyProtocolVersion } from "../../src/protocol/versions.ts";
import { legacyAskingServer, result } from "../_support/scripted-server.ts";
import { schemaErrors } from "../protocol/_official-schema.ts";
import { plain, setup, URL_ } from "./_client-fixtures.ts";

/** A handler answering each kind with everything its answer may carry, `_meta` included. */
const handler: Handler = {
  sampling: () => ({
    role: "assistant",
    content: { type: "text", text: "LGTM" },
    model: "m",
    stopReason: "endTurn",
    _meta: { t: 1 },
  }),
  elicitation: () => ({ action: "accept", content: { name: "Ada", age: 36, ok: true }, _meta: { t: 1 } }),
  roots: () => ({ roots: [{ uri: "file:///srv/app", name: "app" }, { uri: "file:///tmp" }] }),
};

const FORM = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" }, ok: { type: "boolean" } },
  required: ["name"],
};

/** The three requests, by method, with the params every version accepts. */
const ASKED = {
  sampling: {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "Review?" } }], maxTokens: 64 },
  },
  form: { method: "elicitation/create", params: { message: "Who?", requestedSchema: FORM } },
  roots: { method: "roots/list" },
} as const;

/** What the handler's answers become on the wire, in every version. */
const ANSWERS = {
  sampling: {
    role: "assistant",
    content: { type: "text", text: "LGTM" },
    model: "m",
    stopReason: "endTurn",
    _meta: { t: 1 },
  },
  form: { action: "accept", content: { name: "Ada", age: 36, ok: true } },
  roots: { roots: [{ uri: "file:///srv/app", name: "app" }, { uri: "file:///tmp" }] },
};

const RESULT_DEFINITION = {
  sampling: "CreateMessageResult",
  form: "ElicitResult",
  roots: "ListRootsResult",
} as const;

/** A 2026-07-28 sampling answer may be a list of blocks, tool uses included (of a tool offered). */
const WITH_TOOLS = {
  ...ASKED,
  sampling: {
    ...ASKED.sampling,
    params: { ...ASKED.sampling.params, tools: [{ name: "lookup", inputSchema: { type: "object" } }] },
  },
};
const TOOL_USE = {
  role: "assistant",
  content: [{ type: "tool_use", id: "c-1", name: "lookup", input: { q: "x" } }],
  model: "m",
  stopReason: "toolUse",
} as const;

type Key = keyof typeof ASKED;
const KEYS = Object.keys(ASKED) as Key[];

describe("input answers against the official schemas", () => {
  test("2026-07-28: the retry carries inputResponses valid as a CallToolRequest", async () => {
    const { client, server } = setup((request, index) => {
      if (request.body.method === "tools/list") {
        return result(request.body.id, {
          resultType: "complete",
          tools: [{ name: "deploy", inputSchema: { type: "object" } }],
        });
      }
      return index === 1
        ? result(request.body.id, {
          resultType: "input_required",
          inputRequests: WITH_TOOLS,
          requestState: "s",
        })
        : result(request.body.id, { resultType: "complete", content: [] });
    }, { handler: { ...handler, sampling: () => TOOL_USE }, policy: { sampling: { tools: true } } });
    try {
      await client.callTool("demo", "deploy", {});
      const retry = plain(server.requests[2]?.body);
      assert.deepEqual(retry?.params?.inputResponses, { ...ANSWERS, sampling: TOOL_USE });
      const responses = retry?.params?.inputResponses as Record<Key, unknown>;
      assert.deepEqual([
        ...schemaErrors("2026-07-28", "CallToolRequest", retry),
        ...schemaErrors("2026-07-28", "InputResponses", responses),
        ...KEYS.flatMap((key) => schemaErrors("2026-07-28", RESULT_DEFINITION[key], responses[key])),
      ], []);
    } finally {
      await client.close();
    }
  });

  for (const version of ["2025-11-25", "2025-06-18"] as LegacyProtocolVersion[]) {
    test(`${version}: each answer is a JSON-RPC response valid for its request`, async () => {
      const { responses, requests } = await legacyAnswers(version);
      assert.deepEqual(responses, KEYS.map((key) => ({ jsonrpc: "2.0", id: key, result: ANSWERS[key] })));
      const envelope = version === "2025-06-18" ? "JSONRPCResponse" : "JSONRPCResultResponse";
      assert.deepEqual([
        ...requests.flatMap((request) => schemaErrors(version, "ServerRequest", request)),
        ...responses.flatMap((response, index) => [
          ...schemaErrors(version, envelope, response),
          ...schemaErrors(version, RESULT_DEFINITION[KEYS[index]!], response.result),
        ]),
      ], []);
    });
  }
});

/**
 * Runs one legacy call whose stream asks the three requests (ids are their keys) and ends with the
 * call's result once all three are answered; returns the requests and the answers, in key order.
 */
async function legacyAnswers(version: LegacyProtocolVersion): Promise<{
  requests: unknown[];
  responses: { jsonrpc: string; id: Key; result: unknown }[];
}> {
  const requests = KEYS.map((key) => ({ jsonrpc: "2.0", id: key, ...ASKED[key] }));
  const server = legacyAskingServer(version, requests);
  const client = createClient({
    name: "agent",
    version: "1.2.3",
    handler,
    policies: [{ server: "demo", transport: { url: URL_ }, era: "legacy" }],
    fetch: server.fetch,
  });
  try {
    await client.callTool("demo", "ask", {});
  } finally {
    await client.close();
  }
  const responses = server.answers() as { jsonrpc: string; id: Key; result: unknown }[];
  responses.sort((a, b) => KEYS.indexOf(a.id) - KEYS.indexOf(b.id));
  return { requests, responses };
}
