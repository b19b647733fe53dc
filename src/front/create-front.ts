/**
 * The front: a Hono app that puts sluice between MCP hosts and upstream servers. `/mcp/<server>`
 * serves both eras, chosen by how each request opens (2026-07-28 rules for a server of both):
 *
 * - modern callers (2026-07-28) POST requests carrying `_meta`; the front holds no state between
 *   rounds: what it passes down goes back as `input_required` with the continuation sealed into
 *   `requestState`;
 * - legacy callers (2025-11-25, 2025-06-18) open a session with `initialize` and get Streamable
 *   HTTP with sessions, SSE streams, the GET stream, resumption and `DELETE`; what the front
 *   passes down reaches them as JSON-RPC requests on their streams
 *   ({@linkcode LegacyCallers}).
 *
 * Before any of it, the gate ({@linkcode mountCallerGate}) checks Host and Origin on every
 * route, authenticates the caller with the front's `auth` and holds it to the server's `access`;
 * the caller's principal then reaches handlers, keys budgets and upstream sessions, and is sealed
 * into every state and task id. Either way the server's policy applies to every input request,
 * results reach the caller in its own era, and an upstream failure is named by its class
 * ({@linkcode upstreamFailure}).
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { Client } from "../client/client-types.ts";
import { clientInternals } from "../client/client-internals.ts";
import { openFlow } from "../client/_signals.ts";
import { encodeResult, type JsonObject, type JsonRpcNotification } from "../protocol/jsonrpc.ts";
import type { LoggingLevel } from "../protocol/logging-level.ts";
import { createFrontServer, type FrontServer } from "./front-server.ts";
import {
  classifyDownstream,
  type DownstreamRequest,
  parseDownstream,
  readDownstreamRequest,
  refusal,
} from "./downstream-request.ts";
import { readDownstreamBody } from "./_downstream-body.ts";
import { POLICY_DEFAULTS } from "../policy/policy-defaults.ts";
import { failureOf } from "../client/client-methods.ts";
import { frontCall, type FrontCallOutcome, signInAsked } from "./front-call.ts";
import { frontLegacyCall, type ParkedCall } from "./front-legacy-call.ts";
import { importStateKey, type StateKey, stateKeyProblem } from "./sealed-state.ts";
import { frontDiscover, frontServerList } from "./_front-info.ts";
import { respond, respondStreaming } from "./_front-response.ts";
import { createFrontSignIn, type FrontSignIn } from "./front-sign-in.ts";
import { FrontUpstreams } from "./front-upstreams.ts";
import { LegacyCallers, type LegacyRequest } from "./legacy-callers.ts";
import { effectiveLogLevel, LogRelay, resultForCaller } from "./caller-era.ts";
import { upstreamFailure } from "./upstream-failure.ts";
import { FrontTasks, TASK_METHODS } from "./front-tasks.ts";
import type { ClientInternals } from "../client/client-internals.ts";
import type { GatewayAuth } from "./downstream-auth.ts";
import { accessOf, toolsVisibleTo } from "./access.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import { checkCallerOptions, mountCallerGate } from "./front-callers.ts";

/** Options of {@linkcode createFront}. */
export interface FrontOptions {
  /** The client whose policies, handler and budgets the front uses (from `createClient`). */
  readonly client: Client;
  /** The secret that seals continuation states: at least 32 bytes; the same on every isolate. */
  readonly stateKey: string | Uint8Array;
  /**
   * Serves the requests of legacy callers' sessions elsewhere (the Workers entry sends each
   * session to its own Durable Object). @default in this process
   */
  readonly legacySessions?: (request: LegacyRequest) => Promise<Response>;
  /**
   * Who may call the gateway: bearer secrets, JWT access tokens, a function, or `"none"` (see
   * {@linkcode GatewayAuth}). Required when `allowedHosts` is set (the gateway is then reachable
   * from the network); without either, the front answers loopback names only.
   * @default "none", for a gateway that answers loopback names only
   */
  readonly auth?: GatewayAuth;
  /**
   * Host names answered besides loopback ones (`"gate.example.com"`, `"gate.example.com:8443"`),
   * or `"routed"` where the platform delivers only the deployment's own names.
   * @default none: loopback names only
   */
  readonly allowedHosts?: readonly string[] | "routed";
  /** Origins whose pages may call the gateway besides its own (they get CORS headers). @default none */
  readonly allowedOrigins?: readonly string[];
  /**
   * The gateway's public origin (`https://gate.example.com`, no path), when it differs from what
   * requests say (behind a proxy that rewrites Host or scheme): the base of the resource URLs
   * that tokens must name and the protected resource metadata gives, and an origin whose pages
   * are the gateway's own. @default each request's own origin
   */
  readonly publicUrl?: string;
}

const MRTR_METHODS = new Set(["tools/call", "resources/read", "prompts/get"]);
const FORWARDED = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "completion/complete",
]);

/** Each front's own legacy handling (see {@linkcode frontLegacyHandler}). */
const IN_PROCESS = new WeakMap<Hono, (request: LegacyRequest) => Promise<Response>>();

/** What the modern routes share. */
interface ModernParts {
  readonly internals: ClientInternals;
  readonly upstreams: FrontUpstreams;
  readonly key: Promise<StateKey>;
  readonly parked: Map<string, ParkedCall>;
  /** Per server: the log budget of its modern callers. */
  readonly logs: Map<string, LogRelay>;
  readonly tasks: FrontTasks;
  /** Spends a state's nonce in the client's store, when the store can (`claim`). */
  readonly spend: ((nonce: string, ttlMs: number) => Promise<boolean>) | undefined;
  /** Each caller's sign-in to servers that sign in per person. */
  readonly signIn: FrontSignIn;
}

/**
 * Creates the front.
 *
 * @param options The client, the state key, who may call, and where legacy sessions live.
 * @returns A Hono app: `/mcp/:server` (POST both eras; GET and DELETE for legacy sessions),
 *   `GET /healthz`, `GET /servers`.
 * @throws {TypeError} When the client was not made by `createClient`, the key is short or not
 *   random, `auth` is malformed (or missing while `allowedHosts` is set), or a host, origin or
 *   `publicUrl` is not one.
 * @example
 * ```ts
 * import { createFront } from "./create-front.ts";
 * import { createClient } from "../client/create-client.ts";
 * const client = createClient({ name: "gate", policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }] });
 * const app = createFront({ client, stateKey: crypto.getRandomValues(new Uint8Array(32)) });
 * const health = await app.request("/healthz");
 * console.log(health.status); // 200
 * ```
 */
export function createFront(options: FrontOptions): Hono {
  const internals = clientInternals(options.client);
  if (internals === undefined) throw new TypeError("createFront(): the client must come from createClient()");
  checkSecret(options.stateKey);
  const callers = checkCallerOptions(options);
  const key: Promise<StateKey> = importStateKey(options.stateKey);
  key.catch(() => {});
  const servers = new Map<string, FrontServer>(
    internals.policies().map((
      policy,
    ) => [policy.server, createFrontServer(policy, internals, options.client.name)]),
  );
  const upstreams = new FrontUpstreams(internals);
  const signIn = createFrontSignIn(internals, {
    clientName: options.client.name,
    publicBase: callers.publicBase,
  });
  const legacy = new LegacyCallers({
    servers,
    upstreams,
    clock: internals.clock,
    timers: internals.timers,
    signIn,
    decide: internals.decide,
    client: options.client.name,
  });
  internals.onClose(() => legacy.close());
  const inProcess = (request: LegacyRequest) => legacy.handle(request);
  const serveLegacy = options.legacySessions ?? inProcess;
  const parts: ModernParts = {
    internals,
    upstreams,
    key,
    parked: new Map(),
    logs: new Map(),
    tasks: new FrontTasks(),
    spend: spenderOf(internals.store),
    signIn,
  };
  const app = new Hono();
  IN_PROCESS.set(app, inProcess);
  const gate = mountCallerGate(app, callers, servers);
  signIn.mount(app);
  app.get("/healthz", (c) => c.json({ ok: true }));
  // Each caller sees the servers its policies' `access` lets it use.
  app.get("/servers", (c) => {
    const principal = gate.principalOf(c.req.raw);
    const mine = new Map([...servers].filter(([, server]) => accessOf(server.policy, principal).allowed));
    return c.json(frontServerList(mine));
  });
  app.all("/mcp/:server", async (c) => {
    const request = c.req.raw;
    const serverId = c.req.param("server");
    const principal = gate.principalOf(request);
    if (request.method === "GET" || request.method === "DELETE") {
      return await serveLegacy({ request, serverId, principal });
    }
    if (request.method !== "POST") return c.body(null, 405, { Allow: "GET, POST, DELETE" });
    if (!isJson(request.headers.get("content-type"))) {
      return respond(
        c,
        refusal(415, null, -32000, "Unsupported Media Type: the body must be application/json"),
      );
    }
    const server = servers.get(serverId);
    // An unknown server is answered 404 once the request is read, within the default limits.
    const limits = server?.policy ?? POLICY_DEFAULTS;
    const body = await readDownstreamBody(request, limits.maxMessageBytes);
    if ("status" in body) return respond(c, body);
    const parsed = parseDownstream(body.text, { maxJsonDepth: limits.maxJsonDepth });
    if ("status" in parsed) return respond(c, parsed);
    const era = classifyDownstream(parsed.message, request.headers);
    if (typeof era !== "string") return respond(c, era);
    const refused = server === undefined ? undefined : gate.toolRefusal(c, parsed.message, server, principal);
    if (refused !== undefined) return refused;
    if (era === "legacy") return await serveLegacy({ request, serverId, message: parsed.message, principal });
    const read = readDownstreamRequest(parsed.message, request.headers);
    const checked = typeof read === "object" && !("status" in read) ? { ...read, principal } : read;
    if (checked === "notification") return c.body(null, 202);
    if ("status" in checked) return respond(c, checked);
    if (server === undefined) {
      return respond(
        c,
        refusal(404, checked.message.id, -32601, `Unknown server ${JSON.stringify(serverId.slice(0, 64))}`),
      );
    }
    return await modernPost(c, server, checked, parts);
  });
  return app;
}

/**
 * A front's own, in-process handling of legacy requests, also when `legacySessions` serves them
 * elsewhere: the Workers entry answers sessionless requests with it at the edge, and serves a
 * session with it inside that session's Durable Object. Not part of the public API.
 *
 * @param app A front made by {@linkcode createFront}.
 * @returns Its handler, or `undefined` for another app.
 */
export function frontLegacyHandler(app: Hono): ((request: LegacyRequest) => Promise<Response>) | undefined {
  return IN_PROCESS.get(app);
}

/** Serves one modern request. */
async function modernPost(
  c: Context,
  server: FrontServer,
  request: DownstreamRequest,
  parts: ModernParts,
): Promise<Response> {
  const { internals } = parts;
  const id = request.message.id;
  const serverId = server.policy.server;
  const method = request.message.method;
  if (
    method !== "server/discover" && !FORWARDED.has(method) && !MRTR_METHODS.has(method) &&
    !TASK_METHODS.has(method)
  ) {
    return respond(c, refusal(404, id, -32601, `Method not found: ${JSON.stringify(method.slice(0, 64))}`));
  }
  // The call's one signal (openFlow): upstream legs arm their deadlines on it.
  const flow = openFlow([c.req.raw.signal], {
    ms: server.policy.maxTotalTimeoutMs,
    which: "total",
    timers: internals.timers,
  });
  let flowHandedOff = false;
  // The caller's own tokens, when the server signs in per person.
  const fetch = parts.signIn.fetchFor(serverId, request.principal, new URL(c.req.url).origin);
  try {
    const upstream = await parts.upstreams.forModernCallers(server, request.principal, flow.signal, fetch);
    if (method === "server/discover") {
      const outcome = await upstream.request((session) =>
        frontDiscover(session, serverId, flow.signal, fetch)
      );
      return respond(c, toResponse(request, outcome));
    }
    if (FORWARDED.has(method)) {
      const outcome = await upstream.request(async (session) => {
        const result = await session.request(method, withoutMeta(request.params), {
          signal: flow.signal,
          fetch,
        });
        return resultForCaller(
          toolsVisibleTo(result, method, server.policy, request.principal),
          method,
          "modern",
        );
      });
      return respond(c, toResponse(request, outcome));
    }
    if (TASK_METHODS.has(method)) {
      // A legacy server's tasks are awaited within the call: the caller never sees their ids.
      if (upstream.era === "legacy") {
        return respond(c, refusal(404, id, -32601, `Method not found: ${JSON.stringify(method)}`));
      }
      const outcome = await parts.tasks.serve({
        server,
        session: parts.upstreams.modernOf(server).session,
        request,
        signal: flow.signal,
        stateKey: await parts.key,
        fetch,
      });
      return respond(c, toResponse(request, outcome));
    }
    const stateKey = await parts.key;
    const logLevel = askedLogLevel(request, server);
    const startedAt = internals.clock.now();
    /** The upstream failure behind an error outcome, for the operator's event (the caller gets its class). */
    let failure: unknown;
    let rounds: number | undefined;
    const onFailure = (cause: unknown) => void (failure = cause);
    const onRounds = (counted: number) => void (rounds = counted);
    const call = (emit?: (notification: JsonRpcNotification) => void) => {
      const onNotification = emit === undefined ? undefined : relayTo(emit, request, server, parts, logLevel);
      const outcome = upstream.era === "legacy"
        ? frontLegacyCall({
          server,
          lease: () => upstream.lease(),
          request,
          stateKey,
          clock: internals.clock,
          timers: internals.timers,
          signal: c.req.raw.signal,
          parked: parts.parked,
          onNotification,
        })
        : frontCall({
          server,
          session: parts.upstreams.modernOf(server).session,
          request,
          stateKey,
          clock: internals.clock,
          timers: internals.timers,
          signal: flow.signal,
          onNotification,
          logLevel,
          spend: parts.spend,
          fetch,
          onFailure,
          onRounds,
        });
      return outcome.then((result) => {
        reportCall(internals, server, request, result, startedAt, failure, rounds);
        return toResponse(request, result);
      });
    };
    if (!wantsStream(c.req.header("accept"))) return respond(c, await call());
    // The flow must outlive this handler when the answer streams: the call disposes of it.
    const streaming = flow;
    flowHandedOff = true;
    return await respondStreaming(
      c,
      (emit) => call(emit).finally(() => streaming.dispose()),
      // On Workers, keep the isolate until the upstream call has ended, even if the caller left.
      (done) => background(c, done),
    );
  } catch (failure) {
    // A sign-in needed before the call reached the server (the era probe): asked like any other.
    const asked = MRTR_METHODS.has(method)
      ? await signInAsked(failure, { server, request, stateKey: await parts.key, clock: internals.clock })
      : undefined;
    if (asked !== undefined) return respond(c, toResponse(request, asked));
    return respond(c, {
      status: 200,
      body: { jsonrpc: "2.0", id, error: upstreamFailure(failure, serverId) },
    });
  } finally {
    if (!flowHandedOff) flow.dispose();
  }
}

/**
 * What a modern caller's stream carries of the upstream's notifications: progress for its own
 * token, and log entries within the server's budget at or above the level it asked for.
 */
function relayTo(
  emit: (notification: JsonRpcNotification) => void,
  request: DownstreamRequest,
  server: FrontServer,
  parts: ModernParts,
  logLevel: LoggingLevel | undefined,
): (notification: JsonRpcNotification) => void {
  const token = (request.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return (notification) => {
    if (notification.method === "notifications/progress") {
      if (
        token !== undefined && (notification.params as { progressToken?: unknown })?.progressToken === token
      ) {
        emit(notification);
      }
      return;
    }
    if (notification.method !== "notifications/message") return;
    let logs = parts.logs.get(server.policy.server);
    if (logs === undefined) {
      logs = new LogRelay({ rate: server.policy.logRateLimit, clock: parts.internals.clock });
      parts.logs.set(server.policy.server, logs);
    }
    const log = logs.relay(notification.params, logLevel);
    if (log !== undefined) emit(log);
  };
}

/** The log level a modern caller asked for (`_meta` `logLevel`), within the policy's; none when it asked none. */
function askedLogLevel(request: DownstreamRequest, server: FrontServer): LoggingLevel | undefined {
  const asked = request.meta["io.modelcontextprotocol/logLevel"];
  return asked === undefined ? undefined : effectiveLogLevel(server.policy.logLevel, asked);
}

/** The key is checked here, so a bad key fails at start-up rather than on a call. */
function checkSecret(secret: unknown): void {
  const problem = stateKeyProblem(secret);
  if (problem !== undefined) throw new TypeError(`createFront(): "stateKey" ${problem}`);
}

/**
 * Spends nonces in the client's store: claimed with `claim` until the state expires. A store
 * that cannot claim spends nothing (a state may then be redeemed until it expires), and a store
 * that fails refuses the retry: a replay must not pass because Redis was away.
 */
function spenderOf(store: RateLimitStore): ((nonce: string, ttlMs: number) => Promise<boolean>) | undefined {
  if (store.claim === undefined) return undefined;
  return async (nonce, ttlMs) => {
    try {
      return await store.claim!(`state:${nonce}`, ttlMs);
    } catch {
      return false;
    }
  };
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

function ok(id: DownstreamRequest["message"]["id"], result: JsonObject) {
  return { status: 200, body: encodeResult(id, result) };
}

function toResponse(request: DownstreamRequest, outcome: FrontCallOutcome) {
  const id = request.message.id;
  if (outcome.kind === "result") return ok(id, outcome.result);
  return { status: outcome.status, body: { jsonrpc: "2.0" as const, id, error: outcome.error } };
}

function withoutMeta(params: JsonObject): JsonObject {
  const { _meta: _dropped, ...rest } = params;
  return rest;
}

function wantsStream(accept: string | undefined): boolean {
  return accept?.includes("text/event-stream") === true;
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/**
 * The decision event of one call through the front: how it ended for its caller, and the
 * upstream's real cause when it failed (the caller is told only its class).
 */
function reportCall(
  internals: ClientInternals,
  server: FrontServer,
  request: DownstreamRequest,
  outcome: FrontCallOutcome,
  startedAt: number,
  failure: unknown,
  rounds: number | undefined,
): void {
  const params = request.params as { name?: unknown; uri?: unknown };
  const name = typeof params.name === "string"
    ? params.name
    : typeof params.uri === "string"
    ? params.uri
    : undefined;
  const result = outcome.kind === "result"
    ? outcome.result as { resultType?: unknown; isError?: unknown }
    : undefined;
  internals.decide({
    type: "call",
    time: new Date(internals.clock.now()).toISOString(),
    client: internals.clientInfo.name,
    server: server.policy.server,
    ...(request.principal?.subject === undefined ? {} : { caller: request.principal.subject }),
    method: request.message.method,
    ...(name === undefined ? {} : { name }),
    outcome: result === undefined
      ? "failed"
      : result.resultType === "input_required"
      ? "input_required"
      : result.isError === true
      ? "tool_error"
      : "completed",
    ...(outcome.kind === "error"
      ? {
        error: failure === undefined
          ? { kind: "gateway", code: outcome.error.code, message: outcome.error.message }
          : failureOf(failure),
      }
      : {}),
    ...(rounds === undefined ? {} : { rounds }),
    durationMs: internals.clock.now() - startedAt,
  });
}
