/**
 * What reading the HTTP response to one JSON-RPC POST can end in: every outcome is a value, since
 * nothing a server sends should make the reader throw.
 *
 * @module
 */
import type { JsonRpcErrorResponse, JsonRpcResultResponse } from "../protocol/jsonrpc.ts";

/** Where an SSE stream got to: what a legacy client resumes from, and how long it waits first. */
export interface StreamCursor {
  /** The last non-empty SSE `id` seen; send it as `Last-Event-ID` to resume (legacy era). */
  readonly lastEventId?: string;
  /** The last SSE `retry` value in milliseconds; wait this long before resuming (2025-11-25). */
  readonly retryMs?: number;
}

/**
 * The response to the request arrived: a result or a JSON-RPC error.
 *
 * `status` is the HTTP status: a 2xx, or a 4xx/5xx whose JSON body is a JSON-RPC error response
 * (modern servers answer `-32020`, `-32021`, `-32022` with 400 and `-32601` with 404).
 */
export interface ResponseReceived extends StreamCursor {
  /** Always `"response"`. */
  readonly kind: "response";
  /** The decoded response; its id is the request's, or `null` for an error the server could not tie to it. */
  readonly message: JsonRpcResultResponse | JsonRpcErrorResponse;
  /** The HTTP status of the response. */
  readonly status: number;
}

/** `202 Accepted`: the answer to a POSTed notification or client response; any body is discarded. */
export interface ResponseAccepted {
  /** Always `"accepted"`. */
  readonly kind: "accepted";
}

/**
 * The body ended or failed before the response arrived. A modern client re-issues the request
 * with a new id; a legacy 2025-11-25 client may resume with `Last-Event-ID` after `retryMs`.
 */
export interface ResponseStreamBroken extends StreamCursor {
  /** Always `"stream_broken"`. */
  readonly kind: "stream_broken";
  /** What happened, for people. */
  readonly reason: string;
  /** Set when the body failed (the connection broke) rather than the server ending it. */
  readonly failed?: true;
  /** Set with `failed` when the body failed before any byte of it arrived (an SSE stream only). */
  readonly nothingArrived?: true;
}

/** A status that carries no JSON-RPC answer (401, 404 from a legacy server, 500 HTML, a redirect…). */
export interface ResponseHttpError {
  /** Always `"http_error"`. */
  readonly kind: "http_error";
  /** The HTTP status. */
  readonly status: number;
  /** At most the first 1024 bytes of the body as text, for messages; never parse it. */
  readonly body: string;
}

/** The server broke the protocol: wrong content type, bad JSON, a batch, a wrong id, an oversized message. */
export interface ResponseProtocolError {
  /** Always `"protocol_error"`. */
  readonly kind: "protocol_error";
  /** What failed and what was expected. */
  readonly message: string;
}

/** The caller's signal fired before the response arrived; the body was cancelled. */
export interface ResponseAborted {
  /** Always `"aborted"`. */
  readonly kind: "aborted";
}

/** Every way reading a response can end. */
export type ResponseOutcome =
  | ResponseReceived
  | ResponseAccepted
  | ResponseStreamBroken
  | ResponseHttpError
  | ResponseProtocolError
  | ResponseAborted;
