/**
 * What every runtime entry shares: a gateway is a client (built from policies and a handler)
 * with its front. The entries differ only in how they serve it (`Deno.serve`, `Bun.serve`,
 * `@hono/node-server`, a Workers `fetch`) and where they read settings (`env`, the process).
 *
 * @module
 */
import type { Hono } from "hono";
import type { Client, ClientOptions } from "../client/client-types.ts";
import type { Handler } from "../handler/handler.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import type { Duration } from "../policy/duration.ts";
import type { TokenStore } from "../auth/token-store.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import { createFront } from "../front/create-front.ts";
import { type Decision, decisionJson, type DecisionListener, describeDecision } from "../chain/decision.ts";
import type { LegacyRequest } from "../front/legacy-callers.ts";
import type { GatewayAuth } from "../front/downstream-auth.ts";
import type { SignInUser } from "../front/front-sign-in.ts";
import { NO_STATE_KEY, secretKeyProblem, STATE_KEY_VARIABLE } from "../_internal/secret-key.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { checkHostRules, peerRefusal } from "../front/guard.ts";

/** The origin given to a request that named no host (a reserved name: no rule allows it). */
const NO_HOST = "http://no-host.invalid";

/** Options of a gateway: the client's parts, and the key that seals continuation states. */
export interface GatewayOptions {
  /** One policy per upstream server. */
  readonly policies: readonly (Policy | CompiledPolicy)[];
  /** The callbacks that answer servers; kinds it lacks may still be passed down (`passDown`). */
  readonly handler?: Handler | undefined;
  /** The client's name: `clientInfo.name` upstream and `ctx.client`. @default "sluice" */
  readonly name?: string | undefined;
  /**
   * The secret that seals continuation states (at least 32 bytes), the same on every instance
   * that may serve a retry. @default the `SLUICE_STATE_KEY` environment variable
   */
  readonly stateKey?: string | Uint8Array | undefined;
  /** Where input budgets live. @default an in-memory store */
  readonly store?: RateLimitStore | undefined;
  /**
   * Where upstream sign-ins (`transport.auth.oauth`) keep callers' tokens, client registrations
   * and sign-ins in progress: shared by every instance that may take a callback.
   * @default an in-memory store (one process)
   */
  readonly tokens?: TokenStore | undefined;
  /** Assigns handed to callbacks. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Serve the playground at `GET /`, a page to call servers' tools by hand; anyone who can reach the
   * gateway can use it, as they can use `/mcp/<server>`.
   * @default true for the self-hosted entries (`@sluice/mcp/node`, `/deno`, `/bun`), which then
   *   say so once on stderr; the Workers entry has no playground
   */
  readonly playground?: boolean | undefined;
  /**
   * Who may call the gateway: `{ bearer: [...] }` secrets, `{ jwt: {...} }` access tokens, a function
   * `(request) => principal | Response`, or `"none"`. `serve()` on a non-loopback address and
   * `createWorker` refuse to start without it. @default "none" where only loopback names are answered
   */
  readonly auth?: GatewayAuth | undefined;
  /**
   * Host names answered besides loopback ones, such as `"gate.example.com"`; required (with
   * `auth`) to answer any other name. @default none: loopback names only
   */
  readonly allowedHosts?: readonly string[] | "routed" | undefined;
  /** Origins whose pages may call the gateway besides its own (they get CORS headers). @default none */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** The gateway's public URL, behind a proxy that rewrites Host or scheme. @default each request's origin */
  readonly publicUrl?: string | undefined;
  /**
   * Where each decision event (see `client.onDecision`) goes: `"json"`, one JSON object a line on
   * stdout; `"text"`, a line for a person; a function of the event; or `false` for none. Both line
   * forms are terminal-safe (invisible characters escaped in JSON, removed in text); a function gets
   * callers' and servers' text raw (pass it through `sanitizeText` before a terminal shows it). On
   * Node, lines beyond 4 MiB waiting for a slow stdout are dropped and their count said on stderr,
   * and `close()` waits for stdout to take the rest; on Deno and Bun, `console.log` waits for the reader.
   * @default "json" (`"text"` when the self-hosted entries run on a terminal)
   */
  readonly decisions?: Decisions | undefined;
  /**
   * How often an open SSE stream carries a comment, or `false` for never: it keeps proxies from
   * closing the idle connection and reveals a caller that left (see `createFront`). @default "15s"
   */
  readonly heartbeat?: Duration | false | undefined;
  /**
   * Who the person in a browser is, `(request) => subject | undefined` (the subject `auth` gives them,
   * read from your SSO proxy or session). Upstream sign-in links then complete only in the browser of
   * the caller they were started for (others get `403`); without it, a link passed on would give the
   * caller someone else's upstream account (see `createFront`). Needs `auth`.
   * @default none: the first browser to confirm a sign-in link completes it
   */
  readonly signInUser?: SignInUser | undefined;
}

/** The options of every gateway entry (a misspelt one is refused, never ignored). */
export const GATEWAY_OPTION_KEYS: readonly (keyof GatewayOptions)[] = [
  "policies",
  "handler",
  "name",
  "stateKey",
  "store",
  "tokens",
  "assigns",
  "playground",
  "auth",
  "allowedHosts",
  "allowedOrigins",
  "publicUrl",
  "decisions",
  "heartbeat",
  "signInUser",
];

/** Where a gateway writes its decision events (see `GatewayOptions.decisions`). */
export type Decisions = "json" | "text" | false | ((decision: Decision) => unknown);

/**
 * Whether a value says where decision events go: `"json"`, `"text"`, `false` or a function.
 *
 * @param value The value, as a user's options gave it.
 * @returns `true` when it is one of them.
 */
export function isDecisions(value: unknown): value is Decisions {
  return value === "json" || value === "text" || value === false || typeof value === "function";
}

/** A gateway: the front's Hono app and the client behind it. */
export interface Gateway {
  /**
   * The front (`/mcp/:server`, `GET /healthz`, `GET /servers`; `GET /` with the playground). Mounted
   * in your own server it skips `fetch`'s peer-address check, so it must set `auth` (and `publicUrl`
   * with JWT `auth`) or listen on loopback only: the Host check admits loopback names from anyone.
   */
  readonly app: Hono;
  /** The client the front calls upstream with. */
  readonly client: Client;
  /** Serves one request, with the Workers `env` and context or the self-hosted runtime's bindings. */
  readonly fetch: (request: Request, env?: unknown, ctx?: unknown) => Response | Promise<Response>;
}

/** What an entry gives {@linkcode buildGateway} besides the user's options. */
export interface GatewayParts {
  /** Which client to build: the edge one, or the legacy-capable one. */
  readonly createClient: (options: ClientOptions) => Client;
  /** Reads an environment variable (the state key; the secrets a policy's `transport.auth` names). */
  readonly environment: (name: string) => string | undefined;
  /** Where legacy callers' sessions live (the front's `legacySessions`). @default in this process */
  readonly legacySessions?: (request: LegacyRequest) => Promise<Response>;
  /** Writes one line of the `"json"` and `"text"` decision events. @default `console.log` */
  readonly writeLine?: (line: string) => void;
  /**
   * The address a request came from, read from the runtime's bindings: a gateway with neither `auth`
   * nor `allowedHosts` then refuses other machines, and any other refuses another machine naming a
   * loopback `Host` it does not list (see {@linkcode peerRefusal}).
   * @default none: the runtime does not tell (Workers)
   */
  readonly peerAddress?: (request: Request, env: unknown) => string | undefined;
}

/**
 * Builds a gateway.
 *
 * @param options The gateway's options.
 * @param parts The client to build, where settings come from, and where legacy sessions live.
 * @returns The gateway.
 * @throws {TypeError} When the options hold a key that is not an option, no state key is given nor
 *   set in `SLUICE_STATE_KEY`, or it is too short.
 */
export function buildGateway(options: GatewayOptions, parts: GatewayParts): Gateway {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `sluice gateway: the options must be an object { policies, … }, received ${
        options === null ? "null" : typeof options
      }`,
    );
  }
  checkOptionKeys(options, GATEWAY_OPTION_KEYS, "sluice gateway");
  const { createClient, environment, legacySessions } = parts;
  const writeLine = parts.writeLine ?? ((line: string) => console.log(line));
  const stateKey = options.stateKey ?? environment(STATE_KEY_VARIABLE);
  if (stateKey === undefined || stateKey === "") throw new TypeError(NO_STATE_KEY);
  // A key from the environment is named as the operator set it, not as createFront's option.
  const keyProblem = options.stateKey === undefined ? secretKeyProblem(stateKey) : undefined;
  if (keyProblem !== undefined) throw new TypeError(`sluice: "${STATE_KEY_VARIABLE}" ${keyProblem}`);
  const client = createClient({
    environment,
    name: options.name ?? "sluice",
    policies: options.policies,
    ...(options.handler === undefined ? {} : { handler: options.handler }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.tokens === undefined ? {} : { signIn: { tokens: options.tokens } }),
    ...(options.assigns === undefined ? {} : { assigns: options.assigns }),
  });
  const decisions: unknown = options.decisions ?? "json";
  if (!isDecisions(decisions)) {
    throw new TypeError(
      `sluice gateway: "decisions" must be "json", "text", false or a function, received ${
        JSON.stringify(decisions)
      }`,
    );
  }
  if (decisions !== false) {
    client.onDecision(
      typeof decisions === "function"
        ? decisions as DecisionListener
        : decisions === "text"
        ? (decision) => writeLine(`sluice ${describeDecision(decision)}`)
        : (decision) => writeLine(decisionJson(decision)),
    );
  }
  const app = createFront({
    client,
    stateKey,
    ...(legacySessions === undefined ? {} : { legacySessions }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(options.heartbeat === undefined ? {} : { heartbeat: options.heartbeat }),
    ...(options.signInUser === undefined ? {} : { signInUser: options.signInUser }),
  });
  // Bun gives a Host-less request (HTTP/1.0) a path-only URL: put under a host no rule allows, only
  // /healthz answers it.
  const whole = (request: Request) =>
    request.url.startsWith("/") ? new Request(`${NO_HOST}${request.url}`, request) : request;
  const serve = (request: Request, env?: unknown, ctx?: unknown) =>
    app.fetch(whole(request), env, ctx as never);
  const open = (options.auth === undefined || options.auth === "none") && options.allowedHosts === undefined;
  // The names as the front took them (checked there, so this does not throw).
  const { allowedHosts } = options;
  const hosts = open
    ? "open"
    : allowedHosts === undefined
    ? undefined
    : checkHostRules({ allowedHosts }, "sluice gateway").allowedHosts;
  const { peerAddress } = parts;
  return Object.freeze({
    app,
    client,
    fetch: peerAddress === undefined ? serve : (request: Request, env?: unknown, ctx?: unknown) => {
      // Asked of the request as the runtime gave it (Bun knows its peer by that object).
      const address = peerAddress(request, env);
      const target = whole(request);
      return (address === undefined ? undefined : peerRefusal(target, address, hosts)) ??
        app.fetch(target, env, ctx as never);
    },
  });
}
