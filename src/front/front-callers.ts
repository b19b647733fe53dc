/**
 * Who calls the front, checked before any route reads a body: the Host and Origin guard, the
 * caller's principal from the front's `auth`, the protected resource metadata that lets an MCP
 * host find the authorization server; and a policy's `access` to the server and its tools (for a
 * POST once its body is read, so that a call it refuses gives its decision event).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import type { Clock } from "../_internal/clock.ts";
import { isRequest, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.ts";
import { accessOf, mayCall, scopesForTool } from "./access.ts";
import {
  type DownstreamAuth,
  downstreamAuth,
  type GatewayAuth,
  type ResourceTarget,
} from "./downstream-auth.ts";
import type { FrontServer } from "./front-server.ts";
import { checkHostRules, hostAndOriginGuard, type HostRules } from "./guard.ts";
import type { Principal } from "./principal.ts";
import { respond } from "./_front-response.ts";
import { requestOrigin } from "./_request-origin.ts";
import { refusal, unknownServer } from "./downstream-request.ts";

/** The front's options about its callers, checked. */
export interface CallerOptions {
  readonly rules: HostRules;
  readonly auth: DownstreamAuth;
  /** Whether `auth` is `"none"`: callers are not authenticated and have no principal. */
  readonly anonymous: boolean;
  /** The gateway's public origin (`publicUrl`), when requests do not say it. */
  readonly publicBase: string | undefined;
}

/** What the routes need of the gate {@linkcode mountCallerGate} mounts. */
export interface CallerGate {
  /**
   * The principal a request was authenticated as.
   *
   * @param request The request the gate admitted.
   * @returns Its principal; `undefined` with `auth: "none"`.
   */
  principalOf(request: Request): Principal | undefined;
  /**
   * The answer to a request the server's `access` does not open to the caller: to the server,
   * `403` (`insufficient_scope` with the scopes that would open it, when some would); to a
   * `tools/call`'s tool, `403 insufficient_scope` likewise, else a JSON-RPC error `-32602`.
   *
   * @returns The refusal's response, with the error it says (for the operator's event), or
   * `undefined` when the caller may make the request.
   */
  accessRefusal(
    c: Context,
    message: JsonRpcMessage,
    server: FrontServer,
    principal: Principal | undefined,
  ):
    | { readonly response: Response; readonly error: { readonly code: number; readonly message: string } }
    | undefined;
}

/**
 * Checks the front's options about its callers: host rules, `auth` (required once `allowedHosts`
 * answers names beyond loopback), `publicUrl`.
 *
 * @param options The front's options.
 * @param clock The client's clock, which JWTs are checked by.
 * @returns The checked options.
 * @throws {TypeError} When one is malformed, or `allowedHosts` is given without `auth`.
 */
export function checkCallerOptions(options: {
  readonly auth?: GatewayAuth | undefined;
  readonly allowedHosts?: HostRules["allowedHosts"];
  readonly allowedOrigins?: HostRules["allowedOrigins"];
  readonly publicUrl?: string | undefined;
}, clock: Clock): CallerOptions {
  const rules = checkHostRules({
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  }, "createFront()");
  if (options.auth === undefined && rules.allowedHosts !== undefined) {
    throw new TypeError(
      `createFront(): "auth" is required when the gateway answers names other than loopback ("allowedHosts"): give bearer secrets, JWT settings or a function, or "none" to let anyone in`,
    );
  }
  return {
    rules,
    auth: downstreamAuth(options.auth ?? "none", { who: "createFront()", clock }),
    anonymous: (options.auth ?? "none") === "none",
    publicBase: options.publicUrl === undefined ? undefined : baseUrl(options.publicUrl),
  };
}

/**
 * Mounts the gate on a front, before its routes: the Host and Origin guard on every route, the
 * metadata routes, and authentication (with the server's `access`) on `/servers` and
 * `/mcp/:server` (there only when `auth` is not `"none"` or a policy has `access`).
 *
 * @param app The front's app, with no routes yet.
 * @param options The checked options.
 * @param servers The front's servers, by id.
 * @returns What the routes need: each request's principal, and the tool refusal.
 */
export function mountCallerGate(
  app: Hono,
  options: CallerOptions,
  servers: ReadonlyMap<string, FrontServer>,
): CallerGate {
  const { auth, publicBase } = options;
  const principals = new WeakMap<Request, Principal>();
  const targetOf = (c: Context, serverId?: string): ResourceTarget => ({
    base: publicBase ?? requestOrigin(c.req.raw),
    serverId,
  });
  // Host and Origin first, on every route (the playground's too, mounted later).
  app.use("*", hostAndOriginGuard(options.rules, publicBase));
  const metadata = (c: Context, serverId?: string) => {
    const document = serverId !== undefined && !servers.has(serverId)
      ? undefined
      : auth.metadata(targetOf(c, serverId));
    return document === undefined ? c.json({ error: "not_found" }, 404) : c.json(document);
  };
  app.get("/.well-known/oauth-protected-resource", (c) => metadata(c));
  app.get("/.well-known/oauth-protected-resource/mcp/:server", (c) => metadata(c, c.req.param("server")));
  app.use("/servers", async (c, next) => {
    const outcome = await auth.authenticate(c.req.raw, targetOf(c));
    if (outcome instanceof Response) return outcome;
    if (outcome !== undefined) principals.set(c.req.raw, outcome);
    await next();
  });
  /**
   * The refusal of a caller the server's `access` does not let in at all; a tool call's names the
   * scopes of a rule that opens that tool, when one would.
   */
  const serverRefusal = (
    c: Context,
    server: FrontServer,
    principal: Principal | undefined,
    tool?: string,
    id: RequestId | null = null,
  ) => {
    const { policy } = server;
    if (policy.access === undefined) return undefined;
    const access = accessOf(policy, principal);
    if (access.allowed) return undefined;
    const text = `Forbidden: ${callerName(principal)} may not use server ${
      JSON.stringify(policy.server)
    } (its policy's access)`;
    const scopes = (tool === undefined ? undefined : scopesForTool(policy, principal, tool)) ?? access.scopes;
    return {
      response: scopes === undefined
        ? respond(c, refusal(403, id, -32000, text))
        : auth.insufficientScope(targetOf(c, policy.server), scopes, text, id),
      error: { code: -32000, message: text },
    };
  };
  // Anonymous callers of servers without `access` are let in as they are: no step of the gate's
  // own on every call, where it would only find that.
  const holdsCallers = !options.anonymous ||
    [...servers.values()].some((server) => server.policy.access !== undefined);
  if (holdsCallers) {
    app.use("/mcp/:server", async (c, next) => {
      const serverId = c.req.param("server");
      const server = servers.get(serverId);
      // Where the auth publishes metadata (JWT), whose route reveals an unknown server by its 404
      // anyway, an unknown server is 404 at once, its body unread: a challenge would send the caller
      // to sign in for a resource that does not exist. Elsewhere it is challenged like any other.
      if (server === undefined && auth.metadata(targetOf(c)) !== undefined) {
        return respond(c, refusal(404, null, -32601, unknownServer(serverId)));
      }
      const outcome = await auth.authenticate(c.req.raw, targetOf(c, serverId));
      if (outcome instanceof Response) return outcome;
      // A POST is held to the server's access once its body is read (accessRefusal), so that a
      // refused call gives its event; a GET stream or a DELETE here.
      if (c.req.raw.method !== "POST" && server !== undefined) {
        const refused = serverRefusal(c, server, outcome);
        if (refused !== undefined) return refused.response;
      }
      if (outcome !== undefined) principals.set(c.req.raw, outcome);
      await next();
    });
  }
  return {
    principalOf: (request) => principals.get(request),
    accessRefusal(c, message, server, principal) {
      const { policy } = server;
      if (policy.access === undefined) return undefined;
      const call = "method" in message && message.method === "tools/call" && "id" in message;
      const named = call ? (message.params as { name?: unknown } | undefined)?.name : undefined;
      const tool = typeof named === "string" ? named : undefined;
      // The refusal answers the request it read (2025-06-18 wants the id of an error).
      const id = isRequest(message) ? message.id : null;
      const refused = serverRefusal(c, server, principal, tool, id);
      if (refused !== undefined) return refused;
      if (!call || tool === undefined || mayCall(accessOf(policy, principal), tool)) return undefined;
      const text = `Tool ${JSON.stringify(tool.slice(0, 64))} is not open to ${
        callerName(principal)
      } on server ${JSON.stringify(policy.server)} (its policy's access)`;
      const scopes = scopesForTool(policy, principal, tool);
      // What the caller is told: a 403's body says -32000, as every refusal of the gate does.
      return scopes === undefined
        ? { response: respond(c, refusal(200, id, -32602, text)), error: { code: -32602, message: text } }
        : {
          response: auth.insufficientScope(targetOf(c, policy.server), scopes, text, id),
          error: { code: -32000, message: text },
        };
    },
  };
}

function callerName(principal: Principal | undefined): string {
  return principal === undefined ? "an anonymous caller" : JSON.stringify(principal.subject.slice(0, 64));
}

/**
 * A `publicUrl` option as a base: an http(s) origin (RFC 9728 puts the metadata at the host's
 * `/.well-known/`, so a gateway is served at the root of its origin).
 */
function baseUrl(value: unknown): string {
  const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined;
  if (
    url === undefined || !/^https?:$/.test(url.protocol) || url.href !== `${url.origin}/`
  ) {
    throw new TypeError(
      `createFront(): "publicUrl" must be the gateway's public origin, a scheme and host with no path, such as "https://gate.example.com", received ${
        JSON.stringify(String(value).slice(0, 128))
      }`,
    );
  }
  return url.origin;
}
