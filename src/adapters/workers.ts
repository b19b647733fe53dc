/**
 * `@sluice/mcp/workers`: the front as a Cloudflare Worker. `export default createWorker({...})` is the
 * whole Worker; it needs no compatibility flags (no `nodejs_compat`).
 *
 * Settings come from `env`: the secret `SLUICE_STATE_KEY` (required, at least 32 random bytes, the
 * same on every isolate: `openssl rand -base64 32 | npx wrangler secret put SLUICE_STATE_KEY`), and
 * optionally `UPSTASH_REDIS_REST_URL` with `UPSTASH_REDIS_REST_TOKEN`, which share input budgets
 * across isolates in Upstash Redis (else each isolate keeps its own in memory); a policy's
 * `transport.auth` reads the secrets it names from `env` too. Policies must say `era: "modern"` and
 * give a `transport.url`: the Worker speaks only 2026-07-28 upstream, over HTTP.
 *
 * 2025-11-25 and 2025-06-18 hosts' sessions each live in their own Durable Object's memory (the
 * `Sessions` class, bound as `SLUICE_SESSIONS`); the edge mints the session id and relays through
 * `idFromName(id)`. An evicted object (idle, a deploy) loses its session, and the host's next request
 * gets `404`, on which the transport spec has it initialize again. Each object has its own budgets
 * unless Upstash shares them, and `maxSessions` is not counted across objects.
 *
 * ```ts ignore
 * // src/index.ts, with `main: "src/index.ts"` in wrangler.jsonc
 * import { createWorker } from "@sluice/mcp/workers";
 *
 * interface Env {
 *   SLUICE_STATE_KEY: string;
 *   GATEWAY_TOKEN: string; // openssl rand -base64 32 | npx wrangler secret put GATEWAY_TOKEN
 *   UPSTREAM_URL: string;
 *   UPSTREAM_TOKEN: string;
 * }
 *
 * const worker = createWorker<Env>({
 *   policies: (env) => [{
 *     server: "upstream",
 *     transport: { url: env.UPSTREAM_URL, headers: { authorization: `Bearer ${env.UPSTREAM_TOKEN}` } },
 *     era: "modern",
 *     passDown: ["elicitation"],
 *   }],
 *   handler: { roots: () => ({ roots: [{ uri: "file:///workspace", name: "workspace" }] }) },
 *   auth: (env) => ({ bearer: [{ secret: env.GATEWAY_TOKEN, subject: "agents" }] }),
 * });
 * export default worker;
 * // The Durable Object class of 2025 hosts' sessions (optional: only 2026 callers without it).
 * export const SluiceSessions = worker.Sessions;
 * ```
 *
 * ```jsonc ignore
 * // wrangler.jsonc: the binding name is fixed, the class name is the export's
 * "durable_objects": { "bindings": [{ "name": "SLUICE_SESSIONS", "class_name": "SluiceSessions" }] },
 * "migrations": [{ "tag": "v1", "new_sqlite_classes": ["SluiceSessions"] }]
 * ```
 *
 * @example
 * ```ts
 * import { createWorker } from "@sluice/mcp/workers";
 * const worker = createWorker<{ SLUICE_STATE_KEY?: string; GATEWAY_TOKEN?: string }>({
 *   policies: [{ server: "docs", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
 *   auth: (env) => ({ bearer: [{ secret: env.GATEWAY_TOKEN ?? "", subject: "agents" }] }),
 * });
 * const ctx = { waitUntil() {} };
 * const missing = await worker.fetch(new Request("https://gate.example/healthz"), {}, ctx);
 * console.log(missing.status); // 500, and the body names SLUICE_STATE_KEY
 * const env = {
 *   SLUICE_STATE_KEY: crypto.randomUUID() + crypto.randomUUID(),
 *   GATEWAY_TOKEN: crypto.randomUUID() + crypto.randomUUID(),
 * };
 * const health = await worker.fetch(new Request("https://gate.example/healthz"), env, ctx);
 * console.log(await health.json()); // { ok: true }
 * const anonymous = await worker.fetch(new Request("https://gate.example/servers"), env, ctx);
 * console.log(anonymous.status); // 401
 * ```
 *
 * @module
 */
import { Redis } from "@upstash/redis/cloudflare";
import { createClient } from "../client/create-client.ts";
import { secretKeyProblem } from "../_internal/secret-key.ts";
import type { Handler } from "../handler/handler.ts";
import { createMemoryStore } from "../limits/memory-store.ts";
import { createUpstashStore } from "../limits/upstash-store.ts";
import type { TokenStore } from "../auth/token-store.ts";
import { createUpstashTokenStore } from "../auth/upstash-token-store.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import type { Duration } from "../policy/duration.ts";
import { buildGateway, type Gateway, type GatewayOptions, isDecisions } from "./gateway.ts";
import { NO_STATE_KEY, STATE_KEY_VARIABLE } from "../_internal/secret-key.ts";
import type { Decision } from "../chain/decision.ts";
import { describeValue } from "../_internal/quote.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import type { GatewayAuth } from "../front/downstream-auth.ts";
import type { SignInUser } from "../front/front-sign-in.ts";
import { frontLegacyHandler } from "../front/create-front.ts";
import {
  isSessionsBinding,
  type LegacyHandler,
  legacyToSessions,
  SESSIONS_BINDING,
  type SessionsBinding,
  type SessionsClass,
  sessionsClass,
  withoutInternalHeaders,
} from "./_worker-sessions.ts";

export type { SessionsBinding, SessionsClass, SessionsObject } from "./_worker-sessions.ts";
export type {
  AuthFunction,
  BearerSecret,
  GatewayAuth,
  JwtAuthOptions,
  PrincipalInput,
} from "../front/downstream-auth.ts";
export type { SignInUser } from "../front/front-sign-in.ts";

/** The part of the Workers `ExecutionContext` the Worker uses. */
export interface ExecutionContextLike {
  /** Keeps the isolate alive until `promise` settles (a streamed call's upstream work). */
  waitUntil(promise: Promise<unknown>): void;
  /** Lets the request through to the origin when the Worker throws (unused by sluice). */
  passThroughOnException?(): void;
}

/** Options of {@linkcode createWorker}. */
export interface WorkerOptions<Env> {
  /**
   * One policy per upstream server, or a function of `env` returning them (for secrets in
   * `transport.headers` and URLs in vars). Called once per `env` object.
   */
  readonly policies:
    | readonly (Policy | CompiledPolicy)[]
    | ((env: Env) => readonly (Policy | CompiledPolicy)[]);
  /**
   * The callbacks that answer servers, or a function of `env` returning them (e.g.
   * `(env) => remoteHandler(env.HANDLERS)`); kinds it lacks may still be passed down (`passDown`).
   * @default no handler
   */
  readonly handler?: Handler | ((env: Env) => Handler | undefined) | undefined;
  /** The client's name: `clientInfo.name` upstream and `ctx.client`. @default "sluice" */
  readonly name?: string | undefined;
  /** Assigns handed to callbacks. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Who may call the Worker: a function of `env` returning the `auth` (`{ bearer: [...] }`,
   * `{ jwt: {...} }`, or `(request) => principal | Response`), or `"none"` to let anyone in.
   * Required, since a Worker is on the internet: without it every request gets `500`. @default none
   */
  readonly auth?: "none" | ((env: Env) => GatewayAuth | undefined) | undefined;
  /**
   * Host names answered. @default "routed": Cloudflare delivers only the Worker's own routes'
   *   requests, so every `Host` is the Worker's
   */
  readonly allowedHosts?: readonly string[] | "routed" | undefined;
  /** Origins whose pages may call the Worker besides its own (they get CORS headers). @default none */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** How often an open SSE stream carries a comment, or `false` (see `GatewayOptions`). @default "15s" */
  readonly heartbeat?: Duration | false | undefined;
  /**
   * Who the person in a browser is, as a function of `env` returning `(request) => subject |
   * undefined`; see `GatewayOptions.signInUser`.
   * @default none: the first browser to confirm a sign-in link completes it
   */
  readonly signInUser?: ((env: Env) => SignInUser | undefined) | undefined;
  /**
   * Where decision events go, as `GatewayOptions.decisions`, except that a listener gets `env` as its
   * second argument (`(decision, env) => env.AUDIT.send(decision)`); what it throws is ignored.
   * @default "json"
   */
  readonly decisions?: "json" | "text" | false | ((decision: Decision, env: Env) => unknown) | undefined;
}

/** A Worker's default export: `export default createWorker({...})`. */
export interface WorkerEntry<Env> {
  /**
   * Serves one request.
   *
   * @param request The request.
   * @param env The Worker's bindings (vars, secrets, service bindings).
   * @param ctx The execution context.
   * @returns The response; a configuration problem is a `500` with a JSON `{ error }` body.
   */
  fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response>;
  /**
   * The Durable Object class of 2025 hosts' sessions: export it from the main module and bind it as
   * `SLUICE_SESSIONS`. Without the binding, 2025 POSTs get `400` (`-32022`, naming the binding), GET
   * and DELETE `405`; 2026 callers are served as ever.
   */
  readonly Sessions: SessionsClass<Env>;
}

const PREFIX = "sluice worker:";
const UPSTASH_URL = "UPSTASH_REDIS_REST_URL";
const UPSTASH_TOKEN = "UPSTASH_REDIS_REST_TOKEN";
/** The secret upstream tokens are encrypted under in Upstash Redis (the state key when unset). */
const TOKEN_KEY_VARIABLE = "SLUICE_TOKEN_KEY";
/** The key of an `env` that is not an object (a Worker always gets one; a test may not). */
const NO_ENV: object = Object.freeze({});

/** What one `env` object gives: the gateway, or the problem every request is answered with. */
type Prepared = { readonly gateway: Gateway } | { readonly problem: string };

/** The options {@linkcode createWorker} knows. */
const WORKER_OPTION_KEYS: readonly string[] = [
  "policies",
  "handler",
  "name",
  "assigns",
  "auth",
  "allowedHosts",
  "allowedOrigins",
  "heartbeat",
  "signInUser",
  "decisions",
] satisfies readonly (keyof WorkerOptions<unknown>)[];

/**
 * Creates a Worker serving the front: `/mcp/:server`, `GET /healthz` and `GET /servers`. The gateway
 * is made once per `env` object and serves every request of the isolate, so budgets and learned tool
 * lists hold across them; each session's Durable Object makes its own.
 *
 * @param options The Worker's options; policies, handler and `auth` may be functions of `env`.
 * @returns The Worker's default export, with the sessions' class as `Sessions`. Its `fetch` never
 *   throws: a missing or weak `SLUICE_STATE_KEY`, a missing, malformed or throwing `auth`, a
 *   `signInUser` that throws or comes with `auth: "none"`, only one Upstash variable, a
 *   `SLUICE_SESSIONS` that is not a Durable Object namespace, a non-modern or stdio policy, or
 *   policies that do not compile answer `500` with a JSON `{ error }` body (a policy's or a throwing
 *   option's problem is logged in full, never sent).
 * @throws {TypeError} When `policies` is neither a list nor a function, `handler` is neither
 *   an object nor a function, or `decisions` is neither "json", "text", false nor a function.
 * @example
 * ```ts
 * import { createWorker } from "./workers.ts";
 * const worker = createWorker<{ SLUICE_STATE_KEY: string }>({
 *   policies: [{ server: "docs", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
 *   auth: "none",
 * });
 * const env = { SLUICE_STATE_KEY: crypto.randomUUID() + crypto.randomUUID() };
 * const response = await worker.fetch(new Request("https://gate.example/healthz"), env, { waitUntil() {} });
 * console.log(await response.json()); // { ok: true }
 * ```
 */
export function createWorker<Env>(options: WorkerOptions<Env>): WorkerEntry<Env> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `createWorker(): the options must be an object { policies, auth, … }, received ${
        options === null ? "null" : typeof options
      }`,
    );
  }
  checkOptionKeys(options, WORKER_OPTION_KEYS, "createWorker()");
  const { policies, handler } = options;
  if (!Array.isArray(policies) && typeof policies !== "function") {
    throw new TypeError(
      `createWorker(): "policies" must be a list or a function of env, received "${typeof policies}"`,
    );
  }
  if (
    handler !== undefined && typeof handler !== "function" &&
    (typeof handler !== "object" || handler === null)
  ) {
    throw new TypeError(
      `createWorker(): "handler" must be a handler object or a function of env, received "${typeof handler}"`,
    );
  }
  const { decisions } = options;
  if (decisions !== undefined && !isDecisions(decisions)) {
    throw new TypeError(
      `createWorker(): "decisions" must be "json", "text", false or a function, received ${
        describeValue(decisions)
      }`,
    );
  }
  const prepared = new WeakMap<object, Prepared>();
  const preparedFor = (env: Env): Prepared => {
    const key = typeof env === "object" && env !== null ? env : NO_ENV;
    let entry = prepared.get(key);
    if (entry === undefined) {
      entry = prepare(options, env, "edge");
      prepared.set(key, entry);
    }
    return entry;
  };
  return Object.freeze({
    async fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
      const entry = preparedFor(env);
      if ("problem" in entry) return problem(entry.problem);
      try {
        return await entry.gateway.fetch(withoutInternalHeaders(request), env, ctx);
      } catch (failure) {
        console.error(`${PREFIX} the request failed`, failure);
        return problem(`${PREFIX} internal error`);
      }
    },
    // Each object builds its own gateway: it serves its one session in process.
    Sessions: sessionsClass<Env>((env) => {
      const entry = prepare(options, env, "session");
      if ("problem" in entry) return () => Promise.resolve(problem(entry.problem));
      return frontLegacyHandler(entry.gateway.app) as LegacyHandler;
    }),
  });
}

/**
 * Reads the state key, the Upstash settings and (at the edge) the sessions binding from `env`,
 * then builds the gateway: at the edge its legacy requests go to the sessions' objects; in a
 * session's object they are served in process.
 */
function prepare<Env>(options: WorkerOptions<Env>, env: Env, role: "edge" | "session"): Prepared {
  const variable = (name: string): string | undefined => {
    const value = bindingOf(env, name);
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const stateKey = variable(STATE_KEY_VARIABLE);
  if (stateKey === undefined) {
    return { problem: NO_STATE_KEY };
  }
  const keyProblem = secretKeyProblem(stateKey);
  if (keyProblem !== undefined) {
    return { problem: `${PREFIX} the secret "${STATE_KEY_VARIABLE}" ${keyProblem}` };
  }
  const upstash = upstashFrom(variable(UPSTASH_URL), variable(UPSTASH_TOKEN));
  if ("problem" in upstash) return upstash;
  const { redis } = upstash;
  const binding = bindingOf(env, SESSIONS_BINDING);
  if (role === "edge" && binding !== undefined && !isSessionsBinding(binding)) {
    return {
      problem:
        `${PREFIX} the binding "${SESSIONS_BINDING}" is not a Durable Object namespace: expected a "durable_objects" binding of the class createWorker() returns as "Sessions"`,
    };
  }
  const madeAuth = fromEnv(
    "auth",
    () => typeof options.auth === "function" ? options.auth(env) : options.auth,
  );
  if ("problem" in madeAuth) return madeAuth;
  const auth: GatewayAuth | undefined = madeAuth.value;
  if (auth === undefined) {
    return {
      problem:
        `${PREFIX} "auth" is not set: a Worker is on the internet, so say who may call it: { bearer: [{ secret, subject }] } with a secret from env, { jwt: { issuer, jwks } }, a function (request) => principal | Response, or "none" to let anyone in`,
    };
  }
  const signInUser = fromEnv("signInUser", () => options.signInUser?.(env));
  if ("problem" in signInUser) return signInUser;
  const { decisions = "json" } = options;
  try {
    const { policies, handler } = options;
    const listed = typeof policies === "function" ? policies(env) : policies;
    const tokens = tokensFrom(listed, redis, variable(TOKEN_KEY_VARIABLE) ?? stateKey);
    if ("problem" in tokens) return tokens;
    const unspoken = unspokenPolicy(listed);
    if (unspoken !== undefined) return { problem: unspoken };
    const gatewayOptions: GatewayOptions = {
      policies: listed,
      handler: typeof handler === "function" ? handler(env) : handler,
      stateKey,
      store: redis === undefined ? createMemoryStore() : createUpstashStore({ redis }),
      ...(tokens.tokens === undefined ? {} : { tokens: tokens.tokens }),
      auth,
      allowedHosts: options.allowedHosts ?? "routed",
      ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.assigns === undefined ? {} : { assigns: options.assigns }),
      ...(options.heartbeat === undefined ? {} : { heartbeat: options.heartbeat }),
      ...(signInUser.value === undefined ? {} : { signInUser: signInUser.value }),
      // The listener hears each event, with env beside it for its bindings, never in its place.
      decisions: typeof decisions === "function" ? (decision) => decisions(decision, env) : decisions,
    };
    if (role === "session") {
      return { gateway: buildGateway(gatewayOptions, { createClient, environment: variable }) };
    }
    // The edge's own handling answers what needs no session; it is known once the front is built.
    let local: LegacyHandler = () => Promise.reject(new Error("the front is not built yet"));
    const gateway = buildGateway(gatewayOptions, {
      createClient,
      environment: variable,
      legacySessions: legacyToSessions(binding as SessionsBinding | undefined, (input) => local(input)),
    });
    local = frontLegacyHandler(gateway.app) as LegacyHandler;
    return { gateway };
  } catch (failure) {
    // The front's own option errors ("auth", hosts) name the option and never quote a secret.
    if (failure instanceof TypeError && failure.message.startsWith("createFront():")) {
      return { problem: `${PREFIX} ${failure.message.slice("createFront(): ".length)}` };
    }
    // A policy error may quote URLs and header names: it goes to the logs, not to the caller.
    console.error(`${PREFIX} the gateway could not be built`, failure);
    return {
      problem:
        `${PREFIX} the gateway could not be built from "policies" and "handler": expected policies that compile (the Worker's logs name the problem)`,
    };
  }
}

/**
 * Makes an option from `env` with the user's function; what it throws is logged, never sent (it may
 * quote a secret).
 *
 * @param name The option.
 * @param make Calls the option's function of `env`.
 * @returns Its value, or the problem every request is answered with.
 */
function fromEnv<T>(name: string, make: () => T): { readonly value: T } | { readonly problem: string } {
  try {
    return { value: make() };
  } catch (failure) {
    console.error(`${PREFIX} "${name}" could not be made from env`, failure);
    return { problem: `${PREFIX} "${name}" could not be made from env (the Worker's logs name the problem)` };
  }
}

/**
 * Where callers' upstream tokens live: Upstash Redis (encrypted under `SLUICE_TOKEN_KEY`, else the
 * state key). `transport.auth.oauth` needs it: a sign-in may finish on any isolate.
 */
function tokensFrom(
  policies: readonly (Policy | CompiledPolicy)[],
  redis: Redis | undefined,
  key: string,
): { readonly tokens: TokenStore | undefined } | { readonly problem: string } {
  if (redis !== undefined) return { tokens: createUpstashTokenStore({ redis, key }) };
  const signsIn = policies.find((policy) => {
    const auth = (policy.transport as { auth?: { oauth?: unknown; kind?: unknown } }).auth;
    return auth !== undefined && (auth.oauth !== undefined || auth.kind === "authorization_code");
  });
  if (signsIn === undefined) return { tokens: undefined };
  return {
    problem:
      `${PREFIX} the policy of "${signsIn.server}" signs in with "transport.auth.oauth", which needs "${UPSTASH_URL}" and "${UPSTASH_TOKEN}": callers' sign-ins and tokens must be shared by every isolate`,
  };
}

/**
 * The problem of the first policy that is not `era: "modern"` over HTTP: it would be listed and fail
 * every call, so it is refused at start-up. A malformed policy is left to the compiler.
 *
 * @param policies The policies as `policies` gave them, written or compiled.
 * @returns The problem, naming the policy, what it says and what is expected; or `undefined`.
 */
function unspokenPolicy(policies: readonly (Policy | CompiledPolicy)[]): string | undefined {
  for (const policy of policies) {
    if (typeof policy !== "object" || policy === null) continue;
    const { era, transport } = policy as { era?: unknown; transport?: unknown };
    if (typeof transport !== "object" || transport === null) continue;
    // A stdio transport, written or compiled, has a `command` (one written `undefined` is left out).
    const stdio = (transport as { command?: unknown }).command !== undefined;
    if (era === "modern" && !stdio) continue;
    const says = era === undefined ? 'no "era" (so "auto")' : `"era": ${JSON.stringify(era)}`;
    return `${PREFIX} the policy of "${policy.server}" says ${says} and a "transport" with ${
      stdio ? 'a "command"' : 'a "url"'
    }: expected "era": "modern" and a "transport" with a "url", since a Worker speaks only MCP "2026-07-28" upstream, over HTTP (a legacy or stdio server needs a self-hosted entry: @sluice/mcp/node, /deno or /bun)`;
  }
  return undefined;
}

/** The Upstash Redis when both variables are set, none when neither is, else the problem. */
function upstashFrom(
  url: string | undefined,
  token: string | undefined,
): { readonly redis: Redis | undefined } | { readonly problem: string } {
  if (url !== undefined && token !== undefined) {
    return { redis: new Redis({ url, token, enableTelemetry: false }) };
  }
  if (url === undefined && token === undefined) return { redis: undefined };
  const [set, unset] = url === undefined ? [UPSTASH_TOKEN, UPSTASH_URL] : [UPSTASH_URL, UPSTASH_TOKEN];
  return {
    problem:
      `${PREFIX} "${set}" is set but "${unset}" is not: expected both "${UPSTASH_URL}" and "${UPSTASH_TOKEN}" (budgets in Upstash Redis, shared by every isolate) or neither (budgets in memory, per isolate)`,
  };
}

/** One of `env`'s bindings; a Worker's `env` is always an object, a test's may not be. */
function bindingOf(env: unknown, name: string): unknown {
  return typeof env === "object" && env !== null ? (env as Record<string, unknown>)[name] : undefined;
}

/** The same bytes and headers on every runtime (Bun's `Response.json` adds a charset). */
function problem(message: string): Response {
  return new Response(JSON.stringify({ error: message }), {
    status: 500,
    headers: { "content-type": "application/json" },
  });
}
