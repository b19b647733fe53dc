/**
 * One legacy caller of the front (a host speaking 2025-11-25 or 2025-06-18 Streamable HTTP), from
 * its `initialize` to its `DELETE`: what it declared, its upstream session, its streams, and the
 * requests the front sends it.
 *
 * - Calls (`tools/call`, `resources/read`, `prompts/get`) run upstream with the front's chain; an
 *   input request the handler defers goes to the caller as a JSON-RPC request on that call's
 *   stream (tied to no call, on the GET stream), and the caller's answer gets a handler's
 *   post-checks. One the caller did not declare, or its version cannot carry, is answered upstream
 *   at once as by a client without it; its upstream session declares only what the caller did,
 *   so a server seldom asks one.
 * - Progress reaches the caller under its own token, never going backwards; logs within the
 *   server's log budget, sanitized, at or above its level; the upstream's other notifications on
 *   the GET stream, cleaned as the client's notification subscribers get them.
 * - `notifications/cancelled` from the caller cancels its request upstream and the requests sent
 *   to the caller for it, and the request gets no response, as the cancellation utility says a
 *   receiver should; so does a request whose id a new one reuses. An upstream that cancels a
 *   request sent to the caller makes the front cancel it downstream. A broken connection cancels
 *   nothing: the streams keep their events for a resumption.
 *
 * @module
 */
import * as v from "valibot";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { DecisionSink } from "../chain/decision.ts";
import type { Clock } from "../_internal/clock.ts";
import type { ChainResult } from "../chain/chain.ts";
import type { Timers } from "../_internal/timers.ts";
import {
  awaitShared,
  joinable,
  type LinkedSignal,
  linkSignals,
  openFlow,
  pause,
  sharedWork,
} from "../_internal/signals.ts";
import { abortError } from "../client/modern/failure-errors.ts";
import { ClientError } from "../errors.ts";
import { TASKS_EXTENSION } from "../protocol/tasks.ts";
import { taskIdOf } from "../client/client-methods.ts";
import type { CallContext, CallerHooks, ServerSession } from "../client/server-session.ts";
import { idKey } from "../client/legacy/server-request-supervisor.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import { MRTR_METHODS, type MrtrMethod } from "../protocol/input-required.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { RequestedSchema } from "../protocol/elicitation.ts";
import type { NullProtoRecord } from "../protocol/null-proto-record.ts";
import {
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  isNotification,
  isRequest,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
  RequestIdSchema,
} from "../protocol/jsonrpc.ts";
import { copyOwn } from "../_internal/copy.ts";
import { isLoggingLevel, LOGGING_LEVELS, type LoggingLevel } from "../protocol/logging-level.ts";
import type { LegacyProtocolVersion } from "../protocol/versions.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { LogBudgets } from "../notify/log-budget.ts";
import { codecs } from "../_internal/encoding.ts";
import { describeKind, quote } from "../_internal/quote.ts";
import { effectiveLogLevel, logForCaller, notificationForCaller, resultForCaller } from "./caller-era.ts";
import { risingProgress } from "../notify/progress-delivery.ts";
import { toolsVisibleTo } from "./access.ts";
import { callableTools } from "./callable-tools.ts";
import { type Principal, principalKey } from "./principal.ts";
import { frontServerInfo, offeredCapabilities } from "./_front-info.ts";
import type { FrontServer } from "./front-server.ts";
import type { FrontUpstreams } from "./front-upstreams.ts";
import { endedStreamResponse, json, parseEventId, PostReply, SseStream } from "./sse-stream.ts";
import type { Heartbeat } from "./heartbeat.ts";
import { callerFailure, forHost, upstreamFailure } from "./upstream-failure.ts";
import { undeclaredAnswer, withoutMeta } from "./front-call.ts";
import { type CallFacts, reportCall } from "./_call-decision.ts";
import { checkedRelayResult, FORWARDED_METHODS } from "./_methods.ts";
import { neededBy, withinCallerContext } from "./_caller-needs.ts";

/** How long a closing session waits for its calls to tell their callers they failed. */
const SETTLE_MS = 1000;

/**
 * Relayed only to a legacy upstream: subscriptions (the modern era has none per session) and
 * 2025-11-25 tasks (a modern server's belong to its extension, which a 2025 caller does not speak).
 */
const LEGACY_ONLY: ReadonlySet<string> = new Set([
  "resources/subscribe",
  "resources/unsubscribe",
  "tasks/get",
  "tasks/list",
  "tasks/cancel",
]);

/** The most finished POST streams kept for a resumption, per session. */
const KEPT_STREAMS = 32;

/**
 * The upstream's notifications a caller gets on its GET stream, by its version: those of that
 * version's `ServerNotification` but progress, log entries (each relayed on its own terms) and
 * cancellations (the upstream session's own).
 */
const RELAYED: Readonly<Record<LegacyProtocolVersion, ReadonlySet<string>>> = (() => {
  const changes = [
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
  ];
  return {
    "2025-06-18": new Set(changes),
    "2025-11-25": new Set([...changes, "notifications/tasks/status", "notifications/elicitation/complete"]),
  };
})();

/** The most events kept per stream for a resumption. */
const KEPT_EVENTS = 256;

/** The most bytes a session keeps of its finished call streams, but the newest one's. */
const KEPT_BYTES = 8 * 1024 * 1024;

/** The key of the standalone GET stream. */
const LISTEN_KEY = "0";

/** What a caller session is made from. */
export interface CallerSessionInit {
  /** The session's id (`Mcp-Session-Id`). */
  readonly id: string;
  /** The server it calls. */
  readonly server: FrontServer;
  /** The version negotiated with the caller. */
  readonly version: LegacyProtocolVersion;
  /** What the caller declared in `initialize`. */
  readonly capabilities: ClientCapabilities;
  /** Where its upstream session comes from. */
  readonly upstreams: FrontUpstreams;
  readonly clock: Clock;
  readonly timers: Timers;
  /**
   * Who opened the session (the gateway's `auth` for its `initialize`): its owner, and whom the
   * requests its own upstream session sends tied to no call run as.
   */
  readonly principal?: Principal | undefined;
  /** The caller's sign-in, when the server signs in per person. */
  readonly fetch?: Fetcher | undefined;
  /** Hears each call's decision event, while it listens. */
  readonly decisions?: DecisionSink | undefined;
  /** The client's name, for the events. */
  readonly client?: string;
  /** The client's `assigns`, for the handlers of the input its calls cause. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>>;
  /** How often its open streams carry a comment (createFront's `heartbeat`); never when `undefined`. */
  readonly heartbeat?: Heartbeat | undefined;
}

/** A legacy caller's session. */
export class CallerSession {
  /** The session's id. */
  readonly id: string;
  /** Who opened it ({@linkcode principalKey}): only their requests find it. */
  readonly owner: string;
  /** The version negotiated with the caller. */
  readonly version: LegacyProtocolVersion;
  readonly #server: FrontServer;
  readonly #capabilities: ClientCapabilities;
  readonly #upstreams: FrontUpstreams;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #principal: Principal | undefined;
  readonly #fetch: Fetcher | undefined;
  readonly #decisions: DecisionSink | undefined;
  readonly #client: string;
  readonly #assigns: Readonly<Record<string, unknown>>;
  readonly #heartbeat: Heartbeat | undefined;
  readonly #closer = new AbortController();
  /** Ends what the front asked the caller once its answers can no longer come ({@linkcode CallerSession.endAsks}). */
  readonly #answersGone = new AbortController();
  readonly #listen: SseStream;
  readonly #streams = new Map<string, SseStream>();
  readonly #asks = new Map<string, (response: JsonRpcMessage) => void>();
  readonly #requests = new Map<string, LinkedSignal>();
  /** Who waits for the last request in flight to end ({@linkcode CallerSession.settled}). */
  #waitingForSettled: (() => void)[] = [];
  /** Takes a log entry's token from the caller's own budget. */
  readonly #withinLogBudget: () => boolean;
  #upstream: Promise<{ readonly session: ServerSession; readonly own: boolean }> | undefined;
  #askCount = 0;
  /**
   * Requests tied to no call, held until the caller's `notifications/initialized`: before it, a
   * server should send a client nothing but pings and logs. `undefined` once it came.
   */
  #heldForInitialized: (() => void)[] | undefined = [];
  #streamCount = 0;
  #logLevel: LoggingLevel | undefined;
  #lastUsed: number;
  /**
   * Whether `start` has not settled: the session counts at `maxSessions` from its making, and
   * must not be closed to make room before its caller has its id.
   */
  #starting = true;

  /** @param init The session's id, server, version, capabilities and parts. */
  constructor(init: CallerSessionInit) {
    this.id = init.id;
    this.owner = principalKey(init.principal);
    this.version = init.version;
    this.#server = init.server;
    this.#capabilities = init.capabilities;
    this.#upstreams = init.upstreams;
    this.#clock = init.clock;
    this.#timers = init.timers;
    this.#principal = init.principal;
    this.#fetch = init.fetch;
    this.#decisions = init.decisions;
    this.#client = init.client ?? "sluice";
    this.#assigns = init.assigns ?? {};
    this.#heartbeat = init.heartbeat;
    this.#listen = this.#newStream(LISTEN_KEY);
    const logBudgets = new LogBudgets(init.clock, () => init.server.policy.logRateLimit);
    this.#withinLogBudget = () => logBudgets.take(init.server.policy.server);
    this.#lastUsed = init.clock.now();
  }

  /** When the session was last in use: a request or a stream connection began or ended. */
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** Whether the session is in use: starting, a request in flight, or a stream connection open. */
  get busy(): boolean {
    return this.#starting || this.#requests.size > 0 || this.#listen.connected ||
      [...this.#streams.values()].some((stream) => stream.connected);
  }

  /** Whether the session is in use by its stream connections alone (no request, not starting). */
  get streamsOnly(): boolean {
    return !this.#starting && this.#requests.size === 0;
  }

  /**
   * Ends every request the front sent this caller that waits for its answer, and any it sends later,
   * as a deadline would (the caller is told `notifications/cancelled`, the upstream gets the refusal):
   * for when the caller's answers can no longer come. The calls go on without them.
   */
  endAsks(): void {
    this.#answersGone.abort(new Error("sluice front: the caller's answers can no longer come"));
  }

  /**
   * Opens the upstream side and answers `initialize`; the session is in use until this settles.
   *
   * @param id The `initialize` request's id.
   * @param signal Aborts the upstream's start.
   * @returns The `InitializeResult` response, or the error response when the upstream failed.
   */
  async start(id: RequestId, signal: AbortSignal): Promise<JsonRpcMessage> {
    try {
      const { session } = await this.#upstreamOf(signal, "initialize");
      const offer = await session.offer(signal, this.#fetch);
      const upstream = offer.capabilities;
      // A legacy upstream of the caller's own relays its list changes, resource updates (on the
      // GET stream) and, to a 2025-11-25 caller, tasks; a modern one none of them.
      const own = session.era === "legacy";
      const capabilities: Record<string, unknown> = { logging: {}, ...offeredCapabilities(upstream, own) };
      if (this.#relaysTasks(session) && upstream.tasks !== undefined) capabilities.tasks = upstream.tasks;
      return encodeResult(id, {
        protocolVersion: this.version,
        capabilities,
        serverInfo: frontServerInfo(this.#server.policy.server),
        ...(offer.instructions === undefined ? {} : { instructions: offer.instructions }),
      });
    } catch (failure) {
      return encodeError(id, this.#told(upstreamFailure(failure, this.#server.policy.server), failure));
    } finally {
      this.#starting = false;
      // A slow start does not make the session look long unused.
      this.#lastUsed = this.#clock.now();
    }
  }

  /**
   * Handles one message the caller POSTed.
   *
   * @param message A request, a notification, or an answer to a request the front sent.
   * @param principal Who sent it (the gateway's `auth` for this POST; its subject owns the session):
   *   `tools/list` shows, and a call runs and is reported, as them. None with `auth: "none"`.
   * @returns The HTTP response: 202 for a notification or an answer, else JSON or an SSE stream.
   */
  handle(message: JsonRpcMessage, principal?: Principal): Promise<Response> {
    this.#lastUsed = this.#clock.now();
    if (isRequest(message)) return this.#request(message, principal);
    if (isNotification(message)) this.#notification(message);
    else if ("id" in message && message.id !== null) this.#asks.get(String(message.id))?.(message);
    return Promise.resolve(new Response(null, { status: 202 }));
  }

  /**
   * Opens the standalone GET stream, or resumes a stream after `Last-Event-ID`.
   *
   * @param lastEventId The header's value, or `null`.
   * @returns The SSE response; `409` when the GET stream already has a connection.
   */
  listen(lastEventId: string | null): Response {
    this.#lastUsed = this.#clock.now();
    if (lastEventId !== null) {
      const event = parseEventId(lastEventId);
      if (event === undefined) return endedStreamResponse();
      const stream = event.key === LISTEN_KEY ? this.#listen : this.#streams.get(event.key);
      // A stream this session forgot (or never had) has nothing left to replay.
      return stream === undefined ? endedStreamResponse() : stream.connect(event.seq);
    }
    if (this.#listen.connected) {
      return jsonError(409, null, -32000, "Conflict: this session's GET stream is already open");
    }
    return this.#listen.connect(undefined);
  }

  /**
   * Ends the standalone GET stream, cleanly: its connection closes, and a new one gets the
   * replay only. The session and its calls go on (the gateway is closing, and waits for them).
   */
  endStandaloneStream(): void {
    this.#listen.finish();
  }

  /**
   * Waits until no request of the caller is in flight (the gateway is closing, and takes no new
   * one); at once when none is.
   *
   * @returns Resolves once the session's last request in flight has ended.
   */
  settled(): Promise<void> {
    if (this.#requests.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waitingForSettled.push(resolve));
  }

  /**
   * Ends the session: requests in flight are cancelled (a call's stream tells it so, as any
   * failure), streams end, its own upstream session closes.
   */
  async close(): Promise<void> {
    if (this.#closer.signal.aborted) return;
    this.#closer.abort(new Error("sluice front: the session ended"));
    this.#listen.finish();
    // The calls' failures come a turn or more later: their streams end once they are told, or a
    // second on, whatever still holds one.
    const settled = new AbortController();
    void this.settled().then(() => settled.abort());
    await pause(SETTLE_MS, this.#timers, settled.signal);
    for (const stream of this.#streams.values()) stream.finish();
    const upstream = await this.#upstream?.catch(() => undefined);
    if (upstream?.own === true) await upstream.session.close().catch(() => {});
  }

  async #request(message: JsonRpcRequest, principal: Principal | undefined): Promise<Response> {
    const { id, method } = message;
    const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    // A ProgressToken is a string or an integer, as a request id: another would be relayed as no
    // schema allows.
    if (token !== undefined && !v.is(RequestIdSchema, token)) {
      const received = typeof token === "number"
        ? "a number that is not a safe integer"
        : describeKind(token);
      return json(encodeError(id, {
        code: -32602,
        message: `Invalid params: _meta.progressToken: expected a string or an integer, received ${received}`,
      }));
    }
    if (method === "ping") return json(encodeResult(id, {}));
    if (method === "logging/setLevel") return json(await this.#setLevel(id, message.params?.level));
    if (MRTR_METHODS.has(method) || method === "tasks/result") return await this.#call(message, principal);
    if (FORWARDED_METHODS.has(method) || LEGACY_ONLY.has(method)) {
      const answer = await this.#forward(message, principal);
      return answer === undefined ? endedStreamResponse() : json(answer);
    }
    return json(
      encodeError(id, { code: -32601, message: `Method not found: ${JSON.stringify(method.slice(0, 64))}` }),
    );
  }

  #notification(message: JsonRpcNotification): void {
    switch (message.method) {
      case "notifications/initialized": {
        const held = this.#heldForInitialized ?? [];
        this.#heldForInitialized = undefined;
        for (const send of held) send();
        return;
      }
      case "notifications/cancelled": {
        const requestId = message.params?.requestId;
        if (typeof requestId === "string" || typeof requestId === "number") {
          this.#requests.get(idKey(requestId))?.abort(new Withdrawn("sluice front: cancelled by the caller"));
        }
        return;
      }
      case "notifications/roots/list_changed":
        void this.#upstream?.then(({ session }) => session.rootsChanged()).catch(() => {});
        return;
    }
  }

  async #setLevel(id: RequestId, level: unknown): Promise<JsonRpcMessage> {
    if (!isLoggingLevel(level)) {
      return encodeError(id, {
        code: -32602,
        message: `Invalid params: "level" must be one of ${LOGGING_LEVELS.map((l) => `"${l}"`).join(", ")}`,
      });
    }
    this.#logLevel = level;
    const upstream = await this.#upstream?.catch(() => undefined);
    await upstream?.session.setLogLevel(this.#level()).catch(() => {});
    return encodeResult(id, {});
  }

  /** Whether the caller gets the upstream's tasks: a legacy upstream's, for a 2025-11-25 caller. */
  #relaysTasks(session: ServerSession): boolean {
    return session.era === "legacy" && this.version === "2025-11-25";
  }

  /**
   * Relays a list, a completion or a task request (once its result fits, else answered as from an
   * upstream that broke the protocol: `checkedRelayResult`), or a subscription.
   *
   * @param message The caller's request.
   * @param principal Who sent it: `tools/list` shows the tools its policy's `access` opens to them.
   * @returns The answer, or `undefined` when the caller withdrew the request.
   */
  async #forward(
    message: JsonRpcRequest,
    principal: Principal | undefined,
  ): Promise<JsonRpcMessage | undefined> {
    const { id, method } = message;
    const flow = this.#track(id);
    let answer: JsonRpcMessage;
    try {
      const { session } = await this.#upstreamOf(flow.signal, method);
      const relayed = method.startsWith("tasks/") ? this.#relaysTasks(session) : session.era === "legacy";
      if (LEGACY_ONLY.has(method) && !relayed) {
        answer = encodeError(id, { code: -32601, message: `Method not found: "${method}"` });
      } else {
        const result = checkedRelayResult(
          await session.request(method, withoutMeta(message.params ?? {}), {
            signal: flow.signal,
            fetch: this.#fetch,
          }),
          method,
          this.#server.policy.server,
        );
        const listed = callableTools(result, method, session.era, this.#relaysTasks(session));
        const shown = toolsVisibleTo(listed, method, this.#server.policy, principal);
        answer = encodeResult(id, resultForCaller(shown, method, "legacy"));
      }
    } catch (failure) {
      answer = encodeError(id, this.#told(upstreamFailure(failure, this.#server.policy.server), failure));
    } finally {
      this.#untrack(id, flow);
    }
    return flow.signal.reason instanceof Withdrawn ? undefined : answer;
  }

  #call(message: JsonRpcRequest, principal: Principal | undefined): Promise<Response> {
    const { id } = message;
    const method = message.method as MrtrMethod;
    const params = message.params ?? {};
    const reply = new PostReply(() => this.#newPostStream(), this.#heartbeat);
    const flow = this.#track(id);
    const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const rising = risingProgress();
    const startedAt = this.#clock.now();
    let failed: unknown;
    const context: CallContext = {
      signal: flow.signal,
      assigns: this.#assigns,
      principal,
      fetch: this.#fetch,
      ...(typeof progressToken === "string" || typeof progressToken === "number"
        ? {
          onProgress: (progress: JsonObject) => {
            // One token, one author: the caller's token, and never a step back (a new round of
            // a modern upstream may count from 0 again).
            if (!rising(progress.progress)) return;
            // Copied by keys, not spread: V8 spreads prototype-free (sanitized) params slowly.
            const params = copyOwn(progress);
            params.progressToken = progressToken;
            const notification = encodeNotification("notifications/progress", params as JsonObject);
            // A task the caller holds goes on after its call was answered: on the GET stream.
            if (reply.ended) this.#listen.write(notification);
            else reply.send(notification);
          },
        }
        : {}),
      onNotification: (notification) => this.#relay(notification, reply),
      onDeferred: (request, signal) => this.#ask(request, reply, signal),
      capabilities: this.#server.capabilitiesFor(this.#capabilities),
      logLevel: this.#level(),
      // A 2025-11-25 caller asking for a task gets the task (a legacy upstream's).
      asTask: typeof params.task === "object" && params.task !== null,
    };
    void (async (): Promise<JsonRpcMessage> => {
      const { session } = await this.#upstreamOf(flow.signal, message.method);
      if (message.method === "tasks/result") {
        if (!this.#relaysTasks(session)) {
          return encodeError(id, { code: -32601, message: 'Method not found: "tasks/result"' });
        }
        if (typeof params.taskId !== "string") {
          return encodeError(id, { code: -32602, message: 'Invalid params: "taskId" must be a string' });
        }
        const result = await session.awaitTask(params.taskId, context);
        return encodeResult(id, result as unknown as JsonObject);
      }
      let called = context;
      const outcome = await session.call(method, withoutMeta(params), context).catch((failure: unknown) => {
        if (!needsTasks(failure)) throw failure;
        // A tool the modern server runs only as a task (-32021 naming the tasks extension, before
        // it ran): called again with the extension declared on the caller's behalf, and its task
        // awaited below, as the caller cannot hold one.
        called = {
          ...context,
          capabilities: this.#server.capabilitiesFor(this.#capabilities, { awaitsTasks: true }),
        };
        return session.call(method, withoutMeta(params), called);
      });
      if (outcome.kind === "task" && context.asTask === true && this.#relaysTasks(session)) {
        return encodeResult(id, outcome.task as unknown as JsonObject);
      }
      // A task the caller did not ask for (a tool that must run as one) is awaited here, and
      // cancelled upstream if the call ends first: the caller cannot see it, let alone cancel it.
      const result = outcome.kind === "complete"
        ? outcome.result as unknown as JsonObject
        : await session.awaitTask(taskIdOf(outcome.task), {
          ...called,
          cancelIfAbandoned: true,
        }) as unknown as JsonObject;
      return encodeResult(id, resultForCaller(result, method, "legacy"));
    })().catch((failure) => {
      failed = failure;
      return encodeError(id, this.#told(callerFailure(failure, this.#server, this.#capabilities), failure));
    }).then(
      (final) => {
        this.#report({ message, params, principal }, final, startedAt, failed);
        this.#untrack(id, flow);
        // A withdrawn request gets no answer: its stream ends, or, when nothing was streamed yet,
        // it is answered with an SSE stream of no event. A deadline or the session's end is told
        // as any failure.
        if (flow.signal.reason instanceof Withdrawn) reply.endUnanswered();
        else reply.end(final);
      },
    );
    return reply.response;
  }

  /** An error as this host can take it ({@linkcode forHost}). */
  #told(error: JsonRpcErrorObject, failure: unknown): JsonRpcErrorObject {
    return forHost(error, failure, this.version, this.#capabilities);
  }

  /**
   * The decision event of one call: how it ended, and the upstream's real cause when it failed.
   *
   * @param request The caller's request: its message, params and who sent it.
   * @param final The answer the caller got.
   * @param startedAt When the call started.
   * @param failure The upstream failure behind an error answer, if any.
   */
  #report(request: CallFacts["request"], final: JsonRpcMessage, startedAt: number, failure: unknown): void {
    reportCall({ clientInfo: { name: this.#client }, clock: this.#clock, decisions: this.#decisions }, {
      server: this.#server.policy.server,
      request,
      outcome: "error" in final
        ? { kind: "error", status: 200, error: final.error }
        : { kind: "result", result: (final as { result: JsonObject }).result },
      failure,
      startedAt,
    });
  }

  /**
   * Sends an input request the handler deferred to the caller, and waits for its answer as the
   * chain waits for a handler's: within the policy's handler timeout for its kind, post-checked.
   */
  #ask(request: InputRequest, reply: PostReply | undefined, signal: AbortSignal): Promise<ChainResult> {
    // What the caller's version cannot carry is told as such once it declared the kind at all
    // (its version has no sampling.tools to declare, so "did not declare" would mislead).
    const unfit = this.version === "2025-06-18" && this.#capabilities[neededBy(request)[0]] !== undefined
      ? unfitIn20250618(request)
      : undefined;
    const refused: ChainResult | undefined = unfit !== undefined
      ? {
        ok: false,
        stage: "policy",
        refusal: { code: -32602, message: `Invalid params: the caller speaks 2025-06-18, ${unfit}` },
      }
      : this.#server.callerCan(this.#capabilities, request)
      ? undefined
      // Refused as by the policy, not as a capability the gateway's own client lacks: the upstream
      // did nothing wrong, and a modern one's call then fails with these words (-32601 or -32602).
      : { ...undeclaredAnswer(this.#capabilities, request), stage: "policy" };
    if (refused !== undefined && !refused.ok) {
      // The deferral gave the request's first event; this refusal, its second: what the host did
      // not declare ends "capability", as on a 2026 caller's paths.
      this.#server.chain.refused(request, refused.refusal, {
        version: this.version,
        principal: this.#principal,
        stage: unfit === undefined ? "capability" : "policy",
      });
      return Promise.resolve(refused);
    }
    const id = `sluice-${++this.#askCount}`;
    const send = (message: JsonRpcMessage) =>
      reply === undefined ? this.#listen.write(message) : reply.send(message);
    const flow = linkSignals([signal, this.#closer.signal, this.#answersGone.signal]);
    const ask = (asked: AbortSignal) =>
      new Promise<unknown>((resolve) => {
        let sent = false;
        // The deadline or the call's end: the caller is told, and its late answer is dropped.
        const onAbort = () => {
          this.#asks.delete(id);
          const reason = flow.signal.aborted ? "cancelled" : "timed out";
          if (sent) send(encodeNotification("notifications/cancelled", { requestId: id, reason }));
          sent = true;
        };
        asked.addEventListener("abort", onAbort, { once: true });
        this.#asks.set(id, (response) => {
          asked.removeEventListener("abort", onAbort);
          this.#asks.delete(id);
          resolve(answerOf(response));
        });
        const sendRequest = () => {
          if (sent) return;
          sent = true;
          const shaped = withinCallerContext(request, {
            version: this.version,
            capabilities: this.#capabilities,
          });
          send(encodeRequest(id, request.method, paramsForCaller(shaped, this.version)));
        };
        if (reply === undefined && this.#heldForInitialized !== undefined) {
          this.#heldForInitialized.push(sendRequest);
        } else sendRequest();
      });
    return this.#server.chain.answerElsewhere(request, ask, {
      version: this.version,
      signal: flow.signal,
      principal: this.#principal,
    })
      .finally(() => flow.dispose());
  }

  /**
   * A notification of a call: logs on the call's stream; the rest cleaned on the GET stream, but
   * progress (a call's own comes by its `onProgress`).
   */
  #relay(notification: JsonRpcNotification, reply: PostReply | undefined): void {
    if (notification.method === "notifications/message") {
      const log = logForCaller(notification.params, this.#level(), this.#withinLogBudget);
      if (log !== undefined) reply === undefined ? this.#listen.write(log) : reply.send(log);
      return;
    }
    // Progress of another request's token means nothing to this caller; what the caller's
    // version has no such notification for (a vendor's own, 2025-06-18's missing tasks and URL
    // elicitation) would break its schema.
    if (RELAYED[this.version].has(notification.method)) {
      this.#listen.write(notificationForCaller(notification));
    }
  }

  /**
   * The caller's upstream side, opened first when there is none (or the last attempt failed). The
   * requests that need it meanwhile share the attempt, which `close()` or the last waiter giving up
   * aborts; a request that gives up fails alone.
   *
   * @param signal Ends this request's wait for the upstream side.
   * @param method The caller's request that needs it, named in its cancellation.
   * @returns The session, and whether it is the caller's own.
   * @throws {ClientError} What opening the upstream side failed with, or `"cancelled"` or
   *   `"timeout"` (naming `method`) when `signal` fires first.
   */
  #upstreamOf(
    signal: AbortSignal,
    method: string,
  ): Promise<{ readonly session: ServerSession; readonly own: boolean }> {
    const cancelled = (reason: unknown) => abortError(this.#server.policy.server, method, reason);
    let attempt = joinable(this.#upstream);
    if (attempt === undefined) {
      if (signal.aborted) return Promise.reject(cancelled(signal.reason));
      const hooks: CallerHooks = {
        declared: this.#server.declaredFor(this.#capabilities),
        onNotification: (notification) => this.#relay(notification, undefined),
        onDeferred: (request, deferredSignal) => this.#ask(request, undefined, deferredSignal),
        logLevel: this.#level(),
      };
      // Stopped by the session's close, the attempt fails naming the request that started it.
      const work = sharedWork(this.#closer.signal);
      const started = work.share(
        this.#upstreams.forLegacyCaller(this.#server, {
          hooks,
          signal: work.signal,
          method,
          fetch: this.#fetch,
          principal: this.#principal,
        }),
      );
      attempt = this.#upstream = started;
      started.catch(() => {
        if (this.#upstream === started) this.#upstream = undefined;
      });
    }
    return awaitShared(attempt, { signal, cancelled });
  }

  /** The level the caller gets logs at: its own, never below the policy's. */
  #level(): LoggingLevel {
    const floor = this.#server.policy.logLevel;
    return this.#logLevel === undefined ? floor : effectiveLogLevel(floor, this.#logLevel);
  }

  #track(id: RequestId): LinkedSignal {
    const flow = openFlow([this.#closer.signal], {
      maxTotalTimeoutMs: this.#server.policy.maxTotalTimeoutMs,
      timers: this.#timers,
    });
    this.#requests.get(idKey(id))?.abort(new Withdrawn("sluice front: a new request reused the id"));
    this.#requests.set(idKey(id), flow);
    return flow;
  }

  #untrack(id: RequestId, flow: LinkedSignal): void {
    if (this.#requests.get(idKey(id)) === flow) this.#requests.delete(idKey(id));
    // Idle time counts from the end of its last use, not from its start.
    this.#lastUsed = this.#clock.now();
    flow.dispose();
    if (this.#requests.size > 0 || this.#waitingForSettled.length === 0) return;
    const waiting = this.#waitingForSettled;
    this.#waitingForSettled = [];
    for (const resolve of waiting) resolve();
  }

  #newStream(key: string, onFinished?: () => void): SseStream {
    return new SseStream({
      key,
      priming: this.version === "2025-11-25",
      maxEvents: KEPT_EVENTS,
      heartbeat: this.#heartbeat,
      onDetached: () => void (this.#lastUsed = this.#clock.now()),
      onFinished,
    });
  }

  #newPostStream(): SseStream {
    const key = String(++this.#streamCount);
    const stream = this.#newStream(key, () => {
      // Kept in the order they finished: the one that finished last is the newest.
      this.#streams.delete(key);
      this.#streams.set(key, stream);
      this.#forgetFinished();
    });
    this.#streams.set(key, stream);
    this.#forgetFinished();
    return stream;
  }

  /**
   * Forgets the call streams that finished first, past the bounds: more than
   * {@linkcode KEPT_STREAMS} streams, or more than {@linkcode KEPT_BYTES} in the finished ones but
   * the newest. Live streams stay, and so does the one that finished last, whose answer a caller
   * whose connection just broke resumes for.
   */
  #forgetFinished(): void {
    const finished = [...this.#streams.values()].filter((stream) => stream.finished);
    finished.pop();
    let count = this.#streams.size;
    let bytes = finished.reduce((sum, stream) => sum + stream.keptBytes, 0);
    for (const stream of finished) {
      if (count <= KEPT_STREAMS && bytes <= KEPT_BYTES) return;
      this.#streams.delete(stream.key);
      count--;
      bytes -= stream.keptBytes;
    }
  }
}

/**
 * Why a caller's request was aborted when the caller gave it up (it cancelled it, or a new
 * request reused its id): such a request gets no response.
 */
class Withdrawn extends Error {}

/** The caller's response as a handler's answer: its result, or its error as the handler's `{ error }`. */
function answerOf(response: JsonRpcMessage): unknown {
  if (!("error" in response)) return (response as { result?: unknown }).result;
  const error = response.error as Partial<JsonRpcErrorObject>;
  return {
    error: {
      code: Number.isSafeInteger(error.code) ? error.code : -32603,
      message: sanitizeText(error.message ?? "The caller refused", 512),
    },
  };
}

/**
 * The params of an input request as a legacy caller reads them: without `task` (the gateway
 * declares no client tasks upstream and answers such a request as any other; a caller hosting
 * tasks would make one of it); a modern upstream's URL elicitation gets the `elicitationId`
 * 2025-11-25 requires; a 2025-06-18 caller gets forms without `mode`, titled single-selects as
 * `enum` + `enumNames`, and each sampling message's one block without the array.
 * {@linkcode unfitIn20250618} refused the rest.
 */
function paramsForCaller(request: InputRequest, version: LegacyProtocolVersion): JsonObject {
  const { task: _task, ...params } = request.params as unknown as JsonObject;
  if (version === "2025-06-18" && request.method === "sampling/createMessage") {
    const messages = request.params.messages.map((message) =>
      Array.isArray(message.content) ? { ...message, content: message.content[0] } : message
    );
    return { ...params, messages } as JsonObject;
  }
  if (
    version === "2025-06-18" && request.method === "elicitation/create" && "requestedSchema" in request.params
  ) {
    const { mode: _formOnly, ...form } = params;
    return {
      ...form,
      requestedSchema: enumsFor20250618(request.params.requestedSchema),
    } as JsonObject;
  }
  if (
    version === "2025-11-25" && request.method === "elicitation/create" && params.mode === "url" &&
    typeof params.elicitationId !== "string"
  ) {
    // Set on the rest copy, not spread then set: V8 builds an object slowly when keys follow a spread.
    (params as Record<string, unknown>).elicitationId = codecs.toBase64Url(
      crypto.getRandomValues(new Uint8Array(12)),
    );
    return params;
  }
  return params;
}

/**
 * A form as a 2025-06-18 caller can show it, on a copy: each titled single-select (`oneOf` of
 * `{ const, title }`, from 2025-11-25) becomes that version's `enum` + `enumNames`.
 *
 * @param form The form, which the chain's form check passed.
 * @returns The form to send.
 */
function enumsFor20250618(form: RequestedSchema): RequestedSchema {
  const properties: Record<string, NullProtoRecord<unknown>> = Object.create(null);
  for (const [name, field] of Object.entries(form.properties)) {
    const { oneOf, ...rest } = field as { oneOf?: unknown } & Record<string, unknown>;
    if (Array.isArray(oneOf)) {
      rest.enum = oneOf.map((option: { const?: unknown }) => option.const);
      rest.enumNames = oneOf.map((option: { title?: unknown }) => option.title);
    }
    properties[name] = Array.isArray(oneOf) ? rest : field;
  }
  return { ...form, properties };
}

/**
 * What of an input request a 2025-06-18 caller cannot be sent, in words, or `undefined`: a form
 * field that is a list (a multi-select, from 2025-11-25), or sampling with tools (`tools`,
 * `toolChoice`, a `tool_use` or `tool_result` block) or a message of other than one block.
 *
 * @param request The deferred request.
 * @returns What its version lacks and the request holds (`whose …, and …`), or `undefined`.
 */
function unfitIn20250618(request: InputRequest): string | undefined {
  if (request.method === "elicitation/create") {
    if ((request.params as { mode?: unknown }).mode === "url") return "whose elicitation has no URL mode";
    const properties = (request.params as { requestedSchema?: { properties?: unknown } }).requestedSchema
      ?.properties;
    if (typeof properties !== "object" || properties === null) return undefined;
    const list = Object.entries(properties).find(([, field]) =>
      (field as { type?: unknown } | null)?.type === "array"
    );
    return list === undefined
      ? undefined
      : `whose forms have only primitive fields, and field ${quote(list[0], 64)} is a list`;
  }
  if (request.method !== "sampling/createMessage") return undefined;
  const { params } = request;
  const toolKey = (["tools", "toolChoice"] as const).find((key) => params[key] !== undefined);
  if (toolKey !== undefined) return `whose sampling has no tools, and the request has "${toolKey}"`;
  const one = "whose sampling messages hold one text, image or audio block each, and";
  for (const [index, message] of params.messages.entries()) {
    const blocks: readonly { readonly type: string }[] = Array.isArray(message.content)
      ? message.content
      : [message.content];
    if (blocks.length !== 1) return `${one} messages[${index}] holds ${blocks.length} blocks`;
    const type = blocks[0]?.type ?? "";
    if (!BASIC_BLOCKS.has(type)) return `${one} messages[${index}] holds a ${quote(type, 32)} block`;
  }
  return undefined;
}

/** The blocks a 2025-06-18 sampling message may hold. */
const BASIC_BLOCKS: ReadonlySet<string> = new Set(["text", "image", "audio"]);

/**
 * A JSON-RPC error answered with an HTTP status.
 *
 * @param status The HTTP status.
 * @param id The request's id, or `null`.
 * @param code The JSON-RPC code.
 * @param message The message.
 * @param data Extra data.
 * @returns The response.
 */
export function jsonError(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): Response {
  return json(encodeError(id, data === undefined ? { code, message } : { code, message, data }), status);
}

/** Whether a modern server refused a call because it runs it only as a task (`-32021`, SEP-2663). */
function needsTasks(failure: unknown): boolean {
  if (!(failure instanceof ClientError) || failure.kind !== "server" || failure.code !== -32021) return false;
  const required =
    (failure.data as { requiredCapabilities?: { extensions?: Record<string, unknown> } } | undefined)
      ?.requiredCapabilities;
  return required?.extensions?.[TASKS_EXTENSION] !== undefined;
}
