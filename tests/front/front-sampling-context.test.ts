// A sampling request passed down to the gateway's caller asks for context (`includeContext`
// "thisServer" or "allServers") only of a caller that declared sampling.context: toward its caller
// the gateway is the server, and 2025-11-25 and 2026-07-28 say a server SHOULD use those values
// only then. A caller of those versions that did not is sent "none"; a 2025-06-18 host, whose
// version has no sampling.context to declare, gets the request as the server sent it. Through a
// 2026 caller of a modern and of a legacy upstream, and a 2025 host. Runs on every runtime,
// against scripted upstreams.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../../src/client/legacy/legacy-client.ts";
import { createFront } from "../../src/front/create-front.ts";
import { answerOf, LOOPBACK, modernMeta, modernRequest } from "../_support/gateway-caller.ts";
import { legacyAskingServer, result, scriptedServer, toolsList } from "../_support/scripted-server.ts";
import { EventReader, LegacyCaller } from "../_support/legacy-caller.ts";

/** The sampling request the upstreams ask: context of the server that asks. */
const ASKED = {
  messages: [{ role: "user", content: { type: "text", text: "Sum it up" } }],
  maxTokens: 100,
  includeContext: "thisServer",
};

const ANSWER = { role: "assistant", content: { type: "text", text: "done" }, model: "m" };

/** What a caller without sampling.context gets asked, and what the gateway says it changed. */
const NO_CONTEXT = { ...ASKED, includeContext: "none" };
const CHANGED = { "sluice/changes": [{ field: "includeContext", from: "thisServer", to: "none" }] };

/**
 * A front whose policies pass sampling down and allow context, over a modern upstream that asks
 * {@linkcode ASKED} in a call's first round ("modern"), and a 2025-11-25 upstream that asks it
 * while the call is open ("legacy").
 */
function gateway() {
  const modern = scriptedServer((request) => {
    const { id, method, params = {} } = request.body;
    if (method === "tools/list") {
      return toolsList(id, [{ name: "summarize", inputSchema: { type: "object" } }]);
    }
    if (method === "server/discover") {
      return result(id, {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
      });
    }
    return result(
      id,
      params.inputResponses === undefined
        ? {
          resultType: "input_required",
          inputRequests: { summary: { method: "sampling/createMessage", params: ASKED } },
          requestState: "upstream-state",
        }
        : {
          resultType: "complete",
          content: [{ type: "text", text: JSON.stringify(params.inputResponses) }],
        },
    );
  });
  const legacy = legacyAskingServer("2025-11-25", [
    { jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: ASKED },
  ]);
  const passDown = { passDown: ["sampling" as const], sampling: { context: true } };
  const client = createClient({
    name: "gate",
    fetch: (url, init) =>
      url.startsWith("https://modern.example/") ? modern.fetch(url, init) : legacy.fetch(url, init),
    policies: [
      { server: "modern", transport: { url: "https://modern.example/mcp" }, era: "modern", ...passDown },
      { server: "legacy", transport: { url: "https://legacy.example/mcp" }, era: "legacy", ...passDown },
    ],
  });
  const app = createFront({ client, stateKey: "front-sampling-context-key-0123456789abcdef" });
  /** A 2026 caller's call declaring `capabilities`, and its answer's body. */
  const call = async (server: string, capabilities: Record<string, unknown>, retry: object = {}) =>
    (await answerOf(
      await app.request(
        modernRequest(`${LOOPBACK}/mcp/${server}`, "tools/call", {
          name: "summarize",
          arguments: {},
          _meta: modernMeta(capabilities),
          ...retry,
        }),
      ),
    )).body as { result: { inputRequests: Record<string, unknown>; requestState: string } };
  /** What a 2025 host of `version` declaring `capabilities` is asked on its call's stream. */
  const asked = async (version: string, capabilities: Record<string, unknown>) => {
    const host = new LegacyCaller(
      async (url, init) => await app.fetch(new Request(url, init)),
      `${LOOPBACK}/mcp/modern`,
      version,
    );
    await host.initialize(capabilities);
    const events = new EventReader(
      await host.post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "summarize" } }),
    );
    const request = await events.message();
    await events.drop();
    return request;
  };
  return { client, modern, call, asked };
}

describe("includeContext passed down to the gateway's caller", () => {
  test("a 2026 caller of a modern upstream without sampling.context is asked for none, and told what changed; one that declared it is asked for the server's context; the answer goes upstream as given", async () => {
    const { client, modern, call } = gateway();
    try {
      const bare = await call("modern", { sampling: {} });
      assert.deepEqual(bare.result.inputRequests, {
        summary: { method: "sampling/createMessage", params: { ...NO_CONTEXT, _meta: CHANGED } },
      });
      const declared = await call("modern", { sampling: { context: {} } });
      assert.deepEqual(declared.result.inputRequests, {
        summary: { method: "sampling/createMessage", params: ASKED },
      });
      await call("modern", { sampling: {} }, {
        inputResponses: { summary: ANSWER },
        requestState: bare.result.requestState,
      });
      assert.deepEqual(modern.requests.at(-1)?.body.params?.inputResponses, { summary: ANSWER });
    } finally {
      await client.close();
    }
  });

  test("a 2026 caller of a legacy upstream without sampling.context is asked for none, and told what changed", async () => {
    const { client, call } = gateway();
    try {
      const bare = await call("legacy", { sampling: {} });
      assert.deepEqual(bare.result.inputRequests, {
        "input-1": { method: "sampling/createMessage", params: { ...NO_CONTEXT, _meta: CHANGED } },
      });
    } finally {
      await client.close();
    }
  });

  test("a 2025-11-25 host is asked for none unless it declared sampling.context; a 2025-06-18 host is asked as the server asked", async () => {
    const { client, asked } = gateway();
    try {
      const request = (params: object) => ({
        jsonrpc: "2.0",
        id: "sluice-1",
        method: "sampling/createMessage",
        params,
      });
      assert.deepEqual(await asked("2025-11-25", { sampling: {} }), request(NO_CONTEXT));
      assert.deepEqual(await asked("2025-11-25", { sampling: { context: {} } }), request(ASKED));
      assert.deepEqual(await asked("2025-06-18", { sampling: {} }), request(ASKED));
    } finally {
      await client.close();
    }
  });
});
