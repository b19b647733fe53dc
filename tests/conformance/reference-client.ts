/**
 * The official `@modelcontextprotocol/client` 2.4.0 as a conformance client, to prove the runner
 * (`scripts/conformance.ts`) works and to record the reference SDK's results. Run by the suite as
 * `tsx tests/conformance/reference-client.ts <server-url>`; it reads `MCP_CONFORMANCE_SCENARIO`,
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT`, does the scenario's actions and
 * exits 0, or 1 on the first error (errors are not hidden: the SDK's behaviour is what is measured).
 *
 * @module
 */
import process from "node:process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const MODERN = "2026-07-28";
type Action = (client: Client, context: Record<string, unknown>) => Promise<void>;

/** Connects with the era the suite asks for: modern pinned to 2026-07-28, else the 2025 handshake. */
async function connect(url: string, version: string | undefined): Promise<Client> {
  const client = new Client({ name: "reference-client", version: "2.4.0" }, {
    capabilities: { elicitation: { form: { applyDefaults: true } }, sampling: {}, roots: {} },
    ...version === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  });
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: {} }));
  client.setRequestHandler("sampling/createMessage", () => ({
    role: "assistant",
    content: { type: "text", text: "reference" },
    model: "reference-model",
  }));
  client.setRequestHandler("roots/list", () => ({ roots: [] }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function callEveryTool(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
}

const actions: Record<string, Action> = {
  initialize: async () => {},
  tools_call: async (client) => {
    await client.listTools();
    await client.callTool({ name: "add_numbers", arguments: { a: 5, b: 3 } });
  },
  "elicitation-sep1034-client-defaults": async (client) => {
    await client.callTool({ name: "test_client_elicitation_defaults", arguments: {} });
  },
  "sse-retry": async (client) => {
    await client.listTools();
    await client.callTool({ name: "test_reconnection", arguments: {} });
  },
  "request-metadata": async (client) => {
    await client.listTools();
  },
  "sep-2322-client-request-state": async (client) => {
    await client.listTools();
    let unrelated: Promise<unknown> | undefined;
    // Between round 1 and the retry of test_mrtr_echo_state: an unrelated call (isolation check).
    client.setRequestHandler("elicitation/create", async () => {
      unrelated ??= client.callTool({ name: "test_mrtr_unrelated", arguments: {} });
      await unrelated;
      return { action: "accept", content: { confirmed: true } };
    });
    await client.callTool({ name: "test_mrtr_echo_state", arguments: {} });
    await client.callTool({ name: "test_mrtr_no_state", arguments: {} });
    await client.callTool({ name: "test_mrtr_no_result_type", arguments: {} });
  },
  "http-standard-headers": async (client) => {
    await callEveryTool(client);
    const capabilities = client.getServerCapabilities() ?? {};
    if (capabilities.resources !== undefined) {
      for (const resource of (await client.listResources()).resources) {
        await client.readResource({ uri: resource.uri });
      }
    }
    if (capabilities.prompts !== undefined) {
      for (const prompt of (await client.listPrompts()).prompts) {
        await client.getPrompt({ name: prompt.name });
      }
    }
  },
  "http-custom-headers": async (client, context) => {
    await client.listTools();
    const calls = (context.toolCalls ?? []) as { name: string; arguments: Record<string, unknown> }[];
    for (const call of calls) await client.callTool(call);
  },
  "http-invalid-tool-headers": async (client) => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const required = (tool.inputSchema.required ?? []) as string[];
      await client.callTool({
        name: tool.name,
        arguments: Object.fromEntries(required.map((k) => [k, "x"])),
      });
    }
  },
  "json-schema-2020-12-preservation": async (client) => {
    const { tools } = await client.listTools();
    const focal = tools.find((tool) => tool.name !== "json_schema_echo");
    await client.callTool({ name: "json_schema_echo", arguments: { schema: focal?.inputSchema ?? {} } });
  },
};

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown>;
  if (url === undefined || !/^https?:\/\//.test(url)) {
    throw new Error(`expected the server URL last, received "${url}"`);
  }
  const client = await connect(url, version);
  try {
    // Scenarios without their own action (auth/*, json-schema-ref-no-deref, ...): list the tools.
    await (actions[scenario] ?? ((c: Client) => c.listTools().then(() => {})))(client, context);
  } finally {
    await client.close();
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`reference-client (${process.env.MCP_CONFORMANCE_SCENARIO}): ${String(e)}\n`);
  process.exit(1);
});
