/**
 * The front's intake of one `POST /mcp/<server>`: the body read within the server's limits (an
 * unknown server's within the defaults, so it is answered `404` only once read; `413` over
 * `maxMessageBytes`, `400` when it did not arrive in full; the entry told once it is read, see
 * {@linkcode BODY_READ}), parsed as one JSON-RPC message, its era told by how it opens, the caller
 * held to the server's `access` (to the server, and to the tool it calls); then a legacy message goes
 * to the legacy callers' sessions and a modern request, once its headers and `_meta` check out, to
 * {@linkcode frontModernPost}.
 *
 * @module
 */
import type { Context } from "hono";
import { POLICY_DEFAULTS } from "../policy/policy-defaults.ts";
import { tooLarge } from "../protocol/message-limits.ts";
import { readRequestBytes } from "../transport/body-reader.ts";
import type { CallerGate } from "./front-callers.ts";
import type { FrontServer } from "./front-server.ts";
import {
  classifyDownstream,
  parseDownstream,
  readDownstreamRequest,
  refusal,
  unknownServer,
} from "./downstream-request.ts";
import { respond } from "./_front-response.ts";
import type { LegacyRequest } from "./legacy-callers.ts";
import { frontModernPost, type ModernParts } from "./front-modern-post.ts";
import { BODY_READ, type BodyRead } from "./entry-bindings.ts";
import { reportCall } from "./_call-decision.ts";
import { ClientError } from "../errors.ts";
import { MRTR_METHODS } from "../protocol/input-required.ts";
import {
  isRequest,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type RequestId,
} from "../protocol/jsonrpc.ts";
import { describeValue } from "../_internal/quote.ts";

/** What the intake needs of its front. */
export interface FrontPostParts {
  readonly servers: ReadonlyMap<string, FrontServer>;
  readonly gate: CallerGate;
  /** Where legacy callers' messages go. */
  readonly serveLegacy: (request: LegacyRequest) => Promise<Response>;
  readonly modern: ModernParts;
}

/**
 * Serves one POST to `/mcp/:server`.
 *
 * @param c The Hono context (the gate admitted the caller).
 * @param parts The front's servers, gate, legacy sessions and modern parts.
 * @returns The response.
 */
export async function frontPost(c: Context, parts: FrontPostParts): Promise<Response> {
  const request = c.req.raw;
  const serverId = c.req.param("server") ?? "";
  const principal = parts.gate.principalOf(request);
  if (!isJson(request.headers.get("content-type"))) {
    return respond(
      c,
      refusal(415, null, -32000, "Unsupported Media Type: the body must be application/json"),
    );
  }
  const server = parts.servers.get(serverId);
  const limits = server?.policy ?? POLICY_DEFAULTS;
  const body = await readRequestBytes(request, limits.maxMessageBytes);
  (c.env as { [BODY_READ]?: BodyRead } | undefined)?.[BODY_READ]?.();
  if (body === "over_limit") {
    return respond(c, refusal(413, null, -32600, tooLarge("Request body", limits.maxMessageBytes)));
  }
  if (body === "incomplete") {
    return respond(c, refusal(400, null, -32700, "Parse error: the request body was not received in full"));
  }
  const text = utf8(body);
  if (text === undefined) {
    return respond(c, refusal(400, null, -32700, "Parse error: the request body is not valid UTF-8"));
  }
  const parsed = parseDownstream(text, limits.maxJsonDepth);
  if ("status" in parsed) {
    // A 2025 caller's garbled answer to a request the front sent it: the request is answered
    // refused now, not left to its deadline (minutes, for a form).
    const { answer } = parsed;
    if (
      server !== undefined && answer !== undefined && classifyDownstream(answer, request.headers) === "legacy"
    ) {
      await parts.serveLegacy({ request, serverId, message: answer, principal });
    }
    return respond(c, parsed);
  }
  const era = classifyDownstream(parsed.message, request.headers);
  if (typeof era !== "string") return respond(c, era);
  const refused = server === undefined
    ? undefined
    : parts.gate.accessRefusal(c, parsed.message, server, principal);
  // A call stopped here is a call that failed, for the operator as for any.
  const reportRefused = (status: number, error: JsonRpcErrorObject, failure: unknown) => {
    const { message } = parsed;
    if (!("id" in message) || !("method" in message) || !MRTR_METHODS.has(message.method)) return;
    const { internals } = parts.modern;
    reportCall(internals, {
      server: serverId,
      request: { message, params: message.params ?? {}, principal },
      outcome: { kind: "error", status, error },
      failure,
      startedAt: internals.clock.now(),
    });
  };
  if (refused !== undefined) {
    const failure = new ClientError("policy", refused.error.message, { code: refused.error.code });
    reportRefused(refused.response.status, refused.error, failure);
    return refused.response;
  }
  const unnamed = server === undefined ? undefined : unnamedCall(parsed.message);
  if (unnamed !== undefined) {
    reportRefused(200, unnamed.error, undefined);
    return respond(c, refusal(200, unnamed.id, unnamed.error.code, unnamed.error.message));
  }
  if (era === "legacy") {
    return await parts.serveLegacy({ request, serverId, message: parsed.message, principal });
  }
  const read = readDownstreamRequest(parsed.message, request.headers);
  if (read === "notification") return c.body(null, 202);
  if ("status" in read) {
    // A call refused for its headers or _meta (-32020, -32602): the gateway's own refusal.
    if (server !== undefined && read.body !== undefined) {
      reportRefused(read.status, read.body.error, undefined);
    }
    return respond(c, read);
  }
  if (server === undefined) {
    return respond(
      c,
      refusal(404, read.message.id, -32601, unknownServer(serverId)),
    );
  }
  // The principal first (read has none): V8 builds an object slowly when keys follow a spread
  // that opens it.
  return await frontModernPost(c, server, { principal, ...read }, parts.modern);
}

/**
 * A `tools/call` whose `name` is not a string, refused `-32602`: the caller is held to its tool
 * by that name (`access`, the listing, `Mcp-Name`), so a call naming none it can be checked by
 * never goes upstream, where a server might read `["echo"]` as `"echo"`.
 */
function unnamedCall(
  message: JsonRpcMessage,
): { readonly id: RequestId; readonly error: JsonRpcErrorObject } | undefined {
  if (!isRequest(message) || message.method !== "tools/call") return undefined;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  if (typeof name === "string") return undefined;
  const text = `Invalid params: tools/call expected "name" to be a string, received ${describeValue(name)}`;
  return { id: message.id, error: { code: -32602, message: text } };
}

/** JSON text is UTF-8 (RFC 8259 §8.1): a byte that is not is refused, never replaced with U+FFFD. */
const decoder = new TextDecoder("utf-8", { fatal: true });

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/json\s*(;|$)/i.test(contentType.trim());
}
