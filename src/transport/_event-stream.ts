/**
 * Reads a `text/event-stream` response to a POST: each event's data is one JSON-RPC message;
 * messages before the response go to `onMessage` in order, the response ends the read.
 *
 * SSE parsing is `eventsource-parser`'s. Around it: UTF-8 decoding (which drops a leading BOM), byte
 * limits, and line ends rewritten to LF (the parser holds back a chunk's final CR, which would
 * stall an event ended by bare CRs).
 *
 * @module
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { type JsonRpcMessage, parseMessage, type RequestId } from "../protocol/jsonrpc.ts";
import type { BodyReader } from "./body-reader.ts";
import { matchResponse } from "./_match-response.ts";
import type { ResponseOutcome, StreamCursor } from "./response-outcome.ts";
import { tooLarge } from "../protocol/message-limits.ts";
import { MAX_TIMER_MS } from "../_internal/timers.ts";

/** What {@linkcode readEventStream} needs besides the body. */
export interface EventStreamOptions {
  /** The id of the request the POST carried; `undefined` on a stream that carries no response. */
  readonly requestId: RequestId | undefined;
  /** Receives every message that is not the response, in order. */
  readonly onMessage?: ((message: JsonRpcMessage) => void) | undefined;
  /** The largest event data accepted, in UTF-8 bytes. */
  readonly maxEventBytes: number;
  /** The deepest nesting of a message. */
  readonly maxDepth: number;
  /** The HTTP status, reported with the response. */
  readonly status: number;
}

interface StreamState {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  final: ResponseOutcome | undefined;
}

/** Where {@linkcode feedEvents} got to in the text: the line being read, and the event's `id`. */
interface IdLines {
  /** The start of the line being read while it may be an `id` line; `undefined` once it cannot. */
  line: string | undefined;
  /** The value of the last `id` line of the event being read, until its blank line. */
  id: string | undefined;
}

// Room in the parser's buffer beyond the data limit, for the `data: ` prefix and up to 1 KiB of
// `id` and `event` lines, so an event whose data fits is never refused for where a chunk was cut.
// The buffer counts UTF-16 units (never more than UTF-8 bytes); each event's bytes are checked too.
const LINE_ROOM = 1024;

/**
 * Reads SSE events until the response to `requestId`, the end of the body, or an abort.
 *
 * @param body The opened body; the caller closes it.
 * @param options Request id, message callback, limit and status.
 * @returns The outcome; `lastEventId` and `retryMs` are set on a response or broken stream when seen.
 * @throws Whatever `onMessage` throws.
 */
export async function readEventStream(
  body: BodyReader,
  options: EventStreamOptions,
): Promise<ResponseOutcome> {
  const state: StreamState = { lastEventId: undefined, retryMs: undefined, final: undefined };
  const tooLargeEvent = tooLarge("SSE event", options.maxEventBytes, "maxEventBytes");
  const parser = createParser({
    maxBufferSize: options.maxEventBytes + LINE_ROOM,
    onEvent: (event) => {
      if (state.final === undefined && !body.aborted()) handleEvent(event, state, options, tooLargeEvent);
    },
    onRetry: (ms) => {
      // A wait longer than a timer can hold would end at once: such a retry waits the longest.
      if (Number.isSafeInteger(ms)) state.retryMs = Math.min(ms, MAX_TIMER_MS);
    },
    onError: (error) => {
      // Unknown fields and bad `retry` values are ignored, as the SSE rules say.
      if (error.type === "max-buffer-size-exceeded") state.final ??= protocolError(tooLargeEvent);
    },
  });
  const decoder = new TextDecoder();
  const lineEnds = { afterCR: false };
  const idLines: IdLines = { line: "", id: undefined };
  let arrived = false;
  for (;;) {
    const step = await body.read();
    if (step.kind === "aborted") return { kind: "aborted" };
    if (step.kind === "failed") {
      const reason = `SSE stream failed${beforeResponse(options)}: ${step.reason}`;
      return { ...broken(state, reason, true), ...(arrived ? {} : { nothingArrived: true as const }) };
    }
    if (step.kind === "chunk" && step.bytes.byteLength > 0) arrived = true;
    const text = step.kind === "end" ? decoder.decode() : decoder.decode(step.bytes, { stream: true });
    const lines = toLineFeeds(text, lineEnds);
    if (lines !== "") feedEvents(lines, idLines, parser, state);
    if (body.aborted()) return { kind: "aborted" };
    if (state.final !== undefined) return state.final;
    if (step.kind === "end") {
      return broken(state, `SSE stream ended${beforeResponse(options)}`);
    }
  }
}

function handleEvent(
  event: EventSourceMessage,
  state: StreamState,
  options: EventStreamOptions,
  tooLarge: string,
): void {
  // An empty id clears the last event id (SSE rules), even on a skipped event; see UNSENDABLE_ID.
  if (event.id !== undefined && !UNSENDABLE_ID.test(event.id)) {
    state.lastEventId = event.id === "" ? undefined : event.id;
  }
  // Empty data (a priming event) is not dispatched; other event types are not JSON-RPC messages.
  if (event.data === "" || (event.event !== undefined && event.event !== "message")) return;
  if (exceedsUtf8Bytes(event.data, options.maxEventBytes)) {
    state.final = protocolError(tooLarge);
    return;
  }
  const decoded = parseMessage(event.data, { maxDepth: options.maxDepth });
  if (!decoded.ok) {
    state.final = protocolError(`SSE event data: ${decoded.message}`);
    return;
  }
  const match = matchResponse(decoded.value, options.requestId);
  if (match.kind === "ours") {
    state.final = { kind: "response", message: match.message, status: options.status, ...cursor(state) };
  } else if (match.kind === "wrong_id") {
    state.final = protocolError(`SSE event: ${match.problem}`);
  } else {
    options.onMessage?.(decoded.value);
  }
}

/**
 * Feeds LF-ended text to the parser one event at a time, and at each event's blank line sets the
 * last event id from its `id` line. eventsource-parser 3 drops an event without `data`, its `id`
 * with it, and has no field hook, while WHATWG HTML §9.2.6 makes an `id` alone move the cursor.
 * Feeding event by event keeps these ids in stream order with the parser's.
 */
function feedEvents(text: string, lines: IdLines, parser: EventSourceParser, state: StreamState): void {
  let fed = 0;
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1; start = end + 1, end = text.indexOf("\n", start)) {
    const carried = lines.line;
    lines.line = "";
    if (carried === "" && end === start) {
      parser.feed(text.slice(fed, end + 1));
      fed = end + 1;
      if (state.final !== undefined) return;
      if (lines.id !== undefined) state.lastEventId = lines.id === "" ? undefined : lines.id;
      lines.id = undefined;
    } else if (carried !== undefined && (carried !== "" || text.startsWith("id", start))) {
      lines.id = idField(carried + text.slice(start, end)) ?? lines.id;
    }
  }
  if (lines.line !== undefined) {
    // Only the start of a line that may be an `id` line is kept (the parser bounds its length).
    const head = lines.line + text.slice(start, start + 3);
    lines.line = head.length < 3
      ? ("id:".startsWith(head) ? head : undefined)
      : head.startsWith("id:")
      ? lines.line + text.slice(start)
      : undefined;
  }
  parser.feed(fed === 0 ? text : text.slice(fed));
}

/**
 * An id the resuming GET's `Last-Event-ID` cannot carry as it is, so it is ignored as the SSE rules
 * ignore a NUL: a control character but HTAB (fetch refuses it), or a space or HTAB at either end
 * (fetch strips it).
 */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const UNSENDABLE_ID = /[\0-\x08\n-\x1f\x7f]|^[\t ]|[\t ]$/;

/**
 * The value of an `id` line (`id` alone gives "").
 *
 * @param line The line, without its line end.
 * @returns The value, or `undefined` for another line or an id in {@linkcode UNSENDABLE_ID}.
 */
function idField(line: string): string | undefined {
  if (line !== "id" && !line.startsWith("id:")) return undefined;
  const value = line.slice(line.startsWith("id: ") ? 4 : 3);
  return UNSENDABLE_ID.test(value) ? undefined : value;
}

/** Rewrites CRLF and bare CR to LF; a CR ending one chunk swallows an LF starting the next. */
function toLineFeeds(text: string, state: { afterCR: boolean }): string {
  if (text === "") return text;
  const rest = state.afterCR && text.startsWith("\n") ? text.slice(1) : text;
  state.afterCR = text.endsWith("\r");
  return rest.includes("\r") ? rest.replace(/\r\n?/g, "\n") : rest;
}

function exceedsUtf8Bytes(text: string, max: number): boolean {
  // A UTF-16 code unit takes one to three UTF-8 bytes (a surrogate pair takes four).
  if (text.length * 3 <= max) return false;
  if (text.length > max) return true;
  return new TextEncoder().encode(text).byteLength > max;
}

function cursor(state: StreamState): StreamCursor {
  return {
    ...(state.lastEventId === undefined ? {} : { lastEventId: state.lastEventId }),
    ...(state.retryMs === undefined ? {} : { retryMs: state.retryMs }),
  };
}

function broken(state: StreamState, reason: string, failed = false): ResponseOutcome {
  return { kind: "stream_broken", reason, ...cursor(state), ...(failed ? { failed: true as const } : {}) };
}

/** The outcome of a server that broke the protocol. */
export function protocolError(message: string): ResponseOutcome {
  return { kind: "protocol_error", message };
}

function beforeResponse(options: EventStreamOptions): string {
  return options.requestId === undefined
    ? ""
    : ` before the response to request ${JSON.stringify(options.requestId)}`;
}
