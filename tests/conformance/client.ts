/**
 * sluice's client (the self-hosted entry, so both eras) under the official conformance suite. The suite runs it as
 * `tsx tests/conformance/client.ts <server-url>` with `MCP_CONFORMANCE_SCENARIO`,
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT` set; it does the scenario's
 * actions through `createClient` with a policy for the mock server, and exits 0, or 1 with the
 * error on stderr. Errors are never hidden: what sluice does is what the suite grades.
 *
 * @module
 */
import process from "node:process";
import { inspect } from "node:util";
import { Agent } from "undici";
import { type Client, ClientError, defineHandler } from "../../mod.ts";
import type { UpstreamAuth } from "../../src/policy/policy.ts";
import { createClient } from "../../src/legacy.ts";
import { discardBody } from "../../src/transport/body-reader.ts";

type Action = (client: Client, context: Record<string, unknown>) => Promise<void>;
const SERVER = "conformance";

/** Fills a form from its schema: required fields get a value of their type; the rest keep their defaults. */
function fillForm(schema: { properties?: Record<string, Record<string, unknown>>; required?: string[] }) {
  const content: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name] ?? {};
    if (property.default !== undefined) continue;
    const options = (property.enum as string[] | undefined) ??
      (property.oneOf as { const: string }[] | undefined)?.map((o) => o.const);
    content[name] = options?.[0] ??
      (property.type === "boolean"
        ? true
        : property.type === "integer" || property.type === "number"
        ? (property.minimum ?? 1)
        : "x");
  }
  return content;
}

let beforeAnswer: (() => Promise<void>) | undefined;

/**
 * Every request of this process, the client's and the authorize helper's: Node's fetch on a new
 * connection each time (`pipelining: 0` turns keep-alive off). The suite serves every scenario
 * from one process and starts every client at once; under load that process can stall past its
 * servers' keep-alive timeout while a request waits unread on a kept-alive connection, and then
 * resets the connection. A POST so cut off fails in any client that does not send it again, and
 * sluice does not (the server may have run it: createNodeFetch's doc). Stopping the suite's
 * process for 12 s between two requests reproduces it: `fetch failed (read ECONNRESET)`. With a
 * connection per request that race, which no client can win, is not part of what the suite grades.
 */
const noReuse = new Agent({ pipelining: 0 });
const clientFetch = (url: string, init: RequestInit): Promise<Response> =>
  fetch(url, { ...init, dispatcher: noReuse } as RequestInit);
let client: Client;

const handler = defineHandler({
  elicitationModes: ["form", "url"],
  elicitation: async (params) => {
    await beforeAnswer?.();
    if ("url" in params) return { action: "accept" };
    return { action: "accept", content: fillForm(params.requestedSchema as never) as never };
  },
  sampling: () => ({
    role: "assistant",
    content: { type: "text", text: "sluice conformance" },
    model: "none",
  }),
  roots: () => ({ roots: [] }),
  // The suite's authorization server approves at once: its authorization endpoint redirects
  // straight to the redirect URI, so "showing" the URL is following it to its Location.
  authorize: async (request) => {
    const response = await clientFetch(request.url, { method: "GET", redirect: "manual" });
    await discardBody(response);
    const location = response.headers.get("location");
    if (location === null) {
      throw new Error(`the authorization endpoint answered HTTP ${response.status}, no redirect`);
    }
    await client.completeAuthorization(SERVER, new URL(location, request.url).href);
    return { action: "accept" };
  },
});

/** Ignores a server that does not implement an optional method. */
async function optional(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof ClientError && error.kind === "server" && error.code === -32601)) throw error;
  }
}

const actions: Record<string, Action> = {
  initialize: async (client) => {
    await client.listTools(SERVER);
  },
  "elicitation-sep1034-client-defaults": async (client) => {
    // The form's optional fields carry defaults; the chain applies them to the accepted answer.
    await client.callTool(SERVER, "test_client_elicitation_defaults");
  },
  "sse-retry": async (client) => {
    await client.listTools(SERVER);
    await client.callTool(SERVER, "test_reconnection");
  },
  tools_call: async (client) => {
    await client.listTools(SERVER);
    await client.callTool(SERVER, "add_numbers", { a: 5, b: 3 });
  },
  "request-metadata": async (client) => {
    await client.listTools(SERVER);
  },
  "sep-2322-client-request-state": async (client) => {
    await client.listTools(SERVER);
    // Between the first round of test_mrtr_echo_state and its retry: an unrelated call, which must
    // carry nothing of that flow.
    let unrelated: Promise<unknown> | undefined;
    beforeAnswer = () => (unrelated ??= client.callTool(SERVER, "test_mrtr_unrelated")).then(() => {});
    await client.callTool(SERVER, "test_mrtr_echo_state");
    beforeAnswer = undefined;
    await client.callTool(SERVER, "test_mrtr_no_state");
    await client.callTool(SERVER, "test_mrtr_no_result_type");
  },
  "http-standard-headers": async (client) => {
    for (const tool of (await client.listTools(SERVER)).tools) await client.callTool(SERVER, tool.name);
    await optional(
      client.listResources(SERVER).then(async ({ resources }) => {
        for (const resource of resources) await client.readResource(SERVER, resource.uri);
      }),
    );
    await optional(
      client.listPrompts(SERVER).then(async ({ prompts }) => {
        for (const prompt of prompts) await client.getPrompt(SERVER, prompt.name);
      }),
    );
  },
  "http-custom-headers": async (client, context) => {
    await client.listTools(SERVER);
    const calls = (context.toolCalls ?? []) as { name: string; arguments: Record<string, unknown> }[];
    for (const call of calls) await client.callTool(SERVER, call.name, call.arguments);
  },
  "json-schema-2020-12-preservation": async (client) => {
    // Echoes an observed tool schema back: the decoder must keep every 2020-12 keyword as sent.
    const { tools } = await client.listTools(SERVER);
    const focal = tools.find((tool) => tool.name !== "json_schema_echo");
    await client.callTool(SERVER, "json_schema_echo", {
      schema: (focal?.inputSchema ?? {}) as Record<string, unknown>,
    });
  },
  "http-invalid-tool-headers": async (client) => {
    // Tools with invalid x-mcp-header annotations are left out of the list, so never called.
    for (const tool of (await client.listTools(SERVER)).tools) {
      const required = (tool.inputSchema.required ?? []) as string[];
      await client.callTool(SERVER, tool.name, Object.fromEntries(required.map((name) => [name, "x"])));
    }
  },
};

/**
 * The policy's `transport.auth` for a scenario whose context carries client credentials
 * (`auth/client-credentials-basic`, `auth/client-credentials-jwt`): the secret or key goes into
 * an environment variable of this process, and the policy names the variable, as a user's does.
 */
function authFor(context: Record<string, unknown>): { auth?: UpstreamAuth } {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  if (!scenario.startsWith("auth/")) return {};
  if (!scenario.startsWith("auth/client-credentials-")) {
    // A person signs in (the authorization code grant); pre-registration's context names the client.
    if (typeof context.client_id !== "string") return { auth: { oauth: {} } };
    process.env.SLUICE_CONFORMANCE_CLIENT_SECRET = String(context.client_secret ?? "");
    return {
      auth: {
        oauth: {
          clientId: context.client_id,
          issuer: String(context.issuer ?? ""),
          ...(context.client_secret === undefined
            ? {}
            : { clientSecretEnv: "SLUICE_CONFORMANCE_CLIENT_SECRET" }),
        },
      },
    };
  }
  if (typeof context.client_id !== "string") return {};
  if (typeof context.private_key_pem === "string") {
    process.env.SLUICE_CONFORMANCE_PRIVATE_KEY = context.private_key_pem;
    const algorithm = String(context.signing_algorithm ?? "ES256") as "ES256";
    return {
      auth: {
        clientCredentials: {
          clientId: context.client_id,
          privateKeyEnv: "SLUICE_CONFORMANCE_PRIVATE_KEY",
          algorithm,
        },
      },
    };
  }
  process.env.SLUICE_CONFORMANCE_CLIENT_SECRET = String(context.client_secret ?? "");
  return {
    auth: {
      clientCredentials: { clientId: context.client_id, clientSecretEnv: "SLUICE_CONFORMANCE_CLIENT_SECRET" },
    },
  };
}

async function main(): Promise<void> {
  const url = process.argv.at(-1) ?? "";
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2026-07-28";
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown>;
  if (!/^https?:\/\//.test(url)) throw new Error(`expected the server URL last, received "${url}"`);
  const era = version === "2026-07-28" ? "modern" : "legacy";
  client = createClient({
    name: "sluice-conformance",
    handler,
    fetch: clientFetch,
    policies: [{ server: SERVER, transport: { url, ...authFor(context) }, era }],
    signIn: {
      redirectUri: "http://localhost:3000/callback",
      // The id the suite's CIMD scenarios expect; used only where the server supports them.
      clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    },
  });
  try {
    // Scenarios without their own action (json-schema-ref-no-deref, …): list the tools. The
    // auth/* ones also call each tool: the real work a token is for (step-up needs a call).
    const fallback: Action = scenario.startsWith("auth/")
      ? async (c) => {
        for (const tool of (await c.listTools(SERVER)).tools) await c.callTool(SERVER, tool.name);
      }
      : (c) => c.listTools(SERVER).then(() => {});
    await (actions[scenario] ?? fallback)(client, context);
  } finally {
    await client.close();
  }
}

// The whole error, its details and causes included: a failure seen once is read from this alone.
main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(
    `sluice conformance client (${process.env.MCP_CONFORMANCE_SCENARIO}): ${inspect(error, { depth: 8 })}\n`,
  );
  process.exit(1);
});
