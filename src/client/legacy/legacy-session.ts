/**
 * One server spoken to in the legacy era (2025-11-25, 2025-06-18): the `initialize` handshake on a connection
 * (stdio or HTTP), requests and their cancellation, the server's own requests run as supervised jobs through
 * the chain, its notifications, and a new connection after the old one ends.
 *
 * @module
 */
import type { Chain } from "../../chain/chain.ts";
import type { Timers } from "../../_internal/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CompiledPolicy } from "../../policy/compile-policy.ts";
import {
  decodeInitializeResult,
  encodeInitializeParams,
  INITIALIZED_NOTIFICATION,
} from "../../protocol/lifecycle.ts";
import {
  createRequestIds,
  encodeNotification,
  encodeRequest,
  encodeResult,
  isRequest,
  type JsonObject,
  type JsonRpcNotification,
} from "../../protocol/jsonrpc.ts";
import type { Implementation } from "../../protocol/meta.ts";
import { LEGACY_PROTOCOL_VERSIONS, type LegacyProtocolVersion } from "../../protocol/versions.ts";
import { quote } from "../../_internal/quote.ts";
import { awaitShared, joinable, linkSignals, sharedWork } from "../../_internal/signals.ts";
import { abortError, serverError } from "../modern/failure-errors.ts";
import { deliverProgress } from "../../notify/progress-delivery.ts";
import {
  type ConnectionClosed,
  ConnectionError,
  type ConnectionFactory,
  type LegacyConnection,
  type ServerMessage,
} from "../../transport/legacy-connection.ts";
import { callFor, type CallRecord, idKey, ServerRequestSupervisor } from "./server-request-supervisor.ts";
import type { CallerHooks, ServerOffer } from "../server-session.ts";
import type { Principal } from "../../handler/handler.ts";
import { atOrAbove, type LoggingLevel } from "../../protocol/logging-level.ts";
import { clientCapabilitiesFor } from "../../handler/capabilities.ts";
import { isEnded } from "../../protocol/task-status.ts";

/**
 * The level a stdio server's stderr line is logged at. A line says nothing of its severity and most servers
 * write banners there, so it counts as `info` (dropped at `"notice"` and above); ranking it higher would let
 * every banner through a `"warning"` floor. The price: a crash trace on stderr is dropped there too (the
 * connection's error still names the exit code).
 */
export const STDERR_LOG_LEVEL: LoggingLevel = "info";

/** What a legacy session needs from its client. */
export interface LegacySessionOptions {
  readonly serverId: string;
  readonly policy: CompiledPolicy;
  readonly chain: Chain;
  readonly clientInfo: Implementation;
  readonly factory: ConnectionFactory;
  /** Whether the transport is one channel (stdio), so unrelated messages tie to the one call in flight. */
  readonly singleChannel: boolean;
  /**
   * Whether the front pools the session for 2026 calls: the server's requests tied to no call tie to the one
   * call in flight too (there is no other channel to ask on). @default false
   */
  readonly pooled?: boolean | undefined;
  readonly timers: Timers;
  readonly assigns: Readonly<Record<string, unknown>>;
  /** Receives the notifications the session does not consume itself, with the connection's number. */
  readonly notify: (notification: JsonRpcNotification, connection: number) => void;
  /** Receives the server's stderr lines (stdio) while the session's log level lets them through. */
  readonly onStderr?: (line: string) => void;
  /** The front's hooks when the session serves one of its callers (what to declare, where unrelated messages go). */
  readonly caller?: CallerHooks | undefined;
  /**
   * The front's caller the session belongs to: the server's requests tied to no call run as theirs.
   * @default none (the client's own session)
   */
  readonly principal?: Principal | undefined;
}

/** What the handshake told: the negotiated version, the server's capabilities and instructions. */
export interface Handshake extends ServerOffer {
  readonly version: LegacyProtocolVersion;
}

/** A live handshake: the connection, the negotiated version and its supervisor. */
interface Ready {
  /** The connection's number (its log budget is its own). */
  readonly number: number;
  readonly connection: LegacyConnection;
  readonly version: LegacyProtocolVersion;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  readonly supervisor: ServerRequestSupervisor;
  /** Whether the handshake declared `roots.listChanged`: only then may the session say they changed. */
  readonly listsRootChanges: boolean;
}

/** Options of one request. */
export interface LegacyRequestOptions {
  /** Aborts the request: the server gets `notifications/cancelled`. */
  readonly signal: AbortSignal;
  /** Ties the request to a call record (server requests on its stream pause its deadline). */
  readonly call?: Omit<CallRecord, "id">;
  /**
   * Progress notifications for this request, and for the task it becomes (a `CreateTaskResult`)
   * until the task ends: "the original token stays valid until a terminal status".
   */
  readonly onProgress?: ((params: JsonObject) => void) | undefined;
}

/**
 * The most tasks whose progress a session still hears, the oldest forgotten past it: a bound for tasks held
 * and never polled again.
 */
const MAX_TASK_PROGRESS = 1024;

/** A legacy-era server. */
export class LegacySession {
  readonly #options: LegacySessionOptions;
  readonly #ids: () => number = createRequestIds();
  readonly #calls = new Map<string, CallRecord>();
  readonly #progress = new Map<string, (params: JsonObject) => void>();
  /** The progress token of each task a request became, until the task ends (see `#endTask`). */
  readonly #taskTokens = new Map<string, string>();
  #ready: Promise<Ready> | undefined;
  /** What #ready resolved to, once it has: compared synchronously when a connection ends. */
  #live: Ready | undefined;
  /** Handshakes not settled yet, a stopped one included: `close()` waits for them. */
  readonly #attempts = new Set<Promise<Ready>>();
  /** The ends (DELETE) of connections whose handshake failed: `close()` waits for them. */
  readonly #ending = new Set<Promise<void>>();
  /** The handshake's signal: shared by the requests waiting for it, so owned by none of them. */
  readonly #lifetime = new AbortController();
  #closed = false;
  #connections = 0;
  #logLevel: LoggingLevel;

  /** @param options What the session needs from its client. */
  constructor(options: LegacySessionOptions) {
    this.#options = options;
    this.#logLevel = options.caller?.logLevel ?? options.policy.logLevel;
  }

  /** The server's id. */
  get serverId(): string {
    return this.#options.serverId;
  }

  /** The chain of this server. */
  get chain(): Chain {
    return this.#options.chain;
  }

  /**
   * The negotiated version, the server's capabilities and instructions, once connected.
   *
   * @param signal Ends this call's wait for the handshake.
   * @param method The call that waits, named when it gives up while the handshake runs.
   * @returns What the handshake told.
   * @throws {ClientError} What the handshake failed with, or the call's cancellation or deadline.
   */
  async handshake(signal: AbortSignal, method = "initialize"): Promise<Handshake> {
    const ready = await this.#connect(signal, method);
    return {
      version: ready.version,
      capabilities: ready.capabilities,
      ...(ready.instructions === undefined ? {} : { instructions: ready.instructions }),
    };
  }

  /**
   * Sends one request and returns its result object.
   *
   * @param method The method.
   * @param params The params (never mutated).
   * @param options Signal, call record and progress callback.
   * @returns The result object.
   * @throws {ClientError} `"server"`, `"transport"`, `"protocol"`, `"timeout"` or `"cancelled"`.
   */
  async request(method: string, params: JsonObject, options: LegacyRequestOptions): Promise<JsonObject> {
    let reconnected = false;
    for (;;) {
      const ready = await this.#connect(options.signal, method);
      // Aborted before it is written: never sent, so no id and no cancellation naming a request the server
      // never saw.
      if (options.signal.aborted) throw abortError(this.serverId, method, options.signal.reason);
      const id = this.#ids();
      const key = idKey(id);
      const token = options.onProgress === undefined ? undefined : `sluice-${id}`;
      const sent = token === undefined
        ? params
        : Object.assign({}, params, { _meta: Object.assign({}, params._meta, { progressToken: token }) });
      if (options.call !== undefined) this.#calls.set(key, { id, ...options.call });
      if (token !== undefined && options.onProgress !== undefined) {
        this.#progress.set(token, options.onProgress);
      }
      // Whether the token now belongs to the task the request became.
      let held = false;
      try {
        const response = await ready.connection.request(encodeRequest(id, method, sent), {
          signal: options.signal,
        });
        if (!("result" in response)) {
          if (method === "tasks/result") this.#endTask(params.taskId);
          throw serverError(this.serverId, method, response.error);
        }
        const { result } = response;
        const task = (result.task as { taskId?: unknown } | undefined)?.taskId;
        if (token !== undefined && typeof task === "string") {
          this.#holdTaskToken(task, token);
          held = true;
        }
        if (
          method === "tasks/result" || method === "tasks/cancel" ||
          (method === "tasks/get" && isEnded(result.status))
        ) {
          this.#endTask(params.taskId);
        }
        return result;
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        if (error.kind === "aborted") {
          ready.connection.notify(
            encodeNotification("notifications/cancelled", {
              requestId: id,
              reason: "cancelled by the client",
            }),
          ).catch(() => {});
          throw abortError(this.serverId, method, options.signal.reason);
        }
        // A call whose signal fired first fails as that signal says, however the connection then failed it
        // (`close()` aborts every call, then closes the connection).
        if (options.signal.aborted) throw abortError(this.serverId, method, options.signal.reason);
        // Given up while the connection lives (an unresumable stream cut, a broken answer): the server may
        // still be running it, and a disconnection alone does not cancel, so it is told.
        if (error.kind === "protocol" || (error.kind === "http" && error.status === undefined)) {
          ready.connection.notify(
            encodeNotification("notifications/cancelled", {
              requestId: id,
              reason: "the client gave up on it: its answer could not be read",
            }),
          ).catch(() => {});
        }
        // Only a 404 to a request carrying a session id means the server forgot the session (2025-11-25
        // transports): then a new connection and handshake, and this request again.
        if (error.kind === "session_expired" && !reconnected) {
          reconnected = true;
          if (this.#live === ready) {
            this.#ready = undefined;
            this.#live = undefined;
          }
          continue;
        }
        throw connectionFailure(this.serverId, error);
      } finally {
        if (this.#calls.delete(key)) ready.supervisor.callEnded();
        if (token !== undefined && !held) this.#progress.delete(token);
      }
    }
  }

  /**
   * Asks the server for logs at this level (`logging/setLevel`), now when connected and the server
   * offers logging, and on every later connection.
   *
   * @param level The level.
   */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.#logLevel = level;
    const ready = await this.#ready?.catch(() => undefined);
    if (ready !== undefined) this.#sendLogLevel(ready);
  }

  /**
   * Tells the server the roots changed (`notifications/roots/list_changed`), only when connected and the
   * handshake declared `roots.listChanged`: otherwise the server was promised none.
   *
   * @param signal The caller's signal, if any (the write or POST has its `callTimeout` besides).
   * @throws {ClientError} `"timeout"` or `"cancelled"` when the write ran out of time or `signal`
   *   fired, `"transport"` or `"protocol"` when the server refused it.
   */
  async rootsChanged(signal?: AbortSignal): Promise<void> {
    const method = "notifications/roots/list_changed";
    const ready = await this.#ready?.catch(() => undefined);
    if (ready?.listsRootChanges !== true) return;
    try {
      await ready.connection.notify(encodeNotification(method), signal === undefined ? {} : { signal });
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      throw error.kind === "aborted"
        ? abortError(this.serverId, method, signal?.aborted === true ? signal.reason : error.cause)
        : connectionFailure(this.serverId, error);
    }
  }

  /** Keeps hearing a request's progress for the task it became, within {@linkcode MAX_TASK_PROGRESS}. */
  #holdTaskToken(taskId: string, token: string): void {
    // A server that gives an id again (a new session's task) ends the old task's hearing.
    this.#endTask(taskId);
    this.#taskTokens.set(taskId, token);
    if (this.#taskTokens.size > MAX_TASK_PROGRESS) {
      this.#endTask(this.#taskTokens.keys().next().value);
    }
  }

  /** Stops hearing a task's progress: it ended (its status, its result, its cancellation). */
  #endTask(taskId: unknown): void {
    if (typeof taskId !== "string") return;
    const token = this.#taskTokens.get(taskId);
    if (token === undefined) return;
    this.#taskTokens.delete(taskId);
    this.#progress.delete(token);
  }

  /** Ends the connection, if any, and a handshake in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#taskTokens.clear();
    this.#progress.clear();
    this.#lifetime.abort(new ClientError("cancelled", `Server "${this.serverId}": the session is closed`));
    await Promise.allSettled(this.#attempts);
    const ready = await this.#ready?.catch(() => undefined);
    this.#ready = undefined;
    this.#live = undefined;
    await Promise.all([ready?.connection.close(), ...this.#ending]);
  }

  /**
   * The live handshake, made first when there is none. Being shared, it runs under its own signal (aborted by
   * `close()` or once every waiting request gave up) and `callTimeout`; a request that gives up fails alone,
   * with the cancellation of its own `method`. A failed handshake fails its requests at once and ends its
   * connection meanwhile, so a later request makes a new handshake.
   */
  #connect(signal: AbortSignal, method: string): Promise<Ready> {
    if (this.#closed) {
      return Promise.reject(new ClientError("config", `Server "${this.serverId}": the session is closed`));
    }
    const cancelled = (reason: unknown) => abortError(this.serverId, method, reason);
    let attempt = joinable(this.#ready);
    if (attempt === undefined) {
      if (signal.aborted) return Promise.reject(cancelled(signal.reason));
      const work = sharedWork(this.#lifetime.signal);
      const started = work.share(this.#openUnderDeadline(work.signal));
      attempt = this.#ready = started;
      this.#attempts.add(started);
      started.catch(() => {
        if (this.#ready === started) this.#ready = undefined;
      }).finally(() => this.#attempts.delete(started));
    }
    return awaitShared(attempt, { signal, cancelled });
  }

  /** {@linkcode LegacySession.#open} under the handshake's signal and the policy's `callTimeout`. */
  async #openUnderDeadline(signal: AbortSignal): Promise<Ready> {
    const { policy, timers } = this.#options;
    const leg = linkSignals([signal], { ms: policy.callTimeoutMs, which: "leg", timers });
    try {
      return await this.#open(leg.signal);
    } finally {
      leg.dispose();
    }
  }

  /** Ends the connection of a failed handshake without waiting, `close()` waiting for it instead. */
  #end(connection: LegacyConnection): void {
    const ending: Promise<void> = connection.close().catch(() => {}).finally(() =>
      this.#ending.delete(ending)
    );
    this.#ending.add(ending);
  }

  async #open(signal: AbortSignal): Promise<Ready> {
    const { chain, clientInfo, factory, policy, onStderr } = this.#options;
    // Filled once the handshake ends; messages that come before it wait in `pending`.
    const state: { ready?: Ready } = {};
    const pending: ServerMessage[] = [];
    const connection = factory({
      onServerMessage: (message) =>
        state.ready === undefined ? pending.push(message) : this.#onServerMessage(state.ready, message),
      onClose: (closed) => this.#onClose(state.ready, closed),
      ...(onStderr === undefined ? {} : {
        onStderr: (line: string) => {
          // Read at each line: the caller may change the level while the session runs.
          if (atOrAbove(STDERR_LOG_LEVEL, this.#logLevel)) onStderr(line);
        },
      }),
    });
    const offered = LEGACY_PROTOCOL_VERSIONS[0] ?? "2025-11-25";
    const id = this.#ids();
    const caller = this.#options.caller;
    // A pooled session's roots change for no one: its callers speak 2026-07-28, which has no such
    // notification.
    const declared = caller !== undefined
      ? clientCapabilitiesFor(offered, caller.declared)
      : this.#options.pooled === true
      ? clientCapabilitiesFor(offered, { ...chain.declared, rootsListChanged: false })
      : chain.capabilities(offered);
    const params = encodeInitializeParams(offered, declared, clientInfo);
    let response;
    try {
      response = await connection.request(encodeRequest(id, "initialize", params as unknown as JsonObject), {
        signal,
      });
    } catch (error) {
      this.#end(connection);
      if (!(error instanceof ConnectionError)) {
        throw new ClientError(
          "transport",
          `Server "${this.serverId}": initialize failed: ${(error as Error).message}`,
          { serverId: this.serverId, cause: error },
        );
      }
      if (error.kind === "aborted") throw abortError(this.serverId, "initialize", signal.reason);
      // Classed as a call's failure is: every session starts here, so an outage is most often told from this
      // request.
      throw connectionFailure(this.serverId, error, "initialize failed: ");
    }
    if (!("result" in response)) {
      this.#end(connection);
      throw serverError(this.serverId, "initialize", response.error);
    }
    const result = decodeInitializeResult(response.result);
    const version = result.ok ? result.value.protocolVersion : undefined;
    if (!result.ok || !LEGACY_PROTOCOL_VERSIONS.includes(version as LegacyProtocolVersion)) {
      this.#end(connection);
      throw new ClientError(
        "protocol",
        result.ok
          ? `Server "${this.serverId}" answered initialize with protocol version ${
            quote(String(version), 32)
          }, expected one of ${LEGACY_PROTOCOL_VERSIONS.map((v) => `"${v}"`).join(", ")}`
          : `Server "${this.serverId}" sent an invalid initialize result: ${result.message}`,
        { serverId: this.serverId },
      );
    }
    const negotiated = version as LegacyProtocolVersion;
    // The version first: every message after the handshake carries MCP-Protocol-Version on HTTP.
    connection.negotiated(negotiated);
    try {
      // Under the handshake's signal: a server that never accepts it must not hold the handshake past its
      // callTimeout.
      await connection.notify(encodeNotification(INITIALIZED_NOTIFICATION), { signal });
    } catch (error) {
      // Refused (HTTP: not 202) or unanswered: the session is not usable, so it ends (HTTP: DELETE, which
      // also stops the GET stream).
      this.#end(connection);
      if (!(error instanceof ConnectionError)) throw error;
      throw error.kind === "aborted"
        ? abortError(this.serverId, INITIALIZED_NOTIFICATION, signal.reason)
        : connectionFailure(this.serverId, error);
    }
    // Stopped meanwhile: another handshake may have started since, so this one must not end up live and never
    // closed.
    if (signal.aborted) {
      this.#end(connection);
      throw abortError(this.serverId, INITIALIZED_NOTIFICATION, signal.reason);
    }
    const supervisor = new ServerRequestSupervisor({
      chain,
      version: negotiated,
      maxServerRequests: policy.maxServerRequests,
      assigns: this.#options.assigns,
      principal: this.#options.principal,
      tieToOnlyCall: this.#options.singleChannel || this.#options.pooled === true,
      calls: this.#calls,
      respond: (message) => connection.respond(message),
      onDeferred: caller?.onDeferred,
    });
    const ready: Ready = {
      number: ++this.#connections,
      connection,
      version: negotiated,
      capabilities: result.value.capabilities,
      instructions: result.value.instructions,
      supervisor,
      listsRootChanges: declared.roots?.listChanged === true,
    };
    state.ready = ready;
    this.#live = ready;
    for (const message of pending.splice(0)) this.#onServerMessage(ready, message);
    this.#sendLogLevel(ready);
    return ready;
  }

  /** Sends `logging/setLevel` under the policy's `callTimeout`: nobody waits for its answer. */
  #sendLogLevel(ready: Ready): void {
    if (ready.capabilities.logging === undefined) return;
    const { policy, timers } = this.#options;
    const setLevel = encodeRequest(this.#ids(), "logging/setLevel", { level: this.#logLevel });
    const leg = linkSignals([this.#lifetime.signal], { ms: policy.callTimeoutMs, which: "leg", timers });
    ready.connection.request(setLevel, { signal: leg.signal }).catch(() => {}).finally(() => leg.dispose());
  }

  #onServerMessage(ready: Ready, { message, related }: ServerMessage): void {
    if (isRequest(message)) {
      if (message.method === "ping") {
        ready.connection.respond(encodeResult(message.id, {})).catch(() => {});
        return;
      }
      ready.supervisor.handle(message, related);
      return;
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    switch (message.method) {
      case "notifications/cancelled":
        ready.supervisor.cancel(params.requestId, params.reason);
        return;
      case "notifications/tasks/status":
        if (isEnded(params.status)) this.#endTask(params.taskId);
        break;
      case "notifications/progress": {
        const listener = typeof params.progressToken === "string"
          ? this.#progress.get(params.progressToken)
          : undefined;
        if (listener !== undefined) return deliverProgress(this.serverId, listener, params);
        break;
      }
    }
    // The front relays a notification to the caller it concerns in a microtask, as progress is delivered, so
    // the caller gets both in the server's order; the client's queue hears it too.
    const relay = callFor(this.#calls, related, this.#options.singleChannel)?.onNotification ??
      this.#options.caller?.onNotification;
    if (relay !== undefined) queueMicrotask(() => relay(message));
    this.#options.notify(message, ready.number);
  }

  #onClose(ready: Ready | undefined, closed: ConnectionClosed): void {
    ready?.supervisor.abortAll(closed.reason);
    if (ready !== undefined && this.#live === ready) {
      this.#ready = undefined;
      this.#live = undefined;
    }
  }
}

/**
 * The error for a request or notification the connection failed: a `"protocol"` error when the
 * server broke the wire, else a `"transport"` one, with the HTTP status as `data` when there was one.
 *
 * @param serverId The server.
 * @param error What the connection failed with.
 * @param what What failed, before the connection's message (`"initialize failed: "`).
 * @returns The error, naming the server.
 */
function connectionFailure(serverId: string, error: ConnectionError, what = ""): ClientError {
  return new ClientError(
    error.kind === "protocol" ? "protocol" : "transport",
    `Server "${serverId}": ${what}${error.message}`,
    {
      serverId,
      cause: error,
      ...(error.status === undefined ? {} : { data: { status: error.status } }),
    },
  );
}
