/**
 * One HTTP leg of a request: a POST of one JSON-RPC message to the server's endpoint, redirects
 * handled by the policy's rule, and the response read as JSON or SSE.
 *
 * Redirects are never followed blindly: `fetch` runs with `redirect: "manual"`, and only a 307 or
 * 308 (which keep the method and body) is followed, to the same origin by default. The policy's
 * headers (credentials) are never sent to another origin (see `fetchWithRedirects`).
 *
 * @module
 */
import type { CompiledHttpTransport } from "../../policy/compile-policy.ts";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.ts";
import { type Fetcher, type FetchFailure, fetchWithRedirects } from "../../transport/fetch-with-redirects.ts";
import type { MessageLimits } from "../../protocol/message-limits.ts";
import { readResponse } from "../../transport/read-response.ts";
import type { ResponseOutcome } from "../../transport/response-outcome.ts";

export type { Fetcher } from "../../transport/fetch-with-redirects.ts";

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
  /** The policy's message limits. */
  readonly limits: MessageLimits;
}

/** A leg that ended before any response could be read. */
export type LegFailure = FetchFailure;

/**
 * Sends one message and reads the answer.
 *
 * @param input Transport, fetch, body, headers, id, signal, the message callback and the limits.
 * @returns The read outcome, or a `redirect_refused` / `network_error` outcome.
 */
export async function postLeg(input: LegInput): Promise<ResponseOutcome | LegFailure> {
  const sent = await fetchWithRedirects({
    transport: input.transport,
    fetch: input.fetch,
    method: "POST",
    headers: input.headers,
    body: JSON.stringify(input.body),
    signal: input.signal,
  });
  if (sent.kind !== "fetched") return sent;
  return await readResponse(sent.response, {
    requestId: input.id,
    onMessage: input.onMessage,
    signal: input.signal,
    ...input.limits,
  });
}
