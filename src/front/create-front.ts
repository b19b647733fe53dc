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
 * Either way the server's policy applies to every input request, results reach the caller in
 * its own era, and an upstream failure is named by its class ({@linkcode upstreamFailure}).
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { Client } from "../client/client-types.ts";
import { clientInternals } from "../client/client-core.ts";
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
import { frontCall, type FrontCallOutcome } from "./front-call.ts";
import { frontLegacyCall, type ParkedCall } from "./front-legacy-call.ts";
import { importStateKey, MIN_SECRET_BYTES, type StateKey } from "./sealed-state.ts";
import { frontDiscover, frontServerList } from "./_front-info.ts";
import { respond, respondStreaming } from "./_front-response.ts";
import { FrontUpstreams } from "./front-upstreams.ts";
import { LegacyCallers, type LegacyRequest } from "./legacy-callers.ts";
import { effectiveLogLevel, LogRelay, resultForCaller } from "./caller-era.ts";
import { upstreamFailure } from "./upstream-failure.ts";
import { FrontTasks, TASK_METHODS } from "./front-tasks.ts";
import type { ClientInternals } from "../client/client-core.ts";

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
}

/**
 * Creates the front.
 *
 * @param options The client, the state key, and where legacy sessions live.
 * @returns A Hono app: `/mcp/:server` (POST both eras; GET and DELETE for legacy sessions),
 *   `GET /healthz`, `GET /servers`.
 * @throws {TypeError} When the client was not made by `createClient`, or the key is too short.
 * @example
 * ```ts
 * import { createFront } from "./create-front.ts";
 * import { createClient } from "../client/create-client.ts";
 * const client = createClient({ name: "gate", policies: [{ server: "github", transport: { url: "https://mcp.example.com/mcp" } }] });
 * const app = createFront({ client, stateKey: "0123456789abcdef0123456789abcdef" });
 * const health = await app.request("/healthz");
 * console.log(health.status); // 200
 * ```
 */
export function createFront(options: FrontOptions): Hono {
  const internals = clientInternals(options.client);
  if (internals === undefined) throw new TypeError("createFront(): the client must come from createClient()");
  checkSecret(options.stateKey);
  const key: Promise<StateKey> = importStateKey(options.stateKey);
  key.catch(() => {});
  const servers = new Map<string, FrontServer>(
    internals.policies().map((
      policy,
    ) => [policy.server, createFrontServer(policy, internals, options.client.name)]),
  );
  const upstreams = new FrontUpstreams(internals);
  const legacy = new LegacyCallers({ servers, upstreams, clock: internals.clock, timers: internals.timers });
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
  };
  const app = new Hono();
  IN_PROCESS.set(app, inProcess);
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/servers", (c) => c.json(frontServerList(servers)));
  app.all("/mcp/:server", async (c) => {
    const request = c.req.raw;
    const serverId = c.req.param("server");
    if (!sameOrigin(request)) {
      return respond(c, refusal(403, null, -32000, "Forbidden: the request's Origin is not this gateway's"));
    }
    if (request.method === "GET" || request.method === "DELETE") {
      return await serveLegacy({ request, serverId });
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
    if (era === "legacy") return await serveLegacy({ request, serverId, message: parsed.message });
    const checked = readDownstreamRequest(parsed.message, request.headers);
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
  try {
    const session = await parts.upstreams.forModernCallers(server, flow.signal);
    if (method === "server/discover") {
      return respond(c, ok(id, await frontDiscover(session, serverId, flow.signal)));
    }
    if (FORWARDED.has(method)) {
      const result = await session.request(method, withoutMeta(request.params), { signal: flow.signal });
      return respond(c, ok(id, resultForCaller(result, method, "modern")));
    }
    if (TASK_METHODS.has(method)) {
      // A legacy server's tasks are awaited within the call: the caller never sees their ids.
      if (session.era === "legacy") {
        return respond(c, refusal(404, id, -32601, `Method not found: ${JSON.stringify(method)}`));
      }
      const outcome = await parts.tasks.serve({
        server,
        session: parts.upstreams.modernOf(server).session,
        request,
        signal: flow.signal,
      });
      return respond(c, toResponse(request, outcome));
    }
    const stateKey = await parts.key;
    const logLevel = askedLogLevel(request, server);
    const call = (emit?: (notification: JsonRpcNotification) => void) => {
      const onNotification = emit === undefined ? undefined : relayTo(emit, request, server, parts, logLevel);
      const outcome = session.era === "legacy"
        ? frontLegacyCall({
          server,
          session,
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
        });
      return outcome.then((result) => toResponse(request, result));
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

/** The key's length is checked here, so a bad key fails at start-up rather than on a call. */
function checkSecret(secret: unknown): void {
  const bytes = typeof secret === "string"
    ? new TextEncoder().encode(secret).length
    : secret instanceof Uint8Array
    ? secret.length
    : -1;
  if (bytes < 0) {
    throw new TypeError(
      `createFront(): "stateKey" must be a string or a Uint8Array, received "${typeof secret}"`,
    );
  }
  if (bytes < MIN_SECRET_BYTES) {
    throw new TypeError(
      `createFront(): "stateKey" must be at least "${MIN_SECRET_BYTES}" bytes of random data, received "${bytes}" bytes`,
    );
  }
}

/**
 * Whether a browser's request comes from the gateway's own origin (the transport spec: a server
 * MUST validate `Origin`). Hosts that are not browsers send none.
 */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  try {
    return new URL(origin).origin === new URL(request.url).origin;
  } catch {
    return false;
  }
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
