/**
 * Reads the HTTP response to one JSON-RPC POST, in either protocol era: a JSON body, an SSE
 * stream of messages ending with the response, `202 Accepted`, or an error status.
 *
 * @module
 */
import { type JsonRpcMessage, parseMessage, type RequestId } from "../protocol/jsonrpc.ts";
import {
  type BodyBytes,
  type BodyReader,
  discardBody,
  openResponseBody,
  readBodyBytes,
  readWholeBody,
} from "./body-reader.ts";
import { BufferedResponse, HeldResponse, StreamedResponse } from "./_held-responses.ts";
import { protocolError, readEventStream } from "./_event-stream.ts";
import { expectedResponse, matchResponse } from "./_match-response.ts";
import type { ResponseOutcome } from "./response-outcome.ts";
import { messageLimit, type MessageLimits, tooLarge } from "../protocol/message-limits.ts";

/** Options of {@linkcode readResponse}. */
export interface ReadResponseOptions extends Partial<MessageLimits> {
  /**
   * The id of the request the POST carried: its response ends the read. `undefined` reads the legacy
   * standalone GET stream: only an SSE body is accepted, a response on it is a protocol error, and an
   * error status is an `http_error`.
   */
  readonly requestId: RequestId | undefined;
  /**
   * Receives, in order, each message on an SSE stream that is not the response (the caller, which
   * knows the era, judges server requests). What it throws is rethrown after the body is cancelled.
   * @default undefined (such messages are dropped)
   */
  readonly onMessage?: (message: JsonRpcMessage) => void;
  /**
   * Aborting it stops reading at once and cancels the body: the outcome is `"aborted"`. It is how a
   * caller bounds an SSE stream that never ends.
   * @default undefined (no abort)
   */
  readonly signal?: AbortSignal;
}
const ERROR_BODY_BYTES = 1024;
const JSON_BODY = "JSON response body";
/** Decodes whole messages: without `stream`, a decoder keeps no state between calls. */
const UTF8 = new TextDecoder();
const ABORTED: ResponseOutcome = Object.freeze({ kind: "aborted" });
const ACCEPTED: ResponseOutcome = Object.freeze({ kind: "accepted" });

/**
 * Reads the response to a POST and says how it ended; never throws for anything the server sent.
 *
 * A body or an SSE event over its byte limit, or nested deeper than `maxJsonDepth`, is a
 * `protocol_error`. A body is read within the limits and cancelled as soon as the outcome is known.
 *
 * @param response The fetch response; its body must not have been read.
 * @param options Request id, message callback, signal and limits.
 * @returns The outcome: `response`, `accepted`, `stream_broken`, `http_error`, `protocol_error` or `aborted`.
 * @throws {RangeError} When a limit is not a positive integer.
 * @throws {TypeError} When the body is already locked or read.
 * @example
 * ```ts
 * import { readResponse } from "./read-response.ts";
 * const response = new Response('{"jsonrpc":"2.0","id":1,"result":{}}', {
 *   headers: { "content-type": "application/json" },
 * });
 * const outcome = await readResponse(response, { requestId: 1 });
 * console.log(outcome); // { kind: "response", message: { jsonrpc: "2.0", id: 1, result: {} }, status: 200 }
 * ```
 */
export async function readResponse(
  response: Response,
  options: ReadResponseOptions,
): Promise<ResponseOutcome> {
  const maxMessageBytes = messageLimit("readResponse()", "maxMessageBytes", options.maxMessageBytes);
  const maxEventBytes = messageLimit("readResponse()", "maxEventBytes", options.maxEventBytes);
  const maxDepth = messageLimit("readResponse()", "maxJsonDepth", options.maxJsonDepth);
  const { status } = response;
  if (options.requestId !== undefined && isJsonAnswer(status, response)) {
    // A small body createNodeFetch() already read is taken as it is (jsonOutcome checks its size).
    const held = response instanceof BufferedResponse ? response.takeBytes() : undefined;
    if (held !== undefined) {
      const end = options.signal?.aborted ? "aborted" : "complete";
      return jsonOutcome(
        { bytes: held, end, reason: "" },
        status,
        options.requestId,
        maxMessageBytes,
        maxDepth,
      );
    }
    if (isWholeJson(response, maxMessageBytes)) {
      const read = await readWholeBody(response, options.signal);
      return jsonOutcome(read, status, options.requestId, maxMessageBytes, maxDepth);
    }
  }
  if (status === 202) {
    void discardBody(response);
    return options.signal?.aborted ? ABORTED : ACCEPTED;
  }
  const body = openResponseBody(response, options.signal);
  try {
    if (body.aborted()) return ABORTED;
    const type = mediaType(headerOf(response, "content-type"));
    if (status < 200 || status > 299) {
      return await readErrorStatus(body, status, type, options.requestId, maxMessageBytes, maxDepth);
    }
    if (type === "application/json" && options.requestId !== undefined) {
      if (declaredLength(response) > maxMessageBytes) {
        return protocolError(tooLarge(JSON_BODY, maxMessageBytes));
      }
      const read = await readBodyBytes(body, maxMessageBytes);
      return jsonOutcome(read, status, options.requestId, maxMessageBytes, maxDepth);
    }
    if (type === "text/event-stream") {
      return await readEventStream(body, {
        requestId: options.requestId,
        onMessage: options.onMessage,
        maxEventBytes,
        maxDepth,
        status,
      });
    }
    const received = type === undefined ? "none" : JSON.stringify(type);
    const expected = options.requestId === undefined ? "" : `"application/json" or `;
    return protocolError(
      `HTTP ${status} response: expected content type ${expected}"text/event-stream", received ${received}`,
    );
  } finally {
    body.close();
  }
}

/** What a JSON body read says: the response, or why there is none. */
function jsonOutcome(
  read: BodyBytes,
  status: number,
  requestId: RequestId,
  max: number,
  maxDepth: number,
): ResponseOutcome {
  if (read.end === "aborted") return ABORTED;
  if (read.end === "failed") {
    return {
      kind: "stream_broken",
      reason: `JSON response body failed before it was complete: ${read.reason}`,
      failed: true,
    };
  }
  if (read.end === "over_limit" || read.bytes.byteLength > max) {
    return protocolError(tooLarge(JSON_BODY, max));
  }
  const decoded = parseMessage(UTF8.decode(read.bytes), { maxDepth });
  if (!decoded.ok) return protocolError(`JSON response body: ${decoded.message}`);
  const match = matchResponse(decoded.value, requestId);
  if (match.kind === "ours") return { kind: "response", message: match.message, status };
  const problem = match.kind === "wrong_id"
    ? match.problem
    : `${expectedResponse(requestId)}, received ${match.described}`;
  return protocolError(`JSON response body: ${problem}`);
}

async function readErrorStatus(
  body: BodyReader,
  status: number,
  type: string | undefined,
  requestId: RequestId | undefined,
  max: number,
  maxDepth: number,
): Promise<ResponseOutcome> {
  // A stream that carries no response has no request whose error the body could be.
  const json = type === "application/json" && requestId !== undefined;
  const read = await readBodyBytes(body, json ? max : ERROR_BODY_BYTES);
  if (read.end === "aborted") return ABORTED;
  if (json && read.end === "complete") {
    const decoded = parseMessage(UTF8.decode(read.bytes), { maxDepth });
    if (decoded.ok && "error" in decoded.value) {
      const match = matchResponse(decoded.value, requestId);
      if (match.kind === "ours") return { kind: "response", message: match.message, status };
      if (match.kind === "wrong_id") return protocolError(`HTTP ${status} response body: ${match.problem}`);
    }
  }
  // `stream: true` leaves out a character cut in half at the 1 KiB mark.
  const text = new TextDecoder().decode(read.bytes.subarray(0, ERROR_BODY_BYTES), { stream: true });
  return { kind: "http_error", status, body: text };
}

function mediaType(header: string | null): string | undefined {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  return type === undefined || type === "" ? undefined : type;
}

/** One header of a response, read without building its `Headers` when it has none yet. */
function headerOf(response: Response, name: string): string | null {
  return response instanceof HeldResponse ? response.header(name) : response.headers.get(name);
}

/** Whether a response is a successful (not `202`) JSON body: one that should hold the answer. */
function isJsonAnswer(status: number, response: Response): boolean {
  if (status < 200 || status > 299 || status === 202) return false;
  return mediaType(headerOf(response, "content-type")) === "application/json";
}

/**
 * Whether a JSON answer can be read whole: it declares its length, within `max`, and no
 * `Content-Encoding` (a decompressed body can outgrow its declared length many times). A
 * `StreamedResponse` is read as it comes instead, with no web stream made.
 */
function isWholeJson(response: Response, max: number): boolean {
  if (response instanceof StreamedResponse) return false;
  const encoding = headerOf(response, "content-encoding");
  if (encoding !== null && encoding.trim().toLowerCase() !== "identity") return false;
  const length = headerOf(response, "content-length");
  return length !== null && DECIMAL.test(length) && Number(length) <= max;
}

const DECIMAL = /^\d{1,16}$/;

/** The body's `Content-Length`, or 0 when it has none (or one that is not a number). */
function declaredLength(response: Response): number {
  const length = Number(headerOf(response, "content-length") ?? 0);
  return Number.isFinite(length) ? length : 0;
}
