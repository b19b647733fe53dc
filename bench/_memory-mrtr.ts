/**
 * In-flight MRTR flows for the memory bench: the edge client over a fake fetch whose server asks
 * for one form on every `tools/call`, with an elicitation handler that answers only when told.
 *
 * @module
 */
import { createClient } from "../mod.ts";
import type { MemorySubject } from "./_memory-subjects.ts";
import { PEER_FORM } from "./_peer-form.ts";

const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "fake", version: "1" } };
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

let states = 0;

/** The fake server's answer to one message, as JSON text. */
function answer(message: { id: unknown; method: string; params?: Record<string, unknown> }): string {
  const result = (value: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { resultType: "complete", ...value } });
  switch (message.method) {
    case "server/discover":
      return result({
        ttlMs: 0,
        cacheScope: "private",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        _meta: SERVER_INFO,
      });
    case "tools/list":
      return result({
        ttlMs: 0,
        cacheScope: "private",
        tools: [{ name: "ask", inputSchema: { type: "object" } }],
      });
    default:
      if (message.params?.requestState === undefined) {
        return JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            resultType: "input_required",
            inputRequests: {
              who: { method: "elicitation/create", params: { message: "Who?", requestedSchema: PEER_FORM } },
            },
            requestState: `state-${++states}-0123456789abcdef0123456789abcdef`,
          },
        });
      }
      return result({ content: [{ type: "text", text: "done" }] });
  }
}

function fakeFetch(_url: string, init: RequestInit): Promise<Response> {
  const text = answer(JSON.parse(String(init.body)));
  return Promise.resolve(
    new Response(text, { status: 200, headers: { "content-type": "application/json" } }),
  );
}

/**
 * In-flight MRTR flows: each `add` starts `count` tool calls that wait in the elicitation handler.
 *
 * @returns The subject.
 */
export async function mrtrFlows(): Promise<MemorySubject> {
  const waiting: Array<() => void> = [];
  let hold = false;
  const content = { name: "Ada", age: 36 };
  const client = createClient({
    name: "bench",
    fetch: fakeFetch,
    handler: {
      elicitation: () =>
        hold
          ? new Promise((resolve) => waiting.push(() => resolve({ action: "accept", content })))
          : { action: "accept", content },
    },
    policies: [{
      server: "fake",
      transport: { url: "https://mcp.example.com/mcp" },
      era: "modern",
      inputRateLimit: { rate: 1_000_000, per: "1s", burst: 1_000_000 },
    }],
  });
  // One whole flow first, so what every client makes once (discovery, caches) is made already.
  await client.callTool("fake", "ask");
  const calls: Promise<unknown>[] = [];
  return {
    name: "in-flight MRTR flow",
    async add(count) {
      hold = true;
      for (let i = 0; i < count; i++) calls.push(client.callTool("fake", "ask", { item: i }));
      while (waiting.length < calls.length) await tick();
    },
    async release() {
      hold = false;
      for (const answer of waiting.splice(0)) answer();
      await Promise.all(calls.splice(0));
      await tick();
    },
    message: (i) =>
      JSON.parse(answer({ id: i, method: "tools/call", params: { name: "ask", arguments: { item: i } } })),
    close: () => client.close(),
  };
}
