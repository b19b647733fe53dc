/**
 * The HTTP headers of a 2026-07-28 Streamable HTTP POST, including `Mcp-Name` and the
 * `Mcp-Param-{Name}` headers a tool's `x-mcp-header` annotations ask for (values through
 * {@linkcode encodeHeaderValue}).
 *
 * @module
 */
import { encodeHeaderValue } from "./header-value.ts";
import { isObject } from "../_internal/is-object.ts";

/** What {@linkcode mcpRequestHeaders} builds the headers from. */
export interface McpRequestHeadersInput {
  /** The `io.modelcontextprotocol/protocolVersion` of the body's `_meta`, e.g. `"2026-07-28"`. */
  readonly protocolVersion: string;
  /** The JSON-RPC `method` of the body. */
  readonly method: string;
  /** The `Mcp-Name` source value (see {@linkcode mcpNameOf}); no header when absent. */
  readonly name?: string | undefined;
  /** `[Name, value]` pairs, each sent as `Mcp-Param-{Name}: value` (from `toolParamHeaders`). */
  readonly params?: ReadonlyArray<readonly [string, string]>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * Builds the headers of one modern POST request.
 *
 * @param input The protocol version, method, `Mcp-Name` source value and parameter headers.
 * @returns A fresh prototype-free map from header name to value, ready for `fetch`.
 * @throws {TypeError} When the version or method is empty or not visible ASCII, or a parameter
 *   name is not an RFC 9110 token or repeats another in any letter case (programmer errors).
 * @example
 * ```ts
 * import { mcpRequestHeaders } from "./mcp-request-headers.ts";
 * const headers = mcpRequestHeaders({
 *   protocolVersion: "2026-07-28",
 *   method: "tools/call",
 *   name: "execute_sql",
 *   params: [["Region", "us-west1"]],
 * });
 * headers["Mcp-Param-Region"]; // "us-west1"
 * ```
 */
export function mcpRequestHeaders(input: McpRequestHeadersInput): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  headers["Content-Type"] = "application/json";
  headers["Accept"] = "application/json, text/event-stream";
  headers["MCP-Protocol-Version"] = visibleAscii("MCP-Protocol-Version", input.protocolVersion);
  headers["Mcp-Method"] = visibleAscii("Mcp-Method", input.method);
  if (input.name !== undefined) headers["Mcp-Name"] = encodeHeaderValue(input.name);
  const seen = new Set<string>();
  for (const [name, value] of input.params ?? []) {
    if (!TOKEN.test(name)) {
      throw new TypeError(`Parameter header name "${name}" must be an RFC 9110 token`);
    }
    const folded = name.toLowerCase();
    if (seen.has(folded)) {
      throw new TypeError(`Parameter header name "${name}" must be unique in any letter case`);
    }
    seen.add(folded);
    headers[`Mcp-Param-${name}`] = encodeHeaderValue(value);
  }
  return headers;
}

const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
  ["tasks/get", "taskId"],
  ["tasks/update", "taskId"],
  ["tasks/cancel", "taskId"],
]);

/**
 * Picks the `Mcp-Name` source value of a request: `params.name`, `params.uri` or `params.taskId`
 * by method.
 *
 * @param method The JSON-RPC method.
 * @param params The request's `params`.
 * @returns The value when the method has one and it is an own string of `params`, else `undefined`.
 * @example
 * ```ts
 * import { mcpNameOf } from "./mcp-request-headers.ts";
 * mcpNameOf("resources/read", { uri: "file:///a.txt" }); // "file:///a.txt"
 * mcpNameOf("tools/list", {}); // undefined
 * ```
 */
export function mcpNameOf(method: string, params: unknown): string | undefined {
  const key = NAME_SOURCE.get(method);
  if (key === undefined || !isObject(params) || !Object.hasOwn(params, key)) return undefined;
  const value = params[key];
  return typeof value === "string" ? value : undefined;
}

function visibleAscii(header: string, value: string): string {
  if (!VISIBLE_ASCII.test(value)) {
    throw new TypeError(`${header} value ${JSON.stringify(value)} must be non-empty visible ASCII`);
  }
  return value;
}
