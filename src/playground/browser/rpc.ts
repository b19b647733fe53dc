/**
 * The MCP requests of the page, sent to the front's own endpoint (`POST mcp/<server>`) exactly
 * as a 2026-07-28 host sends them: the protocol version, method and name headers, `Mcp-Param-*`
 * headers for a tool's `x-mcp-header` arguments, and the client's capabilities in `_meta`.
 *
 * @module
 */
import { page } from "./page.ts";
import { isObject, type JsonObject, own, ownObject, text } from "./read-json.ts";

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
  },
  "io.modelcontextprotocol/clientInfo": { name: "sluice-playground", version: "1.0.0" },
};
/** An HTTP header name's characters (RFC 9110 `token`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
let lastRequestId = 0;

/** A tool as `tools/list` lists it: only its name is known to be there. */
export interface Tool extends JsonObject {
  /** The tool's name. */
  readonly name: string;
}

/** Whether a value listed by `tools/list` is a tool with a name. */
export function isTool(value: unknown): value is Tool {
  return typeof own(value, "name") === "string";
}

/** A JSON-RPC answer: its result, or its error (the gateway's own, or one made up here). */
export type RpcAnswer = { readonly result: JsonObject } | { readonly error: JsonObject };

/** The `Authorization: Bearer` header of the access token typed in, if any. */
export function authorization(): Record<string, string> {
  const token = page.token.value.trim();
  return token === "" ? {} : { authorization: `Bearer ${token}` };
}

/** An `Mcp-Name` or `Mcp-Param` value: visible ASCII as is, anything else as `=?base64?…?=`. */
function headerValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && !value.startsWith(" ") && !value.endsWith(" ");
  const lower = value.toLowerCase();
  if (plain && !(lower.startsWith("=?base64?") && lower.endsWith("?="))) return value;
  const binary = Array.from(new TextEncoder().encode(value), (byte) => String.fromCharCode(byte)).join("");
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The `Mcp-Param-{Name}` headers of a call: one per top-level property of the tool's input schema
 * that names a header with `x-mcp-header` and has a string, boolean or safe integer argument.
 *
 * @param tool The tool.
 * @param args The call's arguments.
 * @returns The headers, by lower-case name.
 */
export function paramHeaders(tool: Tool, args: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {};
  const properties = ownObject(own(tool, "inputSchema"), "properties");
  for (const name of Object.keys(properties)) {
    const header = own(properties[name], "x-mcp-header");
    const value = own(args, name);
    if (typeof header !== "string" || !TOKEN.test(header)) continue;
    if (typeof value === "string") headers[`mcp-param-${header}`] = headerValue(value);
    else if (typeof value === "boolean" || Number.isSafeInteger(value)) {
      headers[`mcp-param-${header}`] = String(value);
    }
  }
  return headers;
}

/**
 * Sends one JSON-RPC request to the front.
 *
 * @param server The server's id, as the gateway lists it.
 * @param method The method.
 * @param params The params (`_meta` is added).
 * @param headers More headers (the call's `Mcp-Param-*`).
 * @returns The result or the error; an unreachable gateway or an answer that is not a JSON-RPC
 *   response is an error too.
 */
export async function rpc(
  server: string,
  method: string,
  params: JsonObject,
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  lastRequestId += 1;
  const body = { jsonrpc: "2.0", id: lastRequestId, method, params: { ...params, _meta: META } };
  let response: Response;
  try {
    response = await fetch(`mcp/${encodeURIComponent(server)}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        ...(method === "tools/call" ? { "mcp-name": headerValue(text(params["name"])) } : {}),
        ...headers,
        ...authorization(),
      },
      body: JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
      redirect: "error",
    });
  } catch {
    return { error: { message: "The gateway could not be reached" } };
  }
  let message: unknown;
  try {
    message = await response.json();
  } catch {
    return { error: { message: `HTTP ${response.status}: the answer is not JSON` } };
  }
  const error = own(message, "error");
  if (isObject(error)) return { error };
  const result = own(message, "result");
  if (isObject(result)) return { result };
  return { error: { message: `HTTP ${response.status}: the answer is not a JSON-RPC response` } };
}

/** A JSON-RPC error as the page shows it: `JSON-RPC error <code>: <message>`, or the message alone. */
export function describeError(error: JsonObject): string {
  const code = own(error, "code");
  const message = text(own(error, "message")) || "(no message)";
  return typeof code === "number" && Number.isFinite(code) ? `JSON-RPC error ${code}: ${message}` : message;
}
