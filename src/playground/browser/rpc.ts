/**
 * The MCP requests of the page, sent to the front's own endpoint (`POST mcp/<server>`) as a
 * 2026-07-28 host sends them: with the library's own headers (`Mcp-Param-*` included) and the
 * client's capabilities in `_meta`.
 *
 * @module
 */
import { mcpNameOf, mcpRequestHeaders } from "../../protocol/mcp-request-headers.ts";
import { compileToolHeaders, toolParamHeaders } from "../../client/modern/tool-headers.ts";
import { page } from "./page.ts";
import { isObject, type JsonObject, own, text } from "./read-json.ts";

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

/** `Mcp-Param-{Name}` headers, as `[Name, value]` pairs. */
export type ParamHeaders = ReadonlyArray<readonly [string, string]>;

/**
 * The `Mcp-Param-{Name}` headers of a call, by the library's rules for a tool's `x-mcp-header`
 * annotations.
 *
 * @param tool The tool.
 * @param args The call's arguments.
 * @returns The headers, or why the call cannot be sent (an argument that disagrees with its
 *   annotation, or an invalid annotation).
 */
export function paramHeaders(tool: Tool, args: JsonObject): ParamHeaders | { readonly problem: string } {
  const compiled = compileToolHeaders({ name: tool.name, inputSchema: own(tool, "inputSchema") });
  if (!compiled.ok) return { problem: `The tool cannot be called: ${compiled.reason}` };
  const pairs = toolParamHeaders(compiled.headers, args);
  return "error" in pairs ? { problem: pairs.error } : pairs;
}

/**
 * Sends one JSON-RPC request to the front.
 *
 * @param server The server's id, as the gateway lists it.
 * @param method The method.
 * @param params The params (`_meta` is added).
 * @param headers The call's `Mcp-Param-*` headers.
 * @returns The result or the error; an unreachable gateway or an answer that is not a JSON-RPC
 *   response is an error too.
 */
export async function rpc(
  server: string,
  method: string,
  params: JsonObject,
  headers: ParamHeaders = [],
): Promise<RpcAnswer> {
  lastRequestId += 1;
  const body = { jsonrpc: "2.0", id: lastRequestId, method, params: { ...params, _meta: META } };
  const name = mcpNameOf(method, params);
  let response: Response;
  try {
    response = await fetch(`mcp/${encodeURIComponent(server)}`, {
      method: "POST",
      headers: {
        ...mcpRequestHeaders({
          protocolVersion: VERSION,
          method,
          params: headers,
          ...(name === undefined ? {} : { name }),
        }),
        // The page reads one JSON answer, never an event stream.
        Accept: "application/json",
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
