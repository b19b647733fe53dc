/**
 * What the gateway lists of an upstream's tools: only those its client will call, so not an entry
 * that is no valid tool nor, of a 2026-07-28 upstream, a tool whose `x-mcp-header` annotations are
 * invalid (the spec has a client leave such a tool out of `tools/list`).
 *
 * @module
 */
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { compileToolHeaders } from "../client/modern/tool-headers.ts";
import { isObject } from "../_internal/is-object.ts";
import { decode } from "../protocol/decode.ts";
import { ToolSchema } from "../protocol/tools.ts";

/**
 * A `tools/list` result without the tools the gateway cannot call, and without the tools'
 * `execution` (`taskSupport`) for a caller the upstream's tasks are not relayed to: the gateway
 * runs such a caller's task within its call, and a host that reads `"required"` would refuse to
 * call the tool (the official SDK 1.x does).
 *
 * @param result The upstream's result; never modified.
 * @param method The request's method (other methods' results pass unchanged).
 * @param era The upstream's era: a legacy server's tools are called without `Mcp-Param-*`
 *   headers, so all of them can be.
 * @param tasks Whether the caller gets the upstream's tasks (a 2025-11-25 host of a legacy one).
 * @returns The result to send: the same object when nothing is left out.
 * @example
 * ```ts
 * import { callableTools } from "./callable-tools.ts";
 * const bad = { name: "bad", inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } } };
 * const listed = { tools: [bad, { name: "ok", inputSchema: { type: "object" } }] };
 * console.log(callableTools(listed, "tools/list", "modern").tools); // [ { name: "ok", inputSchema: { type: "object" } } ]
 * ```
 */
export function callableTools(
  result: JsonObject,
  method: string,
  era: "modern" | "legacy",
  tasks = false,
): JsonObject {
  const listed: unknown = result.tools;
  if (method !== "tools/list" || !Array.isArray(listed)) return result;
  const callable = listed.filter((tool) =>
    decode(ToolSchema, tool).ok &&
    (era !== "modern" || compileToolHeaders({ name: tool.name, inputSchema: tool.inputSchema }).ok)
  );
  const tools = tasks ? callable : callable.map((tool) => {
    if (!isObject(tool) || !("execution" in tool)) return tool;
    const { execution: _relayedNot, ...rest } = tool;
    return rest;
  });
  const same = tools.length === listed.length && tools.every((tool, i) => tool === listed[i]);
  return same ? result : { ...result, tools };
}
