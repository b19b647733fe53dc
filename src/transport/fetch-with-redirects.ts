/**
 * One HTTP request to a server's MCP endpoint, redirects handled by the policy's rule: what every
 * HTTP transport sends through.
 *
 * `fetch` runs with `redirect: "manual"`; only a 307 or 308 (which keep the method and body) is
 * followed, or for a GET any of 301, 302, 303, 307, 308; to the same origin by default. The
 * policy's headers (credentials) are never sent once a redirect has left the endpoint's origin.
 * Never from https to http, and plain http only on a loopback host unless the policy's `allowHttp`.
 *
 * @module
 */
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { errorText } from "../_internal/error-text.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import type { CompiledHttpTransport } from "../policy/compile-policy.ts";
import { discardBody } from "./body-reader.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";

/**
 * A `fetch`-like function: the global one, a Workers service binding's, or a test's. Called as
 * `fetch(url, init)`, never with a `Request`, which costs Node 20 more CPU (bench/RESULTS.md).
 */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/** One request to send. */
export interface OutgoingRequest {
  /** The server's transport: endpoint, policy headers, redirect rule. */
  readonly transport: CompiledHttpTransport;
  /** The fetch to use. */
  readonly fetch: Fetcher;
  /** The HTTP method. */
  readonly method: "POST" | "GET" | "DELETE";
  /** The protocol's headers for this request, sent on every hop (the policy's go first). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, for a POST. */
  readonly body?: string;
  /** Aborts the fetch. */
  readonly signal: AbortSignal;
}

/** A request that ended before any response could be read. */
export type FetchFailure =
  | { readonly kind: "network_error"; readonly message: string; readonly cause?: unknown }
  | { readonly kind: "redirect_refused"; readonly message: string };

/** How sending ended: a response to read, an abort, or a failure. */
export type FetchResult =
  | { readonly kind: "fetched"; readonly response: Response }
  | { readonly kind: "aborted" }
  | FetchFailure;

/** How many redirects one request follows at most. */
const MAX_REDIRECTS = 5;
/** The redirect statuses: a GET follows each of them, any other method only 307 and 308. */
const GET_REDIRECTS: readonly number[] = [301, 302, 303, 307, 308];

/**
 * Sends one request, following the redirects the policy allows.
 *
 * @param request Transport, fetch, method, headers, body and signal.
 * @returns The final response (its body unread), `aborted` (without calling `fetch` when the signal
 *   was aborted before a hop), or why no response could be had.
 */
export async function fetchWithRedirects(request: OutgoingRequest): Promise<FetchResult> {
  const { transport, method } = request;
  let url = transport.url;
  let sameOrigin = true;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (request.signal.aborted) return { kind: "aborted" };
    // Credentials never go to another origin; with no policy headers, no copy is made.
    const headers = sameOrigin && hasKeys(transport.headers)
      ? Object.assign({}, transport.headers, request.headers)
      : request.headers;
    const init: RequestInit = { method, headers, redirect: "manual", signal: request.signal };
    if (request.body !== undefined) init.body = request.body;
    let response: Response;
    try {
      response = await request.fetch(url, init);
    } catch (error) {
      if (request.signal.aborted) return { kind: "aborted" };
      // A failed sign-in (transport.auth) says what went wrong itself, secrets left out.
      if (error instanceof UpstreamAuthError) {
        return { kind: "network_error", message: error.message, cause: error };
      }
      // The URL as logs show it: errors reach decision events, and a query may hold a key.
      return {
        kind: "network_error",
        message: `request to ${withoutUrlSecrets(url)} failed: ${errorText(error)}`,
      };
    }
    if (!GET_REDIRECTS.includes(response.status)) return { kind: "fetched", response };
    await discardBody(response);
    const next = nextHop(transport, method, url, response);
    if (typeof next !== "string") return next;
    sameOrigin = sameOrigin && new URL(next).origin === transport.origin;
    url = next;
  }
  return refused(`more than ${MAX_REDIRECTS} redirects`);
}

function nextHop(
  transport: CompiledHttpTransport,
  method: OutgoingRequest["method"],
  from: string,
  response: Response,
): string | FetchFailure {
  const location = response.headers.get("location");
  if (location === null) {
    return refused(`HTTP ${response.status} without a Location header`);
  }
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return refused(`HTTP ${response.status} to an invalid Location`);
  }
  if (method !== "GET" && response.status < 307) {
    return refused(
      `HTTP ${response.status} would turn the ${method} into a GET; only 307 and 308 are followed`,
    );
  }
  if (transport.redirect === "none") {
    return refused(`redirect to ${target.origin} refused: the policy's "transport.redirect" is "none"`);
  }
  if (target.protocol !== "https:" && target.protocol !== "http:") {
    return refused(`redirect to a ${target.protocol} URL refused`);
  }
  if (target.protocol === "http:" && new URL(from).protocol === "https:") {
    return refused("redirect from https to http refused");
  }
  if (target.origin !== transport.origin && transport.redirect !== "any") {
    return refused(
      `redirect to another origin (${target.origin}) refused: the policy's "transport.redirect" is "same-origin"`,
    );
  }
  if (target.protocol === "http:" && !hasLoopbackHost(target) && !transport.allowHttp) {
    return refused(
      `redirect to ${target.origin} refused: a plain http URL must have a loopback host unless the policy's "transport.allowHttp" is true`,
    );
  }
  return target.href;
}

function refused(message: string): FetchFailure {
  return { kind: "redirect_refused", message };
}

function hasKeys(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return true;
  return false;
}
