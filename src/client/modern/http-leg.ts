/**
 * One HTTP leg of a request: a POST of one JSON-RPC message to the server's endpoint, redirects
 * handled by the policy's rule, and the response read as JSON or SSE.
 *
 * Redirects are never followed blindly: `fetch` runs with `redirect: "manual"`, and only a 307 or
 * 308 (which keep the method and body) is followed, to the same origin by default. The policy's
 * headers (credentials) are never sent to another origin.
 *
 * @module
 */
import type { CompiledHttpTransport } from "../../policy/compile-policy.ts";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.ts";
import { readResponse } from "../../transport/read-response.ts";
import type { ResponseOutcome } from "../../transport/response-outcome.ts";

/**
 * A `fetch`-like function: the global one, a Workers service binding's, or a test's. It is
 * called as `fetch(url, init)`: on Node 20, building a `Request` first costs 100-200 us more.
 */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/** What one leg needs. */
export interface LegInput {
  /** The server's transport. */
  readonly transport: CompiledHttpTransport;
  /** The fetch to use. */
  readonly fetch: Fetcher;
  /** The JSON-RPC message (already encoded as an object). */
  readonly body: JsonRpcMessage;
  /** The MCP headers for this message. */
  readonly headers: Readonly<Record<string, string>>;
  /** The id the response must carry. */
  readonly id: RequestId;
  /** Aborts the fetch and the read. */
  readonly signal: AbortSignal;
  /** Receives messages that arrive before the response (notifications). */
  readonly onMessage: (message: JsonRpcMessage) => void;
}

/** How many redirects one leg follows at most. */
const MAX_REDIRECTS = 5;

/**
 * Sends one message and reads the answer.
 *
 * @param input Transport, fetch, body, headers, id, signal and the message callback.
 * @returns The read outcome, or a `redirect_refused` / `network_error` outcome.
 */
export async function postLeg(input: LegInput): Promise<ResponseOutcome | LegFailure> {
  const body = JSON.stringify(input.body);
  let url = input.transport.url;
  let sameOrigin = true;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // Credentials in the policy's headers never go to another origin.
    const headers = sameOrigin ? Object.assign({}, input.transport.headers, input.headers) : input.headers;
    let response: Response;
    try {
      response = await input.fetch(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: input.signal,
      });
    } catch (error) {
      if (input.signal.aborted) return { kind: "aborted" };
      return { kind: "network_error", message: `request to ${url} failed: ${describe(error)}` };
    }
    if (![301, 302, 303, 307, 308].includes(response.status)) {
      return await readResponse(response, {
        requestId: input.id,
        onMessage: input.onMessage,
        signal: input.signal,
      });
    }
    await response.body?.cancel();
    const next = nextHop(input.transport, url, response);
    if (typeof next !== "string") return next;
    sameOrigin = sameOrigin && new URL(next).origin === input.transport.origin;
    url = next;
  }
  return { kind: "redirect_refused", message: `more than ${MAX_REDIRECTS} redirects` };
}

/** A leg that ended before any response could be read. */
export type LegFailure =
  | { readonly kind: "network_error"; readonly message: string }
  | { readonly kind: "redirect_refused"; readonly message: string };

function nextHop(transport: CompiledHttpTransport, from: string, response: Response): string | LegFailure {
  const location = response.headers.get("location");
  if (location === null) {
    return { kind: "redirect_refused", message: `HTTP ${response.status} without a Location header` };
  }
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return { kind: "redirect_refused", message: `HTTP ${response.status} to an invalid Location` };
  }
  if (response.status !== 307 && response.status !== 308) {
    return {
      kind: "redirect_refused",
      message: `HTTP ${response.status} would turn the POST into a GET; only 307 and 308 are followed`,
    };
  }
  if (transport.redirect === "none") {
    return {
      kind: "redirect_refused",
      message: `redirect to ${target.origin} refused: the policy's "transport.redirect" is "none"`,
    };
  }
  if (target.protocol !== "https:" && target.protocol !== "http:") {
    return { kind: "redirect_refused", message: `redirect to a ${target.protocol} URL refused` };
  }
  if (target.protocol === "http:" && new URL(from).protocol === "https:") {
    return { kind: "redirect_refused", message: "redirect from https to http refused" };
  }
  if (target.origin !== transport.origin && transport.redirect !== "any") {
    return {
      kind: "redirect_refused",
      message:
        `redirect to another origin (${target.origin}) refused: the policy's "transport.redirect" is "same-origin"`,
    };
  }
  return target.href;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  }
  return String(error);
}
