/**
 * The front: a Hono app that puts sluice between MCP hosts and upstream servers. Hosts talk
 * modern-era MCP (2026-07-28) to `POST /mcp/<server>`; the front enforces that server's policy,
 * answers input requests with the client's handlers, or passes them down to the host, holding no
 * state between rounds (the continuation is sealed into `requestState`).
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { Client } from "../client/client-types.ts";
import { clientInternals } from "../client/client-core.ts";
import { openFlow } from "../client/_signals.ts";
import { ClientError } from "../errors.ts";
import { encodeResult, type JsonObject, type JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { createFrontServer, type FrontServer } from "./front-server.ts";
import { type DownstreamRequest, readDownstreamRequest, refusal } from "./downstream-request.ts";
import { readDownstreamBody } from "./_downstream-body.ts";
import { POLICY_DEFAULTS } from "../policy/policy-defaults.ts";
import { frontCall, type FrontCallOutcome } from "./front-call.ts";
import { frontLegacyCall, type ParkedCall } from "./front-legacy-call.ts";
import type { ServerSession } from "../client/server-session.ts";
import { importStateKey, MIN_SECRET_BYTES, type StateKey } from "./sealed-state.ts";
import { frontDiscover, frontServerList } from "./_front-info.ts";
import { respond, respondStreaming } from "./_front-response.ts";
import type { ModernSession } from "../client/modern/modern-session.ts";

/** Options of {@linkcode createFront}. */
export interface FrontOptions {
  /** The client whose policies, handler and budgets the front uses (from `createClient`). */
  readonly client: Client;
  /** The secret that seals continuation states: at least 32 bytes; the same on every isolate. */
  readonly stateKey: string | Uint8Array;
}

const MRTR_METHODS = new Set(["tools/call", "resources/read", "prompts/get"]);
const FORWARDED = new Set(["tools/list", "resources/list", "resources/templates/list", "prompts/list"]);

/**
 * Creates the front.
 *
 * @param options The client and the state key.
 * @returns A Hono app: `POST /mcp/:server`, `GET /healthz`, `GET /servers`.
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
  // Legacy upstreams: the front's own session per server (its chain declares the kinds passed
  // down), and the calls parked while their callers answer.
  const legacySessions = new Map<string, ServerSession>();
  const legacyOf = (serverId: string, server: FrontServer): ServerSession => {
    let session = legacySessions.get(serverId);
    if (session === undefined) {
      session = internals.legacySession(serverId, server.chain);
      legacySessions.set(serverId, session);
    }
    return session;
  };
  const parked = new Map<string, ParkedCall>();
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/servers", (c) => c.json(frontServerList(servers)));
  app.on(["GET", "DELETE", "PUT", "PATCH"], "/mcp/:server", (c) => c.body(null, 405, { Allow: "POST" }));
  app.post("/mcp/:server", async (c) => {
    const serverId = c.req.param("server");
    const server = servers.get(serverId);
    // An unknown server is answered 404 once the request is read, within the default limits.
    const limits = server?.policy ?? POLICY_DEFAULTS;
    const body = await readDownstreamBody(c.req.raw, limits.maxMessageBytes);
    if ("status" in body) return respond(c, body);
    const request = readDownstreamRequest(body.text, c.req.raw.headers, {
      maxJsonDepth: limits.maxJsonDepth,
    });
    if (request === "notification") return c.body(null, 202);
    if ("status" in request) return respond(c, request);
    const id = request.message.id;
    if (server === undefined) {
      return respond(c, refusal(404, id, -32601, `Unknown server ${JSON.stringify(serverId.slice(0, 64))}`));
    }
    // The call's one signal (openFlow): upstream legs arm their deadlines on it.
    const flow = openFlow([c.req.raw.signal], {
      ms: server.policy.maxTotalTimeoutMs,
      which: "total",
      timers: internals.timers,
    });
    let flowHandedOff = false;
    try {
      const session = await internals.sessionOf(serverId, flow.signal);
      const method = request.message.method;
      if (method === "server/discover") return respond(c, ok(id, await frontDiscover(session, flow.signal)));
      if (FORWARDED.has(method)) {
        return respond(
          c,
          ok(id, await session.request(method, withoutMeta(request.params), { signal: flow.signal })),
        );
      }
      if (!MRTR_METHODS.has(method)) {
        return respond(
          c,
          refusal(404, id, -32601, `Method not found: ${JSON.stringify(method.slice(0, 64))}`),
        );
      }
      if (session.era === "legacy") {
        return respond(
          c,
          toResponse(
            request,
            await frontLegacyCall({
              server,
              session: legacyOf(serverId, server),
              request,
              stateKey: await key,
              clock: internals.clock,
              timers: internals.timers,
              signal: c.req.raw.signal,
              parked,
            }),
          ),
        );
      }
      const stateKey = await key;
      const call = (onNotification?: (notification: JsonRpcNotification) => void) =>
        frontCall({
          server,
          session: (session as unknown as { session: ModernSession }).session,
          request,
          stateKey,
          clock: internals.clock,
          timers: internals.timers,
          signal: flow.signal,
          onNotification,
        }).then((outcome) => toResponse(request, outcome));
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
      const message = failure instanceof ClientError && failure.kind === "config"
        ? "Server unavailable"
        : "Internal error";
      return respond(
        c,
        refusal(
          failure instanceof ClientError && failure.kind === "timeout" ? 504 : 502,
          id,
          -32603,
          message,
        ),
      );
    } finally {
      if (!flowHandedOff) flow.dispose();
    }
  });
  return app;
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
