/**
 * Legacy callers (2025-11-25, 2025-06-18) on Cloudflare Workers: one Durable Object per session. The
 * stateless edge mints a session id at `initialize` and forwards the session's requests to the object
 * `idFromName(id)`, which serves them in memory with the front's legacy handling; requests that name
 * no minted id are answered at the edge as the in-process front answers them.
 *
 * @module
 */
import type { Principal } from "../front/principal.ts";
import { codecs } from "../_internal/encoding.ts";
import { jsonError } from "../front/caller-session.ts";
import { type LegacyRequest, SESSION_HEADER } from "../front/legacy-callers.ts";
import { getOrDeleteNotAllowed } from "../front/create-front.ts";
import { isRequest, type JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";

/** The name of the Durable Object binding that holds legacy sessions. */
export const SESSIONS_BINDING = "SLUICE_SESSIONS";

/** Headers only the edge sets on what it forwards to a session's object (stripped from callers'). */
const INTERNAL_PREFIX = "x-sluice-internal-";
/** The server id from the path, URI-encoded. */
const SERVER_HEADER = `${INTERNAL_PREFIX}server`;
/** The id the session an `initialize` opens must get: the one its object was picked by. */
const NEW_SESSION_HEADER = `${INTERNAL_PREFIX}new-session`;
/** The caller's principal as the edge authenticated it (JSON, URI-encoded): the object trusts it. */
const PRINCIPAL_HEADER = `${INTERNAL_PREFIX}principal`;
/** The shape of the ids the edge mints (16 bytes, base64url): anything else names no session. */
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** Serves one legacy request. */
export type LegacyHandler = (request: LegacyRequest) => Promise<Response>;

/** The part of a Durable Object namespace binding the Worker uses. */
export interface SessionsBinding {
  /** The id of the object named `name` (a session's id). */
  idFromName(name: string): unknown;
  /** A stub of the object with that id. */
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** A Durable Object holding one legacy session: what the Workers runtime constructs. */
export interface SessionsObject {
  /**
   * Serves one request the edge forwarded.
   *
   * @param request The forwarded request.
   * @returns The session's response (SSE streams included).
   */
  fetch(request: Request): Promise<Response>;
}

/** The Durable Object class: the runtime calls `new Sessions(state, env)`. */
export type SessionsClass<Env> = new (state: unknown, env: Env) => SessionsObject;

/**
 * Whether a binding looks like a Durable Object namespace.
 *
 * @param value The value of `env.SLUICE_SESSIONS`.
 * @returns `true` when it has `idFromName` and `get`.
 * @example
 * ```ts
 * import { isSessionsBinding } from "./_worker-sessions.ts";
 * console.log(isSessionsBinding("SluiceSessions")); // false
 * console.log(isSessionsBinding({ idFromName: () => 1, get: () => ({ fetch }) })); // true
 * ```
 */
export function isSessionsBinding(value: unknown): value is SessionsBinding {
  return typeof value === "object" && value !== null &&
    typeof (value as SessionsBinding).idFromName === "function" &&
    typeof (value as SessionsBinding).get === "function";
}

/**
 * The request without the headers only the edge may set, so that no caller forges them.
 *
 * @param request An incoming request.
 * @returns The same request when it has none of them, else a copy without them.
 * @example
 * ```ts
 * import { withoutInternalHeaders } from "./_worker-sessions.ts";
 * const forged = new Request("https://gate.example/mcp/docs", {
 *   headers: { "x-sluice-internal-new-session": "chosen-by-the-caller", accept: "text/event-stream" },
 * });
 * console.log([...withoutInternalHeaders(forged).headers.keys()]); // ["accept"]
 * ```
 */
export function withoutInternalHeaders(request: Request): Request {
  const internal = [...request.headers.keys()].filter((name) => name.startsWith(INTERNAL_PREFIX));
  if (internal.length === 0) return request;
  const headers = new Headers(request.headers);
  for (const name of internal) headers.delete(name);
  return new Request(request, { headers });
}

/**
 * The edge's `legacySessions`: an `initialize` opens a session in a new object, a minted id goes to
 * its object, the rest to `local`. Without the binding, a legacy POST gets `-32022` naming the
 * binding, a GET or DELETE `405`.
 *
 * @param binding The Durable Object namespace, or `undefined` when the Worker has none.
 * @param local The edge front's in-process handling.
 * @returns The handler to give the front.
 * @example
 * ```ts
 * import { legacyToSessions } from "./_worker-sessions.ts";
 * const serve = legacyToSessions(undefined, () => Promise.resolve(new Response(null, { status: 404 })));
 * const response = await serve({
 *   request: new Request("https://gate.example/mcp/docs", { method: "POST" }),
 *   serverId: "docs",
 *   message: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25" } },
 * });
 * console.log(response.status, (await response.json()).error.code); // 400 -32022
 * ```
 */
export function legacyToSessions(binding: SessionsBinding | undefined, local: LegacyHandler): LegacyHandler {
  if (binding === undefined) return (input) => Promise.resolve(noSessions(input));
  return async (input) => {
    const { message } = input;
    if (message !== undefined && isRequest(message) && message.method === "initialize") {
      return await forward(
        binding,
        codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(16))),
        input,
        true,
      );
    }
    const id = input.request.headers.get(SESSION_HEADER);
    if (id === null || !SESSION_ID.test(id)) return await local(input);
    return await forward(binding, id, input, false);
  };
}

/**
 * The Durable Object class: each object serves forwarded requests with `open(env)`, made on its first.
 *
 * @param open Builds the in-process legacy handling for an `env`.
 * @returns The class.
 * @example
 * ```ts
 * import { sessionsClass } from "./_worker-sessions.ts";
 * const Sessions = sessionsClass(() => () => Promise.resolve(new Response(null, { status: 202 })));
 * const object = new Sessions({}, {});
 * // Only requests the Worker forwarded (with the server's id) are served.
 * console.log((await object.fetch(new Request("https://gate.example/mcp/docs"))).status); // 400
 * ```
 */
export function sessionsClass<Env>(open: (env: Env) => LegacyHandler): SessionsClass<Env> {
  return class SluiceSessions implements SessionsObject {
    readonly #env: Env;
    #handle: LegacyHandler | undefined;

    /**
     * @param _state The object's state (unused: the session lives in memory).
     * @param env The Worker's bindings.
     */
    constructor(_state: unknown, env: Env) {
      this.#env = env;
    }

    async fetch(request: Request): Promise<Response> {
      const server = request.headers.get(SERVER_HEADER);
      let serverId: string | undefined;
      try {
        serverId = server === null ? undefined : decodeURIComponent(server);
      } catch {
        serverId = undefined;
      }
      if (serverId === undefined) {
        return jsonError(
          400,
          null,
          -32600,
          `Invalid request: the session object got a request without a valid "${SERVER_HEADER}" header, expected one forwarded by the Worker`,
        );
      }
      let message: JsonRpcMessage | undefined;
      if (request.method === "POST") {
        try {
          message = JSON.parse(await request.text()) as JsonRpcMessage;
        } catch {
          return jsonError(400, null, -32700, "Parse error: the forwarded body is not JSON");
        }
      }
      const sessionId = request.headers.get(NEW_SESSION_HEADER);
      const principal = principalFrom(request.headers.get(PRINCIPAL_HEADER));
      this.#handle ??= open(this.#env);
      return await this.#handle({
        request,
        serverId,
        ...(message === undefined ? {} : { message }),
        ...(sessionId === null ? {} : { sessionId }),
        ...(principal === undefined ? {} : { principal }),
      });
    }
  };
}

/** The principal the edge forwarded, or `undefined` (none, or not one the edge wrote). */
function principalFrom(header: string | null): Principal | undefined {
  if (header === null) return undefined;
  try {
    const value = JSON.parse(decodeURIComponent(header)) as Partial<Principal> | null;
    if (typeof value?.subject !== "string" || !Array.isArray(value.scopes)) return undefined;
    return Object.freeze({ subject: value.subject, scopes: value.scopes, claims: value.claims ?? {} });
  } catch {
    return undefined;
  }
}

/** Forwards a legacy request to the object of session `id`; its response (a stream too) as it is. */
async function forward(
  binding: SessionsBinding,
  id: string,
  input: LegacyRequest,
  initialize: boolean,
): Promise<Response> {
  const { request, message } = input;
  const headers = new Headers(request.headers);
  // The body is the parsed message written again: its length may differ from the caller's.
  headers.delete("content-length");
  headers.set(SERVER_HEADER, encodeURIComponent(input.serverId));
  if (initialize) headers.set(NEW_SESSION_HEADER, id);
  if (input.principal !== undefined) {
    headers.set(PRINCIPAL_HEADER, encodeURIComponent(JSON.stringify(input.principal)));
  }
  const forwarded = new Request(request.url, {
    method: request.method,
    headers,
    ...(message === undefined ? {} : { body: JSON.stringify(message) }),
  });
  return await binding.get(binding.idFromName(id)).fetch(forwarded);
}

/** A legacy request on a Worker without the binding, answered as a modern-only server answers it. */
function noSessions({ request, message }: LegacyRequest): Response {
  if (request.method !== "POST") return getOrDeleteNotAllowed();
  const asked = message !== undefined && isRequest(message) ? message : undefined;
  const requested = asked?.method === "initialize"
    ? (asked.params as { protocolVersion?: unknown } | undefined)?.protocolVersion
    : request.headers.get("mcp-protocol-version");
  return jsonError(
    400,
    asked?.id ?? null,
    -32022,
    `Unsupported protocol version: this Worker serves only MCP "${MODERN_PROTOCOL_VERSION}"; ${
      LEGACY_PROTOCOL_VERSIONS.map((version) => `"${version}"`).join(" and ")
    } hosts need the Durable Object binding "${SESSIONS_BINDING}" (the class createWorker() returns as "Sessions"), which it does not have`,
    {
      supported: [MODERN_PROTOCOL_VERSION],
      ...(typeof requested === "string" ? { requested: requested.slice(0, 32) } : {}),
    },
  );
}
