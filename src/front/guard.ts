/**
 * The front's first line: which `Host` it answers and which pages may call it, checked on every route
 * before anything else is read (the MCP transport spec: a server MUST validate `Origin`; and a gateway
 * on loopback must not answer a page that reached it by DNS rebinding).
 *
 * - `Host`: loopback names (`localhost`, `127.x.x.x`, `[::1]`, any port) always; others only from
 *   `allowedHosts`, or all where the platform routes by its own host names (`"routed"`). `GET /healthz`
 *   is exempt, so probes that address the machine by its IP keep working; it reveals nothing.
 * - `Origin`: absent is fine (hosts that are not browsers send none); present, it must be the
 *   gateway's own origin (the request's scheme and the `Host` just checked) or one of `allowedOrigins`.
 *
 * Either refusal is `403` with a JSON-RPC error naming what was refused and what was expected. CORS
 * headers and preflights are for the origins of `allowedOrigins` only: without it, no CORS at all.
 *
 * Where the runtime tells a request's address, {@linkcode peerRefusal} also refuses other machines:
 * all of them for a gateway with neither `auth` nor `allowedHosts` (`deno serve` and `Bun.serve`
 * listen on every interface unless told otherwise), and any that names an unlisted loopback `Host`.
 * No other machine reaches a gateway by a loopback name, and a JWT's `aud` is checked against the
 * URL a request names when the gateway has no `publicUrl`: such a request could pick any loopback
 * port, and so have a token issued for another loopback resource taken.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { memoByString } from "../_internal/string-memo.ts";
import { encodeError } from "../protocol/jsonrpc.ts";

/** Which `Host` and `Origin` values the front answers. */
export interface HostRules {
  /**
   * Host names answered besides loopback ones: `"gate.example.com"` (any port) or
   * `"gate.example.com:8443"`; `"routed"` where the platform only delivers the deployment's own
   * names (Workers, Deno Deploy). @default none: loopback names only
   */
  readonly allowedHosts?: readonly string[] | "routed";
  /**
   * Origins (`"https://app.example.com"`) whose pages may call the gateway besides its own, and
   * get CORS headers. @default none: only the gateway's own pages
   */
  readonly allowedOrigins?: readonly string[];
}

/** The request headers a browser may send cross-origin to an allowed origin's page. */
const CORS_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "last-event-id",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
];

/** The `Mcp-Param-*` names a preflight's `Access-Control-Request-Headers` asks for, lower-cased. */
function paramHeadersAsked(asked: string | undefined): string[] {
  if (asked === undefined) return [];
  return asked.split(",").map((name) => name.trim().toLowerCase())
    .filter((name) => /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name));
}

/**
 * Checks a list of allowed hosts or origins given as an option, so a typo fails at start-up.
 *
 * @param rules The options.
 * @param who The function to name in errors.
 * @returns The rules, normalised: hosts and origins in lower case.
 * @throws {TypeError} When an entry is not a host name (with an optional port), or not an origin.
 * @example
 * ```ts
 * import { checkHostRules } from "./guard.ts";
 * console.log(checkHostRules({ allowedHosts: ["Gate.Example.com"] }, "createFront()").allowedHosts);
 * // ["gate.example.com"]
 * ```
 */
export function checkHostRules(rules: HostRules, who: string): HostRules {
  const { allowedHosts, allowedOrigins } = rules;
  const hosts = allowedHosts === undefined || allowedHosts === "routed"
    ? allowedHosts
    : listOf(allowedHosts, `${who}: "allowedHosts"`).map((entry) => {
      const host = entry.trim().toLowerCase();
      if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/.test(host)) {
        throw new TypeError(
          `${who}: "allowedHosts" has ${
            JSON.stringify(entry)
          }, expected a host name with an optional port, like "gate.example.com" or "gate.example.com:8443"`,
        );
      }
      return host;
    });
  const origins = allowedOrigins === undefined
    ? undefined
    : listOf(allowedOrigins, `${who}: "allowedOrigins"`).map((entry) => {
      const origin = URL.canParse(entry) ? new URL(entry).origin : undefined;
      if (origin === undefined || origin === "null" || origin !== entry.replace(/\/$/, "").toLowerCase()) {
        throw new TypeError(
          `${who}: "allowedOrigins" has ${
            JSON.stringify(entry)
          }, expected an origin: a scheme, a host and an optional port, like "https://app.example.com"`,
        );
      }
      return origin;
    });
  return {
    ...(hosts === undefined ? {} : { allowedHosts: hosts }),
    ...(origins === undefined ? {} : { allowedOrigins: origins }),
  };
}

/**
 * The middleware that enforces {@linkcode HostRules} on every route but `GET /healthz`.
 *
 * @param rules The rules, as {@linkcode checkHostRules} returned them.
 * @param publicOrigin The gateway's public origin, when it differs from what requests say (the
 *   front's `publicUrl`, behind a proxy): its pages are the gateway's own too.
 * @returns The middleware.
 */
export function hostAndOriginGuard(rules: HostRules, publicOrigin?: string): MiddlewareHandler {
  const origins = new Set(rules.allowedOrigins ?? []);
  const corsWith = (allowHeaders: string[]) =>
    cors({
      origin: (origin) => origins.has(origin) ? origin : null,
      allowMethods: ["GET", "POST", "DELETE"],
      allowHeaders,
      exposeHeaders: ["mcp-session-id", "www-authenticate"],
      maxAge: 600,
    });
  const corsFor = origins.size === 0 ? undefined : corsWith(CORS_HEADERS);
  // Not async: every request passes here, and each way out already has a promise to hand on.
  return (c, next) => {
    if (c.req.path === "/healthz") return next();
    const host = hostOf(c.req.raw);
    // Both the Host header and the URL: see urlHostOf.
    const named: readonly (readonly [string, string])[] = [
      ["the Host", host],
      ["the request's URL host", urlHostOf(c.req.raw)],
    ];
    for (const [what, name] of named) {
      if (!hostAllowed(name, rules.allowedHosts)) {
        return forbidden(
          `Forbidden: ${what} ${
            JSON.stringify(name.slice(0, 128))
          } is not served here: expected a loopback name (localhost, 127.0.0.1, [::1]) or one in "allowedHosts"`,
        );
      }
    }
    const origin = c.req.header("origin");
    if (
      origin !== undefined && !origins.has(origin) && origin !== publicOrigin &&
      origin !== ownOrigin(c.req.raw, host)
    ) {
      return forbidden(
        `Forbidden: the Origin ${
          JSON.stringify(origin.slice(0, 128))
        } may not call this gateway: expected its own origin or one in "allowedOrigins"`,
      );
    }
    if (corsFor === undefined || origin === undefined || !origins.has(origin)) return next();
    // A tool's x-mcp-header arguments go as Mcp-Param-<Name> headers, named by the tool: a
    // preflight may ask for any of them.
    const params = c.req.method === "OPTIONS"
      ? paramHeadersAsked(c.req.header("access-control-request-headers"))
      : [];
    return (params.length === 0 ? corsFor : corsWith([...CORS_HEADERS, ...params]))(c, next);
  };
}

/**
 * Whether a `Host` value (a name with an optional port) is a loopback one.
 *
 * @param host The value.
 * @returns Whether it names `localhost`, `127.0.0.0/8` or `[::1]`.
 */
export function isLoopbackHost(host: string): boolean {
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) return false; // no userinfo, path or spaces to fool the parser
  try {
    return hasLoopbackHost(new URL(`http://${host}`));
  } catch {
    return false;
  }
}

/** A gateway is reached by the same few names: each one's answer is parsed once. */
const loopbackHost = memoByString(isLoopbackHost, 64);

/**
 * The refusal of a request from another machine: `403`, as the Host refusal, when the gateway is
 * for this machine only (`"open"`: neither `auth` nor `allowedHosts`), or when the request names a
 * loopback `Host` that `allowedHosts` does not list. `GET /healthz` is exempt, as from the Host rule.
 *
 * @param request The request.
 * @param address The address it came from, as the runtime tells it (`"10.0.0.5"`, `"::1"`,
 *   `"::ffff:127.0.0.1"`).
 * @param allowedHosts `"open"`, or the gateway's `allowedHosts` as {@linkcode checkHostRules}
 *   returned them (`undefined` when it has `auth` and no `allowedHosts`).
 * @returns The refusal, or `undefined` when the address is loopback (`127.0.0.0/8`, `::1`, either
 *   as an IPv4-mapped IPv6 address), the request is for `/healthz`, or the rules admit it.
 * @example
 * ```ts
 * import { peerRefusal } from "./guard.ts";
 * const request = new Request("http://127.0.0.1:8787/servers");
 * console.log(peerRefusal(request, "::ffff:127.0.0.1", "open")); // undefined
 * console.log(peerRefusal(request, "192.0.2.7", "open")?.status); // 403
 * console.log(peerRefusal(request, "192.0.2.7", ["gate.example.com"])?.status); // 403
 * console.log(peerRefusal(new Request("https://gate.example.com/servers"), "192.0.2.7", ["gate.example.com"])); // undefined
 * ```
 */
export function peerRefusal(
  request: Request,
  address: string,
  allowedHosts: HostRules["allowedHosts"] | "open",
): Response | undefined {
  const ipv4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  const loopback = ipv4 === undefined ? loopbackHost(`[${address}]`) : loopbackHost(ipv4);
  if (loopback || new URL(request.url).pathname === "/healthz") return undefined;
  const from = JSON.stringify(address.slice(0, 64));
  if (allowedHosts === "open") {
    return forbiddenResponse(
      `Forbidden: a request from ${from} is not served here: expected one from this machine (a loopback address), as this gateway has neither "auth" nor "allowedHosts"; set both to answer other machines`,
    );
  }
  // The Host header's, else the URL's (see urlHostOf).
  const host = [hostOf(request), urlHostOf(request)].find((named) =>
    loopbackHost(named) && !(Array.isArray(allowedHosts) && listed(named, allowedHosts))
  );
  if (host === undefined) return undefined;
  return forbiddenResponse(
    `Forbidden: a request from ${from} names the loopback Host ${
      JSON.stringify(host.slice(0, 128))
    }: expected a loopback Host only from this machine; list the name in "allowedHosts" to answer it from others`,
  );
}

function hostAllowed(host: string, allowed: HostRules["allowedHosts"]): boolean {
  if (allowed === "routed" || loopbackHost(host)) return true;
  return allowed !== undefined && listed(host, allowed);
}

/** Whether a list of `allowedHosts` names a `Host`: by itself, or by its name for any port. */
function listed(host: string, allowed: readonly string[]): boolean {
  return allowed.includes(host) || allowed.includes(host.replace(/:\d+$/, ""));
}

/** The `Host` the request names (the URL's when a runtime gave no header; none: ""), in lower case. */
function hostOf(request: Request): string {
  return request.headers.get("host")?.toLowerCase() ?? urlHostOf(request);
}

/**
 * The host of the request's URL, in lower case (none: ""): what the rest of the front reads (a
 * JWT's `aud` is checked against the URL's origin). A runtime builds it from the `Host` header, or,
 * on Node and Deno, from a request target in absolute form (`GET http://a.example/mcp`, whose host
 * RFC 9112 says to use instead of the header's); Miniflare from the URL it was given, with the
 * `Host` of its own socket. So the guard checks it as well as the header: a listed `Host` must not
 * carry a URL, and an `aud`, of another host.
 */
function urlHostOf(request: Request): string {
  return hostOfUrl(request.url);
}

const hostOfUrl = memoByString((url) => URL.canParse(url) ? new URL(url).host.toLowerCase() : "", 64);

function ownOrigin(request: Request, host: string): string {
  return `${new URL(request.url).protocol}//${host}`;
}

function forbidden(message: string): Promise<Response> {
  return Promise.resolve(forbiddenResponse(message));
}

/** The guard's refusals: `403` with a JSON-RPC error, as Hono's `c.json` writes one. */
function forbiddenResponse(message: string): Response {
  return new Response(JSON.stringify(encodeError(null, { code: -32000, message })), {
    status: 403,
    headers: { "content-type": "application/json" },
  });
}

function listOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    throw new TypeError(`${what} must be an array of strings, received "${typeof value}"`);
  }
  return value as string[];
}
