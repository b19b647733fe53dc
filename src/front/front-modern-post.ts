/**
 * How the front serves one modern-era (2026-07-28) request once it has been read and checked:
 * discovery, lists and completions go upstream as they are (a list's result relayed once the
 * client's own decoder takes it, a completion's once it fits the schema, else answered as from an
 * upstream that broke the protocol); tasks are relayed ({@linkcode FrontTasks}); a `tools/call`,
 * `resources/read` or `prompts/get` runs through {@linkcode frontCall} (or
 * {@linkcode frontLegacyCall} for a legacy upstream) and is reported to the operator. Each
 * request has one signal, its flow: the caller's, with the policy's whole-call deadline.
 *
 * @module
 */
import type { Context } from "hono";
import type { ClientInternals } from "../client/client-internals.ts";
import { type LinkedSignal, openFlow } from "../_internal/signals.ts";
import type { Timers } from "../_internal/timers.ts";
import { encodeResult, type JsonObject, type JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { copyOwn } from "../_internal/copy.ts";
import type { LoggingLevel } from "../protocol/logging-level.ts";
import { decodeListToolsResult } from "../protocol/tools.ts";
import type { LogBudgets } from "../notify/log-budget.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { FrontServer } from "./front-server.ts";
import { type DownstreamRequest, refusal } from "./downstream-request.ts";
import {
  errorOutcome,
  frontCall,
  type FrontCallOutcome,
  signInAsked,
  unaskedOutcome,
  upstreamOutcome,
  withoutMeta,
} from "./front-call.ts";
import { frontLegacyCall, type ParkedCall } from "./front-legacy-call.ts";
import type { StateKey } from "./sealed-state.ts";
import { frontDiscover } from "./_front-info.ts";
import { type FrontAnswer, respond, respondStreaming } from "./_front-response.ts";
import type { Heartbeat } from "./heartbeat.ts";
import { CALLER_GONE, type CallerGone } from "./entry-bindings.ts";
import type { FrontSignIn } from "./front-sign-in.ts";
import type { FrontUpstreams, ModernCallersUpstream } from "./front-upstreams.ts";
import { effectiveLogLevel, logForCaller, notificationForCaller, resultForCaller } from "./caller-era.ts";
import { risingProgress } from "../notify/progress-delivery.ts";
import { type FrontTasks, TASK_METHODS } from "./front-tasks.ts";
import { toolsVisibleTo } from "./access.ts";
import { callableTools } from "./callable-tools.ts";
import { principalKey } from "./principal.ts";
import { reportCall } from "./_call-decision.ts";
import { requestOrigin } from "./_request-origin.ts";
import { accepts } from "./_accept.ts";
import { checkedRelayResult, FORWARDED_METHODS } from "./_methods.ts";
import { MRTR_METHODS } from "../protocol/input-required.ts";

/** What the modern routes share. */
export interface ModernParts {
  readonly internals: ClientInternals;
  readonly upstreams: FrontUpstreams;
  readonly key: Promise<StateKey>;
  readonly parked: Map<string, ParkedCall>;
  /** One log budget per server, shared by its modern callers. */
  readonly logs: LogBudgets;
  readonly tasks: FrontTasks;
  /** Spends a state's nonce in the client's store, when the store can (`claim`). */
  readonly spend: ((nonce: string, ttlMs: number) => Promise<boolean>) | undefined;
  /** Gives a spent nonce back, when the store can (`release`). */
  readonly giveBack: ((nonce: string) => Promise<void>) | undefined;
  /** Each caller's sign-in to servers that sign in per person. */
  readonly signIn: FrontSignIn;
  /** How often a call's SSE answer carries a comment (createFront's `heartbeat`). */
  readonly heartbeat: Heartbeat | undefined;
}

/**
 * Serves one modern request.
 *
 * @param c The Hono context.
 * @param server The upstream server.
 * @param request The caller's request, checked.
 * @param parts What the modern routes share.
 * @returns The response: JSON, or an SSE stream when the caller accepts one and notifications come.
 */
export async function frontModernPost(
  c: Context,
  server: FrontServer,
  request: DownstreamRequest,
  parts: ModernParts,
): Promise<Response> {
  const id = request.message.id;
  const serverId = server.policy.server;
  const method = request.message.method;
  const startedAt = parts.internals.clock.now();
  if (
    method !== "server/discover" && !FORWARDED_METHODS.has(method) && !MRTR_METHODS.has(method) &&
    !TASK_METHODS.has(method)
  ) {
    return respond(c, refusal(404, id, -32601, `Method not found: ${JSON.stringify(method.slice(0, 64))}`));
  }
  // The call's one signal (openFlow): upstream legs arm their deadlines on it.
  const flow = openCallerFlow(c, {
    maxTotalTimeoutMs: server.policy.maxTotalTimeoutMs,
    timers: parts.internals.timers,
  });
  let flowHandedOff = false;
  // The caller's own tokens, when the server signs in per person.
  const fetch = parts.signIn.fetchFor(serverId, request.principal, requestOrigin(c.req.raw));
  try {
    const upstream = await parts.upstreams.forModernCallers(server, {
      principal: request.principal,
      signal: flow.signal,
      method,
      fetch,
    });
    if (MRTR_METHODS.has(method)) {
      // The flow must outlive this handler when the answer streams: the call disposes of it.
      const handOff = () => void (flowHandedOff = true);
      return await mrtrPost(c, { server, request, upstream, flow, fetch, parts, handOff });
    }
    return respond(
      c,
      toResponse(request, await otherRequest(server, request, upstream, flow.signal, fetch, parts)),
    );
  } catch (failure) {
    // A request that cannot ask (discovery, a list) names the sign-in page a sign-in needs.
    if (!MRTR_METHODS.has(method)) return respond(c, toResponse(request, unaskedOutcome(failure, serverId)));
    // A sign-in needed before the call reached the server (the era probe): asked like any other.
    const asked = await signInAsked(failure, {
      server,
      request,
      stateKey: await parts.key,
      clock: parts.internals.clock,
    });
    const outcome = asked ?? upstreamOutcome(failure, serverId);
    reportCall(parts.internals, {
      server: serverId,
      request,
      outcome,
      failure: asked === undefined ? failure : undefined,
      startedAt,
    });
    return respond(c, toResponse(request, outcome));
  } finally {
    if (!flowHandedOff) flow.dispose();
  }
}

/**
 * Opens a call's flow that ends when its caller goes away: through the entry's
 * {@linkcode CALLER_GONE} where it gives one, else by following the request's `signal`.
 */
function openCallerFlow(
  c: Context,
  total: { readonly maxTotalTimeoutMs: number; readonly timers: Timers },
): LinkedSignal {
  const gone = (c.env as { [CALLER_GONE]?: CallerGone | undefined } | undefined)?.[CALLER_GONE];
  if (gone === undefined) return openFlow([c.req.raw.signal], total);
  const flow = openFlow([], total);
  gone(flow.abort);
  return flow;
}

/** Discovery, a list or a completion (as they are, once their result fits), or a task request (relayed). */
async function otherRequest(
  server: FrontServer,
  request: DownstreamRequest,
  upstream: ModernCallersUpstream,
  signal: AbortSignal,
  fetch: Fetcher | undefined,
  parts: ModernParts,
): Promise<FrontCallOutcome> {
  const method = request.message.method;
  const serverId = server.policy.server;
  if (method === "server/discover") {
    return await upstream.request((session) => frontDiscover(session, serverId, signal, fetch));
  }
  if (FORWARDED_METHODS.has(method)) {
    return await upstream.request(async (session) => {
      // A caller's listing teaches the front the tools' x-mcp-header rules too: a caller told
      // -32020 lists the tools again and retries, and the retry is checked by what it was shown.
      const learn = method === "tools/list" ? session.startToolsListing() : undefined;
      const result = checkedRelayResult(
        await session.request(method, withoutMeta(request.params), { signal, fetch }),
        method,
        serverId,
      );
      const page = learn === undefined ? undefined : decodeListToolsResult(result);
      if (page?.ok === true) learn?.(page.value.tools);
      return resultForCaller(
        toolsVisibleTo(callableTools(result, method, upstream.era), method, server.policy, request.principal),
        method,
        "modern",
      );
    });
  }
  // A legacy server's tasks are awaited within the call: the caller never sees their ids.
  if (upstream.era === "legacy") {
    return errorOutcome({ code: -32601, message: `Method not found: ${JSON.stringify(method)}` });
  }
  return await parts.tasks.serve({
    server,
    session: parts.upstreams.modernOf(server).session,
    request,
    signal,
    stateKey: await parts.key,
    fetch,
    assigns: parts.internals.assigns,
  });
}

/** One multi round-trip call, answered as JSON or, when notifications come and the caller accepts it, streamed. */
async function mrtrPost(
  c: Context,
  call: {
    readonly server: FrontServer;
    readonly request: DownstreamRequest;
    readonly upstream: ModernCallersUpstream;
    readonly flow: LinkedSignal;
    readonly fetch: Fetcher | undefined;
    readonly parts: ModernParts;
    /** Called when the answer streams: the call then owns the flow and disposes of it. */
    readonly handOff: () => void;
  },
): Promise<Response> {
  const { server, request, upstream, flow, fetch, parts } = call;
  const { internals } = parts;
  const stateKey = await parts.key;
  const logLevel = askedLogLevel(request, server);
  const startedAt = internals.clock.now();
  /** The upstream failure behind an error outcome, for the operator's event (the caller gets its class). */
  let failure: unknown;
  let rounds: number | undefined;
  const run = async (emit?: (notification: JsonRpcNotification) => void): Promise<FrontAnswer> => {
    try {
      const onNotification = emit === undefined ? undefined : relayTo(emit, request, server, parts, logLevel);
      const shared = {
        server,
        request,
        stateKey,
        clock: internals.clock,
        timers: internals.timers,
        onNotification,
        onFailure: (cause: unknown) => void (failure = cause),
        assigns: internals.assigns,
      };
      // Each era's own fields first, then the shared ones (other keys): V8 builds an object
      // slowly when keys follow a spread that opens it.
      const outcome = await (upstream.era === "legacy"
        ? frontLegacyCall({
          lease: () => upstream.lease(),
          // Only the caller's leaving (a parked call has deadlines of its own).
          signal: c.req.raw.signal,
          parked: parts.parked,
          ...shared,
        })
        : frontCall({
          session: parts.upstreams.modernOf(server).session,
          signal: flow.signal,
          logLevel,
          spend: parts.spend,
          giveBack: parts.giveBack,
          fetch,
          onRounds: (counted) => void (rounds = counted),
          ...shared,
        }));
      reportCall(internals, { server: server.policy.server, request, outcome, failure, rounds, startedAt });
      return toResponse(request, outcome);
    } finally {
      if (emit !== undefined) flow.dispose();
    }
  };
  // Streamed only to a caller that names the stream type: `*/*` (curl) gets plain JSON.
  if (!accepts(c.req.header("accept"), "text/event-stream", false)) return respond(c, await run());
  call.handOff();
  return await respondStreaming(c, run, {
    // On Workers, keep the isolate until the upstream call has ended, even if the caller left.
    onStream: (done) => background(c, done),
    // A caller that closes the stream cancels its call: so ends the upstream request.
    onCancel: (reason) => flow.abort(reason ?? "The caller closed the stream"),
    heartbeat: parts.heartbeat,
  });
}

/**
 * What a modern caller's stream carries of the upstream's notifications: progress for its own
 * token, cleaned and never a step back (`progress` MUST increase with each notification, and a
 * new round of the upstream may count from 0 again), and log entries within its own budget of the
 * server's `logRateLimit`, at or above the level it asked for.
 */
function relayTo(
  emit: (notification: JsonRpcNotification) => void,
  request: DownstreamRequest,
  server: FrontServer,
  parts: ModernParts,
  logLevel: LoggingLevel | undefined,
): (notification: JsonRpcNotification) => void {
  const token = (request.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const rising = risingProgress();
  return (notification) => {
    if (notification.method === "notifications/progress") {
      const { progressToken, progress } = (notification.params ?? {}) as {
        progressToken?: unknown;
        progress?: unknown;
      };
      if (
        token !== undefined && progressToken === token && rising(progress)
      ) {
        // The caller's own token, as it gave it, set on a copy by keys: V8 spreads a prototype-free
        // (sanitized) object slowly.
        const params = copyOwn(notificationForCaller(notification).params ?? {});
        params.progressToken = token;
        emit({ jsonrpc: "2.0", method: notification.method, params: params as JsonObject });
      }
      return;
    }
    if (notification.method !== "notifications/message") return;
    // Each caller's budget is its own, so one caller's chatty call cannot silence another's.
    const withinBudget = () => parts.logs.take(server.policy.server, principalKey(request.principal));
    const log = logForCaller(notification.params, logLevel, withinBudget);
    if (log !== undefined) emit(log);
  };
}

/** The log level a modern caller asked for (`_meta` `logLevel`), within the policy's; none when it asked none. */
function askedLogLevel(request: DownstreamRequest, server: FrontServer): LoggingLevel | undefined {
  const asked = request.meta["io.modelcontextprotocol/logLevel"];
  return asked === undefined ? undefined : effectiveLogLevel(server.policy.logLevel, asked);
}

/** Hands work to the Workers execution context (`waitUntil`) when there is one. */
function background(c: Context, work: Promise<unknown>): void {
  let executionCtx: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    executionCtx = c.executionCtx;
  } catch {
    return; // Hono throws when the runtime gave no execution context (Node, Deno, Bun).
  }
  executionCtx.waitUntil(work.catch(() => {}));
}

function toResponse(request: DownstreamRequest, outcome: FrontCallOutcome): FrontAnswer {
  const id = request.message.id;
  if (outcome.kind === "result") return { status: 200, body: encodeResult(id, outcome.result) };
  return { status: outcome.status, body: { jsonrpc: "2.0", id, error: outcome.error } };
}
