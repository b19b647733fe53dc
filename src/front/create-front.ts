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
import { Hono } from "hono";
import { encodeError } from "../protocol/jsonrpc.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { Client } from "../client/client-types.ts";
import { clientInternals } from "../client/client-internals.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import { LogBudgets } from "../notify/log-budget.ts";
import { createFrontServer, type FrontServer } from "./front-server.ts";
import { importStateKey, type StateKey } from "./sealed-state.ts";
import { secretKeyProblem } from "../_internal/secret-key.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { describeValue } from "../_internal/quote.ts";
import { frontServerList } from "./_front-info.ts";
import { createFrontSignIn, type SignInUser } from "./front-sign-in.ts";
import { FrontUpstreams } from "./front-upstreams.ts";
import { LegacyCallers, type LegacyRequest } from "./legacy-callers.ts";
import { FrontTasks } from "./front-tasks.ts";
import type { GatewayAuth } from "./downstream-auth.ts";
import { accessOf } from "./access.ts";
import { checkCallerOptions, mountCallerGate } from "./front-callers.ts";
import { frontPost, type FrontPostParts } from "./front-post.ts";
import type { ModernParts } from "./front-modern-post.ts";
import type { Duration } from "../policy/duration.ts";
import { DEFAULT_HEARTBEAT, HEARTBEAT_RULE, heartbeatMsOf } from "./heartbeat.ts";

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
  readonly legacySessions?: ((request: LegacyRequest) => Promise<Response>) | undefined;
  /**
   * Who may call the gateway: bearer secrets, JWT access tokens, a function, or `"none"` (see
   * {@linkcode GatewayAuth}). Required when `allowedHosts` is set (the gateway is then reachable
   * from the network); without either, the front answers loopback names only.
   * @default "none", for a gateway that answers loopback names only
   */
  readonly auth?: GatewayAuth | undefined;
  /**
   * Host names answered besides loopback ones (`"gate.example.com"`, `"gate.example.com:8443"`),
   * or `"routed"` where the platform delivers only the deployment's own names.
   * @default none: loopback names only
   */
  readonly allowedHosts?: readonly string[] | "routed" | undefined;
  /** Origins whose pages may call the gateway besides its own (they get CORS headers). @default none */
  readonly allowedOrigins?: readonly string[] | undefined;
  /**
   * The gateway's public origin (`https://gate.example.com`, no path), when it differs from what
   * requests say (behind a proxy that rewrites Host or scheme): the base of the resource URLs
   * that tokens must name and the protected resource metadata gives, and an origin whose pages
   * are the gateway's own. @default each request's own origin
   */
  readonly publicUrl?: string | undefined;
  /**
   * How often an open SSE stream carries a comment (`"15s"`; from `"100ms"` to `"596h"`), or
   * `false` for never: a call's answer while the upstream works (the first beat opens the stream,
   * so a longer call answers with SSE even without notifications) and a legacy caller's GET
   * stream. Proxies close connections idle for a minute or so, and where the runtime does not tell
   * a request that its caller left (Deno, workerd), the write is how the gateway learns it and ends
   * the upstream request. @default "15s"
   */
  readonly heartbeat?: Duration | false | undefined;
  /**
   * Who the person in a browser is (see {@linkcode SignInUser}): the upstream sign-in pages
   * (`/oauth/start/<state>`) and the callback then answer `403` to a browser whose user is not the
   * caller the sign-in was started for, and the link stays open for that caller. Without it, a
   * link passed on (or phished) before its caller opened it stores someone else's upstream account
   * under the caller. Set it wherever users can be identified (an SSO proxy's header, Cloudflare
   * Access, your site's session); it needs an `auth` other than `"none"`, whose subjects it must
   * return.
   * @default none: the first browser to confirm a sign-in link completes it
   */
  readonly signInUser?: SignInUser | undefined;
}

/** Each front's own legacy handling (see {@linkcode frontLegacyHandler}). */
const IN_PROCESS = new WeakMap<Hono, (request: LegacyRequest) => Promise<Response>>();

/** Begins each front's close (see {@linkcode drainFront}). */
const DRAINS = new WeakMap<Hono, (options: DrainOptions) => Promise<void>>();

/** How {@linkcode drainFront} closes a front. */
export interface DrainOptions {
  /**
   * `false` when callers can no longer send the answers their requests in flight wait for (the
   * server stopped listening): those are ended rather than waited for. @default true
   */
  readonly answersCanCome?: boolean;
}

/** The options {@linkcode createFront} knows. */
const FRONT_OPTION_KEYS: readonly (keyof FrontOptions)[] = [
  "client",
  "stateKey",
  "legacySessions",
  "auth",
  "allowedHosts",
  "allowedOrigins",
  "publicUrl",
  "heartbeat",
  "signInUser",
];

/**
 * Creates the front.
 *
 * @param options The client, the state key, who may call, and where legacy sessions live.
 * @returns A Hono app: `/mcp/:server` (POST both eras; GET and DELETE for legacy sessions),
 *   `GET /healthz`, `GET /servers`.
 * @throws {TypeError} When the options hold a key that is not an option (a misspelt one), the
 *   client was not made by `createClient`, `legacySessions` is not a function, the key is short or not
 *   random, `auth` is malformed (or missing while `allowedHosts` is set), a host, origin or
 *   `publicUrl` is not one, `heartbeat` is neither a duration of at least 100 ms nor `false`, or
 *   `signInUser` is not a function or is set with `auth: "none"`.
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
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `createFront(): the options must be an object { client, stateKey, … }, received ${
        describeValue(options)
      }`,
    );
  }
  checkOptionKeys(options, FRONT_OPTION_KEYS, "createFront()");
  if (options.legacySessions !== undefined && typeof options.legacySessions !== "function") {
    throw new TypeError(
      `createFront(): "legacySessions" must be a function (request) => Response, received ${
        describeValue(options.legacySessions)
      }`,
    );
  }
  const internals = clientInternals(options.client);
  if (internals === undefined) throw new TypeError("createFront(): the client must come from createClient()");
  // The key is checked here, so a bad key fails at start-up rather than on a call.
  const problem = secretKeyProblem(options.stateKey);
  if (problem !== undefined) throw new TypeError(`createFront(): "stateKey" ${problem}`);
  const callers = checkCallerOptions(options, internals.clock);
  const beats = heartbeatMs(options.heartbeat);
  const heartbeat = beats === undefined ? undefined : { ms: beats, timers: internals.timers };
  const key: Promise<StateKey> = importStateKey(options.stateKey);
  key.catch(() => {});
  const client = options.client.name;
  const servers = new Map<string, FrontServer>(
    internals.policies().map((policy) => [policy.server, createFrontServer(policy, internals, client)]),
  );
  const upstreams = new FrontUpstreams(internals);
  const signIn = createFrontSignIn(internals, {
    clientName: client,
    publicBase: callers.publicBase,
    signInUser: checkSignInUser(options.signInUser, callers.anonymous),
  });
  const legacy = new LegacyCallers({
    servers,
    upstreams,
    clock: internals.clock,
    timers: internals.timers,
    signIn,
    decisions: internals.decisions,
    client,
    assigns: internals.assigns,
    heartbeat,
  });
  internals.onClose(() => legacy.close());
  const inProcess = (request: LegacyRequest) => legacy.handle(request);
  const serveLegacy = options.legacySessions ?? inProcess;
  const modern: ModernParts = {
    internals,
    upstreams,
    key,
    parked: new Map(),
    logs: new LogBudgets(internals.clock, (serverId) => servers.get(serverId)?.policy.logRateLimit),
    tasks: new FrontTasks(internals),
    ...spenderOf(internals.store),
    signIn,
    heartbeat,
  };
  const app = new Hono();
  // What a route throws unforeseen reaches the operator where they look, and the caller as a
  // JSON-RPC error rather than Hono's plain-text 500.
  app.onError((error, c) => {
    console.error(`sluice: the gateway failed to answer ${c.req.method} ${c.req.path}:`, error);
    return c.json(
      encodeError(null, {
        code: -32603,
        message: "Internal error: the gateway failed to answer this request",
      }),
      500,
    );
  });
  IN_PROCESS.set(app, inProcess);
  DRAINS.set(app, (options) => legacy.drain(options));
  const gate = mountCallerGate(app, callers, servers);
  const post: FrontPostParts = { servers, gate, serveLegacy, modern };
  signIn.mount(app);
  app.get("/healthz", (c) => c.json({ ok: true }));
  // Each caller sees the servers its policies' `access` lets it use.
  app.get("/servers", (c) => {
    const principal = gate.principalOf(c.req.raw);
    const mine = new Map([...servers].filter(([, server]) => accessOf(server.policy, principal).allowed));
    return c.json(frontServerList(mine));
  });
  // Not async: each route hands on its promise, with no step of its own on every call.
  app.all("/mcp/:server", (c): Response | Promise<Response> => {
    const request = c.req.raw;
    if (request.method === "POST") return frontPost(c, post);
    if (request.method !== "GET" && request.method !== "DELETE") {
      return c.body(null, 405, { Allow: "GET, POST, DELETE" });
    }
    // GET streams and DELETE belong to 2025 sessions; the 2026-07-28 transport answers them 405.
    if (request.headers.get("mcp-protocol-version") === MODERN_PROTOCOL_VERSION) {
      return getOrDeleteNotAllowed();
    }
    const principal = gate.principalOf(request);
    return serveLegacy({ request, serverId: c.req.param("server"), principal });
  });
  return app;
}

const MODERN_GET_OR_DELETE =
  `Method Not Allowed: MCP-Protocol-Version ${MODERN_PROTOCOL_VERSION} has no GET stream and no session to DELETE; POST each request`;

/**
 * Checks the `signInUser` option: a function, and only where callers have subjects to compare.
 *
 * @param signInUser The option.
 * @param anonymous Whether `auth` is `"none"` (every caller the one principal without a subject).
 * @returns The option.
 * @throws {TypeError} When it is not a function, or `auth` is `"none"`.
 */
function checkSignInUser(signInUser: unknown, anonymous: boolean): SignInUser | undefined {
  if (signInUser === undefined) return undefined;
  if (typeof signInUser !== "function") {
    throw new TypeError(
      `createFront(): "signInUser" must be a function (request) => subject | undefined, received "${typeof signInUser}"`,
    );
  }
  if (anonymous) {
    throw new TypeError(
      `createFront(): "signInUser" needs "auth": with auth "none" callers have no subject to compare a browser's user with, expected bearer secrets, JWT settings or a function`,
    );
  }
  return signInUser as SignInUser;
}

/**
 * The answer of the 2026-07-28 transport, which has no sessions, to a GET or DELETE: `405`,
 * `Allow: POST`. The front gives it to a 2026 caller; an entry that serves no 2025 sessions (a
 * Worker without its sessions' binding) gives it to every caller. Not part of the public API.
 *
 * @returns A new response.
 */
export function getOrDeleteNotAllowed(): Response {
  return new Response(JSON.stringify(encodeError(null, { code: -32000, message: MODERN_GET_OR_DELETE })), {
    status: 405,
    headers: { "content-type": "application/json", allow: "POST" },
  });
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

/**
 * Begins the close of a front's legacy callers in this process ({@linkcode LegacyCallers.drain}).
 * Not part of the public API.
 *
 * @param app A front made by {@linkcode createFront}; another app has nothing to drain.
 * @param options Whether callers can still send their answers.
 * @returns Resolves once no legacy caller has a request in flight.
 */
export async function drainFront(app: Hono, options: DrainOptions = {}): Promise<void> {
  await DRAINS.get(app)?.(options);
}

/**
 * Spends nonces in the client's store: claimed with `claim` until the state expires, and given
 * back with `release`. A store that cannot claim spends nothing (a state may then be redeemed
 * until it expires), and a store that fails rejects, which refuses the retry: a replay must not
 * pass because Redis was away.
 */
function spenderOf(store: RateLimitStore): Pick<ModernParts, "spend" | "giveBack"> {
  const claim = store.claim?.bind(store);
  const release = store.release?.bind(store);
  if (claim === undefined) return { spend: undefined, giveBack: undefined };
  return {
    spend: async (nonce, ttlMs) => await claim(`state:${nonce}`, ttlMs),
    giveBack: release === undefined ? undefined : async (nonce) => await release(`state:${nonce}`),
  };
}

/** Reads `heartbeat`: milliseconds, or `undefined` for none. */
function heartbeatMs(value: unknown): number | undefined {
  if (value === false) return undefined;
  const ms = heartbeatMsOf(value === undefined ? DEFAULT_HEARTBEAT : typeof value === "string" ? value : "");
  if (ms !== undefined) return ms;
  throw new TypeError(
    `createFront(): "heartbeat" must be ${HEARTBEAT_RULE} or false, received ${
      JSON.stringify(value) ?? String(value)
    }`,
  );
}
