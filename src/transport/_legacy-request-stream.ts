/**
 * One legacy request over HTTP: the POST, its JSON or SSE answer, and, when the SSE stream ends
 * before the response (2025-11-25 lets a server close it to be polled), its resumption by GET with
 * `Last-Event-ID` after the server's `retry`, waited in full (only the call's deadline bounds it).
 *
 * @module
 */
import { linkSignals, pause } from "../_internal/signals.ts";
import { ConnectionError } from "./legacy-connection.ts";
import {
  isRequest,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResultResponse,
} from "../protocol/jsonrpc.ts";
import type { LegacyHttpWire } from "./_legacy-http-wire.ts";
import { readResponse } from "./read-response.ts";
import type { ResponseOutcome, ResponseStreamBroken } from "./response-outcome.ts";
import { discardBody } from "./body-reader.ts";

/** The wait before resuming a stream whose server sent no `retry`, in milliseconds. */
export const DEFAULT_RETRY_MS = 1000;

/** Where a broken stream got to: the event id to resume from, and the server's `retry`. */
export interface ResumeCursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
}

interface Cursor extends ResumeCursor {
  /** Resumptions in a row that brought no new event. */
  stalled: number;
}

/**
 * Moves a cursor past a broken stream (the request's, or the standalone GET stream).
 *
 * @param cursor Updated in place with the stream's last event id and `retry`, when it had them.
 * @param broken How the stream ended.
 * @returns Whether the stream brought an event id not seen before.
 */
export function moveCursor(cursor: ResumeCursor, broken: ResponseStreamBroken): boolean {
  const progressed = broken.lastEventId !== undefined && broken.lastEventId !== cursor.lastEventId;
  cursor.lastEventId = broken.lastEventId ?? cursor.lastEventId;
  cursor.retryMs = broken.retryMs ?? cursor.retryMs;
  return progressed;
}

/**
 * Sends a request and reads its response, resuming the stream as often as the server asks.
 *
 * @param wire The connection.
 * @param message The request.
 * @param signal Fires when the caller aborts or the connection ends.
 * @param progress `sent` once the POST is on its way, `posted` once the server answered it (not
 *   with the session's 404): it has read the request.
 * @returns The response: a result or a JSON-RPC error.
 * @throws {ConnectionError} When no response can be had.
 */
export async function exchangeRequest(
  wire: LegacyHttpWire,
  message: JsonRpcRequest,
  signal: AbortSignal,
  progress: { sent: boolean; posted: boolean },
): Promise<JsonRpcResultResponse | JsonRpcErrorResponse> {
  const label = `Request ${JSON.stringify(message.id)} (${JSON.stringify(message.method)})`;
  const onMessage = (received: JsonRpcMessage): void => wire.deliver(received, message.id);
  const read = (response: Response): Promise<ResponseOutcome> =>
    readResponse(response, { requestId: message.id, onMessage, signal, ...wire.settings.limits });
  progress.sent = true;
  const response = await wire.send("POST", { body: JSON.stringify(message), signal });
  progress.posted = true;
  // Answered after the session ended (another request's 404): read for the response only.
  if (wire.ended !== undefined) return await afterTheSession(response, message, label, signal, wire);
  if (message.method === "initialize") {
    try {
      wire.adoptSession(response);
    } catch (error) {
      void discardBody(response);
      throw error;
    }
  }
  let outcome = await read(response);
  const cursor: Cursor = { lastEventId: undefined, retryMs: undefined, stalled: 0 };
  while (outcome.kind === "stream_broken") {
    const lastEventId = advance(cursor, outcome, label, wire.settings.maxResumeAttempts);
    if (!await pause(cursor.retryMs ?? DEFAULT_RETRY_MS, wire.settings.timers, signal)) throw aborted(label);
    outcome = await read(await wire.send("GET", { lastEventId, signal }));
  }
  return settle(outcome, label);
}

/**
 * The answer to a request whose POST the server answered after the session had ended: a response
 * as it came, or the session's end (`session_expired`: the server took the request, so it is not
 * sent again) when a stream asks something or ends first.
 */
async function afterTheSession(
  response: Response,
  message: JsonRpcRequest,
  label: string,
  signal: AbortSignal,
  wire: LegacyHttpWire,
): Promise<JsonRpcResultResponse | JsonRpcErrorResponse> {
  const asked = new AbortController();
  const linked = linkSignals([signal, asked.signal]);
  try {
    const outcome = await readResponse(response, {
      requestId: message.id,
      onMessage: (received) => void (isRequest(received) && asked.abort()),
      signal: linked.signal,
      ...wire.settings.limits,
    });
    if (outcome.kind === "response") return outcome.message;
    if (signal.aborted) throw aborted(label);
    throw new ConnectionError(
      "session_expired",
      asked.signal.aborted
        ? "its answer asked the client something after the session had ended"
        : "its answer ended without a response after the session had ended",
    );
  } finally {
    linked.dispose();
  }
}

/** Moves the cursor past a broken stream; returns the id to resume from, or throws when none. */
function advance(cursor: Cursor, broken: ResponseStreamBroken, label: string, maxAttempts: number): string {
  cursor.stalled = moveCursor(cursor, broken) ? 0 : cursor.stalled + 1;
  if (cursor.lastEventId === undefined) {
    // A stream ended without a way to resume breaks the protocol; one that failed is the network's.
    throw new ConnectionError(
      broken.failed === true ? "http" : "protocol",
      `${label}: ${broken.reason}, and it cannot be resumed: expected an SSE event with an "id" before the stream ended, received none`,
    );
  }
  if (cursor.stalled >= maxAttempts) {
    throw new ConnectionError(
      "protocol",
      `${label}: ${broken.reason}; gave up resuming from event ${
        JSON.stringify(cursor.lastEventId)
      } after ${cursor.stalled} attempts in a row brought no new event (maxResumeAttempts ${maxAttempts})`,
    );
  }
  return cursor.lastEventId;
}

function settle(outcome: ResponseOutcome, label: string): JsonRpcResultResponse | JsonRpcErrorResponse {
  switch (outcome.kind) {
    case "response":
      return outcome.message;
    case "aborted":
      throw aborted(label);
    case "accepted":
      throw new ConnectionError(
        "protocol",
        `${label}: expected a JSON-RPC response as JSON or SSE, received HTTP 202 Accepted`,
        { status: 202 },
      );
    case "http_error":
      throw new ConnectionError(
        "http",
        `${label} failed with HTTP ${outcome.status}: expected a JSON-RPC response, received ${
          quoteBody(outcome.body)
        }`,
        { status: outcome.status },
      );
    case "protocol_error":
      throw new ConnectionError("protocol", `${label}: ${outcome.message}`);
    case "stream_broken":
      throw new ConnectionError("protocol", `${label}: ${outcome.reason}`);
  }
}

function aborted(label: string): ConnectionError {
  return new ConnectionError("aborted", `${label} was aborted before its response arrived`);
}

/** Quotes at most 200 characters of an error body, for messages. */
export function quoteBody(body: string): string {
  if (body === "") return "an empty body";
  return JSON.stringify(body.length > 200 ? `${body.slice(0, 200)}…` : body);
}
