/**
 * Raw-fetch JSON-RPC for the modern peer's tests: one POST per call with the 2026-07-28 headers
 * and `_meta` built by hand, so the tests see exactly what a server answers (no client library).
 *
 * @module
 */

/** The protocol revision the modern peer speaks. */
export const VERSION = "2026-07-28";

/** The `_meta` serverInfo entry every modern peer result carries. */
export const SERVER_INFO = {
  "io.modelcontextprotocol/serverInfo": { name: "sluice-modern-peer", version: "1.0.0" },
};

/** The HTTP status and parsed JSON-RPC body of one answer. */
export interface Sent {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Per-call choices: `Mcp-Name`, the declared capabilities, a required header to leave out. */
export interface PostOptions {
  readonly name?: string;
  readonly capabilities?: object;
  readonly omitHeader?: string;
}

/** The required request `_meta` for a 2026-07-28 request declaring `capabilities`. */
export function meta(capabilities: object): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "raw-fetch", version: "0.0.0" },
  };
}

/** A poster for the MCP endpoint `url`, numbering requests from 1; `lastId()` is the last id sent. */
export function rawRpc(url: () => string): {
  post(method: string, params: Record<string, unknown>, options?: PostOptions): Promise<Sent>;
  lastId(): number;
} {
  let nextId = 1;
  async function post(
    method: string,
    params: Record<string, unknown>,
    options: PostOptions = {},
  ): Promise<Sent> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": method,
      ...options.name === undefined ? {} : { "mcp-name": options.name },
    };
    if (options.omitHeader !== undefined) delete headers[options.omitHeader];
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: { ...params, _meta: meta(options.capabilities ?? {}) },
    };
    const response = await fetch(url(), { method: "POST", headers, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  }
  return { post, lastId: () => nextId - 1 };
}
