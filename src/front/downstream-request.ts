/**
 * What the front checks of a downstream request before anything reaches upstream: one JSON-RPC
 * message, which era it speaks, and for a 2026-07-28 one: `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers that agree with the body (`-32020`); the required `_meta` keys (`-32602`); a
 * supported protocol version (`-32022` with `supported` and `requested`). A `tools/call`'s
 * `Mcp-Param-*` headers need the tool's rules from upstream: `front-call.ts` checks them.
 *
 * @module
 */
import type { Principal } from "./principal.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import {
  decodeMessage,
  encodeError,
  isNotification,
  isRequest,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  parseJsonText,
  type RequestId,
} from "../protocol/jsonrpc.ts";
import { decodeRequestMeta, type RequestMetaObject } from "../protocol/meta.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { decodeHeaderValue } from "../protocol/header-value.ts";
import { mcpNameOf } from "../protocol/mcp-request-headers.ts";
import { isObject } from "../_internal/is-object.ts";
import { quote } from "../_internal/quote.ts";

/** A downstream request that passed every check. */
export interface DownstreamRequest {
  readonly message: JsonRpcRequest;
  readonly params: JsonObject;
  readonly meta: RequestMetaObject;
  /** What the caller declared it can answer (its `_meta` clientCapabilities). */
  readonly capabilities: ClientCapabilities;
  /** Who the caller is, when the gateway's `auth` established it. */
  readonly principal?: Principal | undefined;
  /** The request's headers (a `tools/call`'s `Mcp-Param-*` are checked against the tool's rules). */
  readonly headers: Headers;
}

/** How the front answers a request it refused: an HTTP status and a JSON-RPC error. */
export interface DownstreamRefusal {
  readonly status: number;
  readonly body: JsonRpcErrorResponse | undefined;
}

/**
 * Parses one downstream POST body: a single JSON-RPC message within the nesting limit.
 *
 * @param text The body.
 * @param maxJsonDepth The deepest nesting accepted: the server's `maxJsonDepth`.
 * @returns The message, or the refusal (`-32700` for text that is not JSON or nests too deep,
 *   `-32600` for JSON that is not one JSON-RPC message, such as a batch; with the request's id
 *   when it is readable, see {@linkcode readableId}). A refused body that claims to answer a
 *   request the front sent (an `id`, `result` or `error`, no `method`) comes with `answer`, the
 *   error response standing for it, so a 2025 session answers the server at once, not at its
 *   deadline.
 */
export function parseDownstream(
  text: string,
  maxJsonDepth: number,
): { readonly message: JsonRpcMessage } | DownstreamRefusal & { readonly answer?: JsonRpcErrorResponse } {
  const json = parseJsonText(text, { maxDepth: maxJsonDepth });
  if (!json.ok) return refusal(400, null, -32700, `Parse error: ${json.message}`);
  const parsed = decodeMessage(json.value);
  if (parsed.ok) return { message: parsed.value };
  const refused = refusal(400, readableId(json.value), -32600, `Invalid request: ${parsed.message}`);
  const answer = garbledAnswer(json.value, parsed.message);
  return answer === undefined ? refused : { ...refused, answer };
}

/** A body that claims to answer a request by its id, read as the caller's refusal of it. */
function garbledAnswer(value: unknown, why: string): JsonRpcErrorResponse | undefined {
  if (!isObject(value) || "method" in value || !("result" in value || "error" in value)) return undefined;
  const { id } = value;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  return {
    jsonrpc: "2.0",
    id: id as RequestId,
    error: { code: -32603, message: `The caller's answer is no JSON-RPC response: ${why}` },
  };
}

/**
 * Which era a downstream POST speaks (the 2026-07-28 rules for a server of both eras): modern when
 * its `_meta` claims a protocol version or its `MCP-Protocol-Version` header names the modern one
 * (a request missing its `_meta` is then refused as modern, never served as legacy); else legacy.
 *
 * @param message The message.
 * @param headers The request's headers.
 * @returns The era, or a refusal for an `initialize`, a session's message or a response under
 *   the modern header (that era has none of them) without a `_meta` that claims it.
 * @example
 * ```ts
 * import { classifyDownstream } from "./downstream-request.ts";
 * const initialize = { jsonrpc: "2.0" as const, id: 1, method: "initialize", params: {} };
 * console.log(classifyDownstream(initialize, new Headers())); // "legacy"
 * ```
 */
export function classifyDownstream(
  message: JsonRpcMessage,
  headers: Headers,
): "modern" | "legacy" | DownstreamRefusal {
  const response = !isRequest(message) && !isNotification(message);
  const meta = response ? undefined : (message.params as { _meta?: unknown } | undefined)?._meta;
  const claim = typeof meta === "object" && meta !== null &&
    (meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"] !== undefined;
  if (claim) return "modern";
  if (headers.get("mcp-protocol-version") !== MODERN_PROTOCOL_VERSION) return "legacy";
  // A session's every message carries the version it negotiated: a response or a notification
  // (a cancellation) sent under the modern one would be dropped, or refused as another version.
  if (headers.has("mcp-session-id") && !(isRequest(message) && message.method === "initialize")) {
    return refusal(
      400,
      isRequest(message) ? message.id : null,
      -32020,
      `Header mismatch: MCP-Protocol-Version "${MODERN_PROTOCOL_VERSION}" has no sessions, and this ${
        response ? "response" : isRequest(message) ? "request" : "notification"
      } names one (Mcp-Session-Id); a 2025 session's messages carry the version it negotiated`,
    );
  }
  if (response) {
    return refusal(
      400,
      null,
      -32600,
      `Invalid request: under MCP-Protocol-Version "${MODERN_PROTOCOL_VERSION}" a client sends no responses (it answers a server's input requests in its retry's inputResponses)`,
    );
  }
  if (isRequest(message) && message.method === "initialize") {
    return refusal(
      400,
      message.id,
      -32020,
      `Header mismatch: MCP-Protocol-Version "${MODERN_PROTOCOL_VERSION}" has no initialize; send initialize without it to open a 2025 session`,
    );
  }
  return "modern";
}

/**
 * Checks one modern downstream message and its headers.
 *
 * @param message A message {@linkcode classifyDownstream} found modern: a request or a
 *   notification (it sends every response to the legacy face).
 * @param headers The request's headers.
 * @returns The request, `"notification"` (answered `202`), or a refusal.
 */
export function readDownstreamRequest(
  message: JsonRpcMessage,
  headers: Headers,
): DownstreamRequest | "notification" | DownstreamRefusal {
  if (!isRequest(message)) return "notification";
  const id = message.id;
  const params = message.params ?? {};
  const headerVersion = headers.get("mcp-protocol-version");
  const rawMeta = (params as { _meta?: unknown })._meta;
  const bodyVersion = typeof rawMeta === "object" && rawMeta !== null
    ? (rawMeta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"]
    : undefined;
  const mismatch = (problem: string) => refusal(400, id, -32020, `Header mismatch: ${problem}`);
  if (headerVersion === null) return mismatch("the MCP-Protocol-Version header is missing");
  if (typeof bodyVersion === "string" && bodyVersion !== headerVersion) {
    return mismatch(`MCP-Protocol-Version ${q(headerVersion)} differs from _meta ${q(bodyVersion)}`);
  }
  const headerMethod = headers.get("mcp-method");
  if (headerMethod !== message.method) {
    return mismatch(
      headerMethod === null
        ? `the Mcp-Method header is missing, expected ${q(message.method)}`
        : `Mcp-Method ${q(headerMethod)} differs from the body's ${q(message.method)}`,
    );
  }
  const name = mcpNameOf(message.method, params);
  const headerName = headers.get("mcp-name");
  if (name !== undefined && (headerName === null || decodeHeaderValue(headerName) !== name)) {
    return mismatch(
      headerName === null
        ? `the Mcp-Name header is missing, expected ${q(name)}`
        : `Mcp-Name ${q(headerName)} differs from the body's ${q(name)}`,
    );
  }
  const meta = decodeRequestMeta(rawMeta);
  if (!meta.ok) {
    return refusal(
      400,
      id,
      -32602,
      `Invalid params: _meta${meta.path.slice(1)}: expected ${meta.expected}, received ${meta.received}`,
    );
  }
  const version = meta.value["io.modelcontextprotocol/protocolVersion"];
  if (version !== MODERN_PROTOCOL_VERSION) {
    return refusal(400, id, -32022, "Unsupported protocol version", {
      supported: [MODERN_PROTOCOL_VERSION],
      requested: version,
    });
  }
  return {
    message,
    params,
    meta: meta.value,
    // Decoded already, by the modern schema, with the rest of _meta.
    capabilities: meta.value["io.modelcontextprotocol/clientCapabilities"],
    headers,
  };
}

/**
 * A refusal with a JSON-RPC error body.
 *
 * @param status The HTTP status.
 * @param id The request's id, or `null`.
 * @param code The JSON-RPC code.
 * @param message The message (never an upstream secret or a stack trace).
 * @param data Extra data.
 * @returns The refusal.
 */
export function refusal(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): DownstreamRefusal {
  return { status, body: encodeError(id, data === undefined ? { code, message } : { code, message, data }) };
}

/**
 * The words of the `-32601` (HTTP `404`) for a server the front does not have.
 *
 * @param serverId The id asked for.
 * @returns The message.
 */
export function unknownServer(serverId: string): string {
  return `Unknown server ${JSON.stringify(serverId.slice(0, 64))}`;
}

/**
 * The id of a JSON value that is no valid JSON-RPC message, when it can be read: a string or a
 * safe integer `id` of an object that is no response (a response's id names one of the front's
 * own requests, never one the caller waits on). JSON-RPC 2.0 answers `null` only when the id
 * could not be read.
 *
 * @param value The parsed body.
 * @returns The id, or `null`.
 */
function readableId(value: unknown): RequestId | null {
  if (!isObject(value) || "result" in value || "error" in value) return null;
  const { id } = value;
  return typeof id === "string" || Number.isSafeInteger(id) ? id as RequestId : null;
}

function q(text: string): string {
  // Long enough for the gateway's own task ids, whole (a caller copies the expected value).
  return quote(text, 512);
}
