// What the gateway-security tests share: a scripted modern upstream with a few tools, reached
// through the client's injected `fetch` (so a front runs on every runtime, workerd included),
// and a modern caller's raw POST to a front, byte for byte. Runs on every runtime.
import { createClient, type Handler, type Policy } from "../../mod.ts";
import { createFront } from "../../src/front/create-front.ts";
import type { Timers } from "../../src/_internal/timers.ts";
import type { Clock } from "../../src/_internal/clock.ts";
import { type Reply, result, type ScriptedServer, scriptedServer, toolsList } from "./scripted-server.ts";

/** A loopback base URL the front answers without `allowedHosts`. */
export const LOOPBACK = "http://127.0.0.1:8787";

/** The `_meta` of a modern request; `capabilities` are what the caller declares. */
export function modernMeta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  };
}

/**
 * The request a modern caller POSTs: `{ jsonrpc, id: 1, method, params }` with the transport's
 * headers (`Mcp-Method`, `Mcp-Name` when the params name something), plus `headers`.
 *
 * @param url The endpoint, `<base>/mcp/<server>`.
 * @param method The JSON-RPC method.
 * @param params The params (give `_meta`).
 * @param headers More headers (`authorization`), or overrides.
 * @returns The request.
 */
export function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** A response as the tests compare it: status, the headers named, and the parsed body. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | null>;
  readonly body: unknown;
}

/**
 * Reads a response whole: its status, the headers `names` (null when absent) and its JSON body
 * (`null` for an empty one).
 *
 * @param response The response.
 * @param names The headers to report, lower case.
 * @returns What the tests compare.
 */
export async function answerOf(response: Response, names: readonly string[] = []): Promise<Answer> {
  const text = await response.text();
  return {
    status: response.status,
    headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
    body: text === "" ? null : JSON.parse(text) as unknown,
  };
}

/** The tools the scripted upstream lists. */
export const UPSTREAM_TOOLS: readonly Record<string, unknown>[] = [
  { name: "read", inputSchema: { type: "object" } },
  { name: "write", inputSchema: { type: "object" } },
  { name: "delete", inputSchema: { type: "object" } },
];

/**
 * A modern upstream scripted in process: `server/discover` offers tools; `tools/list` lists
 * {@linkcode UPSTREAM_TOOLS}; `tools/call` of `ask` asks for roots and a one-field form in one
 * round, then answers with what it received; any other tool answers `called <name>`.
 *
 * @returns The server (its `fetch` for `createClient`, and the requests it saw).
 */
export function toolsUpstream(): ScriptedServer {
  return scriptedServer((request) => {
    const { id, method } = request.body;
    const params = request.body.params ?? {};
    if (method === "tools/list") return toolsList(id, [...UPSTREAM_TOOLS]);
    if (method === "server/discover") {
      return result(id, {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
      });
    }
    if (params.name === "ask") {
      const answers = params.inputResponses as Record<string, unknown> | undefined;
      return result(
        id,
        answers === undefined
          ? {
            resultType: "input_required",
            inputRequests: {
              where: { method: "roots/list", params: {} },
              who: {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: "Your name?",
                  requestedSchema: {
                    type: "object",
                    properties: { name: { type: "string" } },
                    required: ["name"],
                  },
                },
              },
            },
            requestState: "upstream-state",
          }
          : { resultType: "complete", content: [{ type: "text", text: JSON.stringify(answers) }] },
      );
    }
    return result(id, { resultType: "complete", content: [{ type: "text", text: `called ${params.name}` }] });
  });
}

/** A 403 of the guard: a JSON-RPC error without an id. */
export function guardRefusal(message: string): Answer {
  return {
    status: 403,
    headers: { "content-type": "application/json" },
    body: { jsonrpc: "2.0", error: { code: -32000, message } },
  };
}

/** The 403 the guard answers for a Host it does not serve. */
export function hostRefusal(host: string): Answer {
  return guardRefusal(
    `Forbidden: the Host ${
      JSON.stringify(host)
    } is not served here: expected a loopback name (localhost, 127.0.0.1, [::1]) or one in "allowedHosts"`,
  );
}

/** The 403 a gateway with neither auth nor allowedHosts answers a request from another machine. */
export function peerRefused(address: string): Answer {
  return guardRefusal(
    `Forbidden: a request from ${
      JSON.stringify(address)
    } is not served here: expected one from this machine (a loopback address), as this gateway has neither "auth" nor "allowedHosts"; set both to answer other machines`,
  );
}

/** The 403 for a request from another machine that names a loopback Host the gateway does not list. */
export function loopbackHostRefused(address: string, host: string): Answer {
  return guardRefusal(
    `Forbidden: a request from ${JSON.stringify(address)} names the loopback Host ${
      JSON.stringify(host)
    }: expected a loopback Host only from this machine; list the name in "allowedHosts" to answer it from others`,
  );
}

/** The 403 the guard answers for an Origin that may not call. */
export function originRefusal(origin: string): Answer {
  return guardRefusal(
    `Forbidden: the Origin ${
      JSON.stringify(origin)
    } may not call this gateway: expected its own origin or one in "allowedOrigins"`,
  );
}

/** The endpoint of {@linkcode scriptedFront}'s one server, `"up"`, as a caller reaches it. */
export const SCRIPTED_FRONT_URL = "https://gate.example/mcp/up";

/** What {@linkcode scriptedFront} returns. */
export interface ScriptedFront {
  /** The front (`createFront`, no auth), serving {@linkcode SCRIPTED_FRONT_URL}. */
  readonly app: ReturnType<typeof createFront>;
  /** The front's client: close it at the end. */
  readonly client: ReturnType<typeof createClient>;
  /** The upstream, with the requests it saw. */
  readonly upstream: ScriptedServer;
}

/**
 * A front over one scripted modern upstream, `"up"`: what the front tests that script their
 * upstream share.
 *
 * @param reply The upstream's answers.
 * @param options More of `"up"`'s policy (`passDown`, …), the gateway's handler (none by default),
 *   and the client's timers (a fake clock's; the runtime's by default).
 * @returns The front, its client and the upstream.
 */
export function scriptedFront(
  reply: Reply,
  options: {
    policy?: Omit<Policy, "server" | "transport">;
    handler?: Handler;
    timers?: Timers;
    clock?: Clock;
  } = {},
): ScriptedFront {
  const upstream = scriptedServer(reply);
  const client = createClient({
    name: "gate",
    fetch: upstream.fetch,
    ...options.handler === undefined ? {} : { handler: options.handler },
    ...options.timers === undefined ? {} : { timers: options.timers },
    ...options.clock === undefined ? {} : { clock: options.clock },
    policies: [{
      server: "up",
      transport: { url: "https://up.example/mcp" },
      era: "modern",
      ...options.policy,
    }],
  });
  const app = createFront({
    client,
    stateKey: "scripted-front-state-key-0123456789abcdef",
    allowedHosts: ["gate.example"],
    auth: "none",
  });
  return { app, client, upstream };
}

/**
 * A modern caller's request to a {@linkcode scriptedFront}: {@linkcode modernRequest} with a
 * `_meta` declaring `capabilities`, and more `headers`.
 *
 * @param front The front.
 * @param method The JSON-RPC method.
 * @param params The params, without `_meta`.
 * @param options What the caller declares, and more headers.
 * @returns The HTTP status and the JSON-RPC answer.
 */
export async function askScriptedFront(
  front: ScriptedFront,
  method: string,
  params: Record<string, unknown>,
  options: { capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const request = modernRequest(
    SCRIPTED_FRONT_URL,
    method,
    { ...params, _meta: modernMeta(options.capabilities) },
    options.headers,
  );
  const answer = await answerOf(await front.app.fetch(request));
  return { status: answer.status, body: answer.body };
}
