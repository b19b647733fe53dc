/**
 * The official SDK v2 as a hand-written gateway, as its own process for the front bench: an
 * `McpServer` (`@modelcontextprotocol/server` 2.4.0, `createMcpHandler`, 2026-07-28 only) whose
 * tools `echo` and `ask_form` call the same tools upstream with one `Client`
 * (`@modelcontextprotocol/client` 2.4.0) connected to the fast peer whose URL is the first
 * argument. The client answers the peer's form itself, as sluice's front does with its handler,
 * so a caller sees one round. Served by `@hono/node-server`, as sluice's `serve()` is, and
 * upstream it uses `createNodeFetch()`, the fetch sluice's front uses: the same HTTP code on
 * both sides of both gateways, so what differs is the gateway.
 *
 * Prints `OFFICIAL_URL <url>` once listening; exits when stdin ends.
 *
 * @module
 */
import process from "node:process";
import { serve } from "@hono/node-server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createMcpHandler,
  fromJsonSchema,
  type JsonSchemaType,
  McpServer,
} from "@modelcontextprotocol/server";
import { createNodeFetch } from "../src/transport/node-fetch.ts";

const upstream = process.argv[2];
if (upstream === undefined) throw new Error("official-gateway: pass the upstream URL");
const fetch = createNodeFetch();
const client = new Client({ name: "official-gateway", version: "1" }, {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: "2026-07-28" } },
  inputRequired: { maxRounds: 16 },
});
client.setRequestHandler(
  "elicitation/create",
  () => ({ action: "accept", content: { name: "Ada", age: 36 } }),
);
await client.connect(
  new StreamableHTTPClientTransport(new URL(upstream), {
    fetch: (url: string | URL, init?: RequestInit) => fetch(String(url), init ?? {}),
  }),
);

const ECHO_INPUT = fromJsonSchema<{ text?: string }>(
  { type: "object", properties: { text: { type: "string" } } } as JsonSchemaType,
);

const mcp = createMcpHandler(() => {
  const server = new McpServer({ name: "official-gateway", version: "1" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { inputSchema: ECHO_INPUT }, async (args) => {
    return await client.callTool({ name: "echo", arguments: args }) as never;
  });
  server.registerTool("ask_form", {}, async () => {
    return await client.callTool({ name: "ask_form", arguments: {} }) as never;
  });
  return server;
}, { legacy: "reject" });

// As sluice's serve() does: the process's own Request and Response stay in place.
const listening = serve(
  { fetch: (request) => mcp.fetch(request), port: 0, hostname: "127.0.0.1", overrideGlobalObjects: false },
  (info) => console.log(`OFFICIAL_URL http://127.0.0.1:${info.port}/mcp`),
);
process.stdin.on("end", () => listening.close(() => process.exit(0)));
process.stdin.resume();
