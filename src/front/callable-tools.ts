/**
 * What the gateway lists of a 2026-07-28 upstream's tools: only those it can call. Its client
 * refuses to call a tool whose `x-mcp-header` annotations are invalid (the spec has a client
 * leave such a tool out of `tools/list`), so the gateway's callers are not offered it either.
 *
 * @module
 */
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { compileToolHeaders } from "../client/modern/tool-headers.ts";
import { isObject } from "../_internal/is-object.ts";

/**
 * A `tools/list` result without the tools the gateway cannot call.
 *
 * @param result The upstream's result; never modified.
 * @param method The request's method (other methods' results pass unchanged).
 * @param era The upstream's era: a legacy server's tools are called without `Mcp-Param-*`
 *   headers, so all of them can be.
 * @returns The result to send: the same object when nothing is left out.
 * @example
 * ```ts
 * import { callableTools } from "./callable-tools.ts";
 * const bad = { name: "bad", inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } } };
 * const listed = { tools: [bad, { name: "ok", inputSchema: { type: "object" } }] };
 * console.log(callableTools(listed, "tools/list", "modern").tools); // [ { name: "ok", inputSchema: { type: "object" } } ]
 * ```
 */
export function callableTools(result: JsonObject, method: string, era: "modern" | "legacy"): JsonObject {
  if (method !== "tools/list" || era !== "modern" || !Array.isArray(result.tools)) return result;
  const tools = result.tools.filter((tool) =>
    !isObject(tool) || typeof tool.name !== "string" ||
    compileToolHeaders({ name: tool.name, inputSchema: tool.inputSchema }).ok
  );
  return tools.length === result.tools.length ? result : { ...result, tools };
}
