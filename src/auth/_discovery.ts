/**
 * Discovery for an upstream sign-in, through oauth4webapi: protected resource metadata (RFC 9728) and
 * authorization server metadata (RFC 8414, then OpenID Connect Discovery), in the MCP authorization
 * spec's order and with its checks (the resource names the server, the issuer is the one asked for).
 * Redirects are never followed (a 3xx is a failed lookup) and plain http is allowed only to loopback.
 *
 * Against SSRF, URLs the server and its metadata give may reach no further in than the server: a
 * public server's must be public, a private server's not loopback; only a loopback server (in
 * development) may name loopback URLs.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { hostReach } from "../_internal/host-kind.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import { discardBody } from "../transport/body-reader.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";
import { quote } from "../_internal/quote.ts";
import { errorText } from "../_internal/error-text.ts";

/** What the protected resource metadata says. */
export interface ResourceMetadata {
  /** The `resource`, byte for byte as published (sent as RFC 8707 `resource`). */
  readonly resource: string;
  /** The authorization servers' issuer identifiers. */
  readonly authorizationServers: readonly string[];
  /** `scopes_supported`, or empty. */
  readonly scopesSupported: readonly string[];
  /** `dpop_bound_access_tokens_required` (RFC 9449 §5.2). */
  readonly dpopRequired: boolean;
}

/**
 * The HTTP options oauth4webapi takes for one request to `url`: the server's fetch, and plain
 * http allowed only when `url`'s host is loopback.
 *
 * @param url Where the request goes.
 * @param fetch The fetch to send it with.
 * @param signal Aborts it.
 * @param named Whether a request that cannot be sent fails naming its URL (see `namedFailure`).
 * @returns The options.
 */
export function requestOptions<Method extends string, Body = undefined>(
  url: URL,
  fetch: Fetcher,
  signal: AbortSignal | undefined,
  named = false,
): oauth.HttpRequestOptions<Method, Body> {
  const options: oauth.HttpRequestOptions<Method, Body> = {
    // Form bodies go as text: the self-hosted fetch takes string bodies only.
    [oauth.customFetch]: (target, init) => {
      const sent = init as unknown as RequestInit;
      const response = fetch(
        target,
        sent.body instanceof URLSearchParams ? { ...sent, body: sent.body.toString() } : sent,
      );
      return named ? namedFailure(target, sent.signal, response) : response;
    },
    // Plain http only where it never leaves the machine.
    [oauth.allowInsecureRequests]: url.protocol === "http:" && hasLoopbackHost(url),
  };
  if (signal !== undefined) options.signal = signal;
  return options;
}

/**
 * Finds the server's protected resource metadata: at the challenge's `resource_metadata`, else the
 * path-suffixed well-known URL, then the root one. The path-suffixed document must name the endpoint
 * identically; the others may name a URL above it on its origin.
 *
 * @param serverUrl The MCP endpoint.
 * @param options The challenge's `resource_metadata`, the fetch and the signal.
 * @returns The metadata, its `resource` checked against the server.
 * @throws {UpstreamAuthError} When none is found or it names another resource.
 */
export async function discoverResource(
  serverUrl: URL,
  options: {
    readonly metadataUrl: string | undefined;
    readonly fetch: Fetcher;
    readonly signal?: AbortSignal | undefined;
  },
): Promise<ResourceMetadata> {
  const { fetch, signal } = options;
  // `exact`: the endpoint's own well-known document must name it identically (RFC 9728 §3.3).
  const attempts: Array<{ readonly exact: boolean; readonly send: () => Promise<Response> }> = [];
  if (options.metadataUrl !== undefined) {
    const url = followedUrl(options.metadataUrl, serverUrl, "the resource_metadata URL of the challenge");
    // oauth4webapi builds well-known URLs only, so a given one is fetched as is.
    const own = `/.well-known/oauth-protected-resource${
      serverUrl.pathname === "/" ? "" : serverUrl.pathname
    }`;
    const exact = url.origin === serverUrl.origin && url.pathname === own;
    attempts.push({ exact, send: () => getJson(url, fetch, signal) });
  } else {
    const suffixed = () =>
      oauth.resourceDiscoveryRequest(serverUrl, requestOptions(serverUrl, fetch, signal, true));
    attempts.push({ exact: serverUrl.pathname !== "/", send: suffixed });
    if (serverUrl.pathname !== "/") {
      const root = new URL(serverUrl.origin);
      const send = () => oauth.resourceDiscoveryRequest(root, requestOptions(root, fetch, signal, true));
      attempts.push({ exact: false, send });
    }
  }
  const statuses: string[] = [];
  for (const { exact, send } of attempts) {
    const response = await send();
    if (response.status !== 200) {
      statuses.push(`HTTP ${response.status}`);
      await discardBody(response);
      continue;
    }
    let metadata: oauth.ResourceServer;
    try {
      metadata = await oauth.processResourceDiscoveryResponse(serverUrl, response.clone());
    } catch (error) {
      if (
        !(error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON)
      ) {
        throw new UpstreamAuthError(`the protected resource metadata is invalid: ${oauthErrorText(error)}`);
      }
      const resource = (error.cause as { body?: { resource?: unknown } } | undefined)?.body?.resource;
      if (exact && !namesEndpoint(resource, serverUrl)) {
        throw new UpstreamAuthError(
          `the protected resource metadata at the endpoint's well-known URL names the resource ${
            shown(resource)
          }, expected ${shown(serverUrl.href)} (without its query, with or without a trailing slash)`,
        );
      }
      if (typeof resource !== "string" || (!exact && !identifiesServer(resource, serverUrl))) {
        throw new UpstreamAuthError(
          `the protected resource metadata names the resource ${shown(resource)}, expected ${
            shown(serverUrl.href)
          } or a URL above it on the same origin`,
        );
      }
      metadata = await oauth.processResourceDiscoveryResponse(new URL(resource), response);
    }
    const servers = metadata.authorization_servers ?? [];
    if (servers.length === 0) {
      throw new UpstreamAuthError("the protected resource metadata lists no authorization_servers");
    }
    return {
      resource: metadata.resource,
      authorizationServers: servers,
      scopesSupported: metadata.scopes_supported ?? [],
      dpopRequired: metadata.dpop_bound_access_tokens_required === true,
    };
  }
  throw new UpstreamAuthError(
    `no protected resource metadata found for "${withoutUrlSecrets(serverUrl.href)}"${
      options.metadataUrl === undefined
        ? " at the well-known URLs"
        : ` at "${withoutUrlSecrets(options.metadataUrl)}"`
    }${answered(statuses)}`,
  );
}

/** A URL in a message: its query's values hidden (a key, often), quoted as any text a server sent. */
function shown(url: unknown): string {
  return quote(withoutUrlSecrets(String(url)), 200);
}

/** The refusal of authorization server metadata whose `issuer` is not the one asked for. */
function anotherIssuer(issuer: string, named: unknown): UpstreamAuthError {
  return new UpstreamAuthError(
    `the authorization server metadata for ${shown(issuer)} names the issuer ${
      shown(named)
    }, which is not identical; it is not used`,
  );
}

/**
 * Finds an authorization server's metadata. For an issuer with a path: RFC 8414 path-inserted,
 * OpenID path-inserted, OpenID path-appended; without one: RFC 8414, then OpenID. A 4xx or 502 moves
 * on; the `issuer` must be the one asked for, and the endpoints may reach no further in than the
 * server.
 *
 * @param issuer The issuer identifier from the resource metadata.
 * @param options The MCP endpoint whose authorization server it is, the fetch and the signal.
 * @returns The metadata.
 * @throws {UpstreamAuthError} When none is found, one names another issuer, or the issuer or an
 *   endpoint is refused.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: { readonly serverUrl: URL; readonly fetch: Fetcher; readonly signal?: AbortSignal | undefined },
): Promise<oauth.AuthorizationServer> {
  const { serverUrl, fetch, signal } = options;
  const issuerUrl = followedUrl(issuer, serverUrl, "the authorization server's issuer");
  const http = requestOptions(issuerUrl, fetch, signal, true);
  const attempts: Array<() => Promise<Response>> = [
    () => oauth.discoveryRequest(issuerUrl, { ...http, algorithm: "oauth2" }),
  ];
  if (issuerUrl.pathname !== "/") {
    // oauth4webapi appends the OpenID suffix only; the MCP spec tries it path-inserted first.
    const inserted = new URL(
      `/.well-known/openid-configuration${issuerUrl.pathname.replace(/\/$/, "")}`,
      issuerUrl,
    );
    attempts.push(() => getJson(inserted, fetch, signal));
  }
  attempts.push(() => oauth.discoveryRequest(issuerUrl, { ...http, algorithm: "oidc" }));
  const statuses: string[] = [];
  for (const attempt of attempts) {
    const response = await attempt();
    if ((response.status >= 400 && response.status < 500) || response.status === 502) {
      statuses.push(`HTTP ${response.status}`);
      await discardBody(response);
      continue;
    }
    if (response.status !== 200) {
      await discardBody(response);
      throw new UpstreamAuthError(
        `the authorization server metadata for ${shown(issuer)} could not be read: HTTP ${response.status}`,
      );
    }
    let metadata: oauth.AuthorizationServer;
    try {
      metadata = await oauth.processDiscoveryResponse(issuerUrl, response);
    } catch (error) {
      if (error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        throw anotherIssuer(
          issuer,
          (error.cause as { body?: { issuer?: unknown } } | undefined)?.body?.issuer,
        );
      }
      throw new UpstreamAuthError(
        `the authorization server metadata for ${shown(issuer)} is invalid: ${oauthErrorText(error)}`,
      );
    }
    // Identical, as RFC 8414 §3.3 says (oauth4webapi compares parsed URLs), except a path-less
    // issuer's trailing slash, as other SDKs allow (Google names "https://accounts.google.com/").
    const slashless = (text: string) => text.replace(/\/$/, "");
    if (
      metadata.issuer !== issuer &&
      !(slashless(metadata.issuer) === slashless(issuer) && issuerUrl.pathname === "/")
    ) throw anotherIssuer(issuer, metadata.issuer);
    for (const endpoint of FOLLOWED_ENDPOINTS) {
      const value = metadata[endpoint];
      if (value !== undefined) {
        followedUrl(String(value), serverUrl, `the authorization server's ${endpoint}`);
      }
    }
    return metadata;
  }
  throw new UpstreamAuthError(
    `no authorization server metadata found for ${shown(issuer)}${answered(statuses)}`,
  );
}

/** The endpoints of an authorization server's metadata a sign-in uses: the person's browser goes to the first, requests to the others. */
const FOLLOWED_ENDPOINTS = ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const;

/**
 * A resource identifier names the server when it is the server's URL, or a URL on the same origin
 * whose path is a whole-segment prefix of the server's (`https://host` for `https://host/mcp`).
 */
function identifiesServer(resource: string, server: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== server.origin || url.hash !== "" || url.search !== "") return false;
  const base = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  return server.pathname === url.pathname || server.pathname.startsWith(base);
}

/**
 * Whether a resource identifier names the endpoint itself: its URL without the query (RFC 9728
 * §1.2), with or without a trailing slash, never a shorter path.
 */
function namesEndpoint(resource: unknown, server: URL): boolean {
  if (typeof resource !== "string" || !URL.canParse(resource)) return false;
  const url = new URL(resource);
  const trimmed = (path: string) => path.length > 1 ? path.replace(/\/$/, "") : path;
  return url.origin === server.origin && url.search === "" && url.hash === "" &&
    trimmed(url.pathname) === trimmed(server.pathname);
}

/** A GET of a metadata document at a URL given by the server, under the same transport rules. */
function getJson(url: URL, fetch: Fetcher, signal: AbortSignal | undefined): Promise<Response> {
  const init: RequestInit = { method: "GET", headers: { accept: "application/json" }, redirect: "manual" };
  if (signal !== undefined) init.signal = signal;
  return namedFailure(url.href, signal, fetch(url.href, init));
}

/**
 * A sign-in request whose failure names its own URL, not the MCP request it happens in; an abort
 * stays the fetch's own.
 */
async function namedFailure(
  url: string,
  signal: AbortSignal | null | undefined,
  sent: Promise<Response>,
): Promise<Response> {
  try {
    return await sent;
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new UpstreamAuthError(`the request to ${shown(url)} failed: ${errorText(error)}`);
  }
}

/** What the URLs tried answered, when not all `404` (a server down is not a document missing). */
function answered(statuses: readonly string[]): string {
  return statuses.every((status) => status === "HTTP 404") ? "" : ` (${statuses.join(", then ")})`;
}

/**
 * What an oauth4webapi failure says, with the HTTP status of the response it refused, which its
 * message does not name.
 *
 * @param error What oauth4webapi threw.
 * @returns The text.
 */
export function oauthErrorText(error: unknown): string {
  const status = error instanceof oauth.OperationProcessingError && error.cause instanceof Response
    ? ` (HTTP ${error.cause.status})`
    : "";
  return `${errorText(error)}${status}`;
}

/** How far in each reach is: a URL may reach no further in than the MCP server. */
const DEPTH = { public: 0, private: 1, loopback: 2 } as const;

/**
 * Parses a URL the server or its metadata gave: https (or http on loopback), reaching no further in
 * than the server.
 *
 * @param text The URL as given.
 * @param serverUrl The MCP endpoint.
 * @param what What the URL is, for messages.
 * @returns The parsed URL.
 * @throws {UpstreamAuthError} When it is not a URL, not https off loopback, or reaches further in
 *   than the server.
 */
function followedUrl(text: string, serverUrl: URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UpstreamAuthError(`${what} is not a URL: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && hasLoopbackHost(url))) {
    throw new UpstreamAuthError(
      `${what} must use https unless its host is loopback, received "${withoutUrlSecrets(url.href)}"`,
    );
  }
  const reach = hostReach(url);
  const server = hostReach(serverUrl);
  if (DEPTH[reach] > DEPTH[server]) {
    const expected = server === "public" ? "a public host" : "a host that is not loopback";
    throw new UpstreamAuthError(
      `${what} must be on ${expected}, as the server "${serverUrl.origin}" is, received "${
        withoutUrlSecrets(url.href)
      }"`,
    );
  }
  return url;
}
