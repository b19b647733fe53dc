/**
 * The front's legacy face: `/mcp/<server>` as a 2025-11-25 / 2025-06-18 Streamable HTTP server for
 * hosts that open with `initialize`. A session is made by `initialize` (its id in `Mcp-Session-Id`,
 * 16 random bytes), lives in this process, and ends with `DELETE`, after `sessionIdleTimeout` unused,
 * or when the gateway closes; each server has at most `maxSessions` ({@linkcode CappedSessions}: `503`
 * while all are in use). The transport's rules, to the letter: `Accept` must admit JSON and SSE
 * (`406`), the body must be JSON (`415`), a request other than `initialize` needs a session (`400`),
 * an unknown or ended session is `404`, an unsupported `MCP-Protocol-Version` is `400`, the GET stream
 * admits one connection (`409`), and a JSON-RPC response or notification is `202`. An error answer to
 * a POSTed request carries its id, as JSON-RPC and every revision's schema require.
 *
 * @module
 */
import type { FrontSignIn } from "./front-sign-in.ts";
import { codecs } from "../_internal/encoding.ts";
import { decodeClientCapabilities } from "../protocol/capabilities.ts";
import { isRequest, type JsonObject, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.ts";
import { LEGACY_PROTOCOL_VERSIONS, type LegacyProtocolVersion } from "../protocol/versions.ts";
import { CappedSessions } from "./_capped-sessions.ts";
import { CallerSession, type CallerSessionInit, jsonError } from "./caller-session.ts";
import { json } from "./sse-stream.ts";
import type { FrontServer } from "./front-server.ts";
import { type Principal, principalKey } from "./principal.ts";
import { requestOrigin } from "./_request-origin.ts";
import { unknownServer } from "./downstream-request.ts";
import { accepts } from "./_accept.ts";

/** The header that carries a session's id. */
export const SESSION_HEADER = "mcp-session-id";

/** What the legacy face needs: its servers, the callers' sign-in, and what every session is made with. */
export interface LegacyCallersOptions extends
  Pick<
    CallerSessionInit,
    "upstreams" | "clock" | "timers" | "decisions" | "client" | "assigns" | "heartbeat"
  > {
  readonly servers: ReadonlyMap<string, FrontServer>;
  /** Each caller's sign-in to servers that sign in per person. */
  readonly signIn?: FrontSignIn | undefined;
}

/** A legacy request, its body already read and parsed (POST) or none (GET, DELETE). */
export interface LegacyRequest {
  /** The HTTP request (its headers, method and signal; its body is not read again). */
  readonly request: Request;
  /** The server's id from the path. */
  readonly serverId: string;
  /** The POSTed message. */
  readonly message?: JsonRpcMessage;
  /**
   * The id to give the session an `initialize` makes, instead of a random one: where the
   * session lives was chosen by it (a Workers Durable Object). Set only by sluice itself.
   */
  readonly sessionId?: string;
  /**
   * Who the caller is (the gateway's `auth`). A session belongs to the principal that opened it:
   * another's requests with its id are answered as for an unknown session (`404`).
   */
  readonly principal?: Principal | undefined;
}

/** The sessions of the front's legacy callers. */
export class LegacyCallers {
  readonly #options: LegacyCallersOptions;
  /** Each server's sessions, by id. */
  readonly #sessions = new Map<string, CappedSessions<string, CallerSession>>();
  /** Whether `drain` began: a new session's GET stream ends at once, and no new request is taken. */
  #draining = false;

  /** @param options The servers, upstreams, clock and timers. */
  constructor(options: LegacyCallersOptions) {
    this.#options = options;
  }

  /**
   * Serves one legacy request.
   *
   * @param input The request, its server, and (POST) its message.
   * @returns The response.
   */
  async handle(input: LegacyRequest): Promise<Response> {
    const { request, serverId } = input;
    const id = answerIdOf(input.message);
    const server = this.#options.servers.get(serverId);
    if (server === undefined) {
      return jsonError(404, id, -32601, unknownServer(serverId));
    }
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
      return jsonError(
        400,
        id,
        -32022,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 32))}`,
        { supported: [...LEGACY_PROTOCOL_VERSIONS], requested: version.slice(0, 32) },
      );
    }
    if (request.method === "POST") return await this.#post(input, server);
    if (request.method === "GET" && !accepts(request.headers.get("accept"), "text/event-stream", true)) {
      return jsonError(406, null, -32000, "Not Acceptable: the GET stream needs Accept: text/event-stream");
    }
    const found = this.#find(request.headers.get(SESSION_HEADER), input);
    if (found instanceof Response) return found;
    if (request.method === "GET") return found.listen(request.headers.get("last-event-id"));
    this.#sessionsOf(server).delete(found.id);
    // The session is gone at once; its upstream (a stdio child given time to exit) closes behind.
    void found.close();
    return new Response(null, { status: 200 });
  }

  /**
   * Begins the gateway's close: ends every session's standalone GET stream (a closing server must
   * have no response left that never ends), and from now on refuses new requests (`503`) while
   * it still takes the callers' answers to what the front asked them, notifications and
   * resumptions, which the requests in flight may wait for.
   *
   * With `answersCanCome: false` (the server no longer listens, as `deno serve` once signalled)
   * what the front asked the callers is ended instead of waited for ({@linkcode CallerSession.endAsks}).
   *
   * @param options Whether callers can still send their answers. @default { answersCanCome: true }
   * @returns Resolves once no session has a request in flight.
   */
  async drain(options: { readonly answersCanCome?: boolean } = {}): Promise<void> {
    this.#draining = true;
    const settling: Promise<void>[] = [];
    for (const sessions of this.#sessions.values()) {
      for (const session of sessions.values()) {
        session.endStandaloneStream();
        if (options.answersCanCome === false) session.endAsks();
        settling.push(session.settled());
      }
    }
    await Promise.all(settling);
  }

  /** Closes every session (the gateway is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((sessions) => sessions.close()));
  }

  async #post(input: LegacyRequest, server: FrontServer): Promise<Response> {
    const { request, message } = input;
    const accept = request.headers.get("accept");
    if (!accepts(accept, "application/json", true) || !accepts(accept, "text/event-stream", true)) {
      return jsonError(
        406,
        answerIdOf(message),
        -32000,
        "Not Acceptable: the client must accept both application/json and text/event-stream",
      );
    }
    if (message === undefined) return jsonError(400, null, -32600, "Invalid request: no message");
    if (this.#draining && isRequest(message)) return closingRefusal(message.id);
    if (isRequest(message) && message.method === "initialize") return await this.#initialize(input, server);
    const found = this.#find(request.headers.get(SESSION_HEADER), input);
    if (found instanceof Response) return found;
    // The request's own principal: its token may carry other scopes or claims than the one that
    // opened the session (the same subject, as #own checked).
    return await found.handle(message, input.principal);
  }

  async #initialize(input: LegacyRequest, server: FrontServer): Promise<Response> {
    const { request } = input;
    const message = input.message as JsonRpcMessage & { id: string | number; params?: JsonObject };
    if (this.#own(request.headers.get(SESSION_HEADER), input) !== undefined) {
      return jsonError(400, message.id, -32600, "Invalid request: this session is already initialized");
    }
    const params = message.params ?? {};
    const problem = initializeProblem(params);
    if (problem !== undefined) return jsonError(400, message.id, -32602, `Invalid params: ${problem}`);
    const requested = params.protocolVersion as string;
    const version: LegacyProtocolVersion = (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
      ? requested as LegacyProtocolVersion
      : LEGACY_PROTOCOL_VERSIONS[0] ?? "2025-11-25";
    // Capabilities that break the agreed version's schema are refused, as a modern caller's are:
    // taking none would leave the host without what it declared, untold.
    const capabilities = decodeClientCapabilities(version, params.capabilities);
    if (!capabilities.ok) {
      const { path, expected, received } = capabilities;
      return jsonError(
        400,
        message.id,
        -32602,
        `Invalid params: capabilities${path.slice(1)}: expected ${expected}, received ${received}`,
      );
    }
    const sessions = this.#sessionsOf(server);
    if (!sessions.makeRoom(principalKey(input.principal))) {
      return jsonError(503, message.id, -32000, sessions.refusal);
    }
    const id = input.sessionId ?? codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
    const { servers: _servers, signIn, ...shared } = this.#options;
    const session = new CallerSession({
      ...shared,
      id,
      server,
      version,
      capabilities: capabilities.value,
      principal: input.principal,
      fetch: signIn?.fetchFor(server.policy.server, input.principal, requestOrigin(request)),
    });
    sessions.set(id, session);
    if (this.#draining) session.endStandaloneStream();
    const answer = await session.start(message.id, request.signal);
    if ("error" in answer) {
      sessions.delete(id);
      await session.close();
      return json(answer);
    }
    const response = json(answer);
    response.headers.set(SESSION_HEADER, id);
    return response;
  }

  #sessionsOf(server: FrontServer): CappedSessions<string, CallerSession> {
    const sessions = this.#sessions.get(server.policy.server) ??
      new CappedSessions(server.policy, "sessions", this.#options);
    this.#sessions.set(server.policy.server, sessions);
    return sessions;
  }

  /**
   * The caller's session named by `Mcp-Session-Id`, or the error answer (`400` without the
   * header, `404` for no session of the caller's), with the POSTed request's id.
   */
  #find(sessionId: string | null, input: LegacyRequest): CallerSession | Response {
    if (sessionId === null) {
      return jsonError(
        400,
        answerIdOf(input.message),
        -32000,
        "Bad Request: the Mcp-Session-Id header is required (send initialize first)",
      );
    }
    return this.#own(sessionId, input) ??
      jsonError(404, answerIdOf(input.message), -32001, "Session not found: initialize a new session");
  }

  /**
   * The caller's session with this id on the request's server; another server's or caller's is no
   * session here, untold: holding a session's id is not being its caller.
   */
  #own(id: string | null, input: LegacyRequest): CallerSession | undefined {
    const session = id === null ? undefined : this.#sessions.get(input.serverId)?.get(id);
    return session?.owner === principalKey(input.principal) ? session : undefined;
  }
}

/**
 * The answer of a closing gateway to a new request: `503`, a JSON-RPC error. Not part of the
 * public API.
 *
 * @param id The request's id, or `null` when it is not read.
 * @returns A new response.
 * @example
 * ```ts
 * import { closingRefusal } from "./legacy-callers.ts";
 * console.log(closingRefusal(7).status); // 503
 * ```
 */
export function closingRefusal(id: RequestId | null): Response {
  return jsonError(
    503,
    id,
    -32000,
    "Service Unavailable: this gateway is closing and takes no new request, expected only answers to what it asked on a session: send the request again once it has restarted",
  );
}

/**
 * The id an error answer to a legacy request carries: a POSTed request's, else none (a
 * notification, a response, a GET or a DELETE has no id to answer).
 *
 * @param message The POSTed message, if any.
 * @returns Its id, or `null`.
 */
function answerIdOf(message: JsonRpcMessage | undefined): RequestId | null {
  return message !== undefined && isRequest(message) ? message.id : null;
}

/** What is wrong with `initialize` params, or `undefined`. */
function initializeProblem(params: JsonObject): string | undefined {
  if (typeof params.protocolVersion !== "string") return '"protocolVersion" must be a string';
  if (typeof params.capabilities !== "object" || params.capabilities === null) {
    return '"capabilities" must be an object';
  }
  const info = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
  if (typeof info !== "object" || info === null || typeof info.name !== "string") {
    return '"clientInfo" must be an object with a "name"';
  }
  return undefined;
}
