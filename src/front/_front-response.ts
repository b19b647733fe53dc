/**
 * How the front writes its answers: JSON with the right HTTP status (straight to the connection
 * where the runtime entry offers a {@linkcode JsonWriter}), or, when the caller accepts SSE, a
 * stream of the upstream's notifications as they arrive and then the final response.
 *
 * @module
 */
import type { Context } from "hono";
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcResultResponse,
} from "../protocol/jsonrpc.ts";
import { type Heartbeat, HEARTBEAT_COMMENT } from "./heartbeat.ts";
import { JSON_WRITER, type JsonWriter } from "./entry-bindings.ts";
import { SSE_HEADERS } from "./sse-stream.ts";

const encoder = new TextEncoder();

/** Why a call whose stream nobody reads ends. */
const NOT_READ = "The caller stopped reading the stream";

/** The answer when the work itself failed (a bug, not an upstream's failure). */
const INTERNAL_ERROR: FrontAnswer = {
  status: 500,
  body: { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" } },
};

/** An answer: an HTTP status and a JSON-RPC response (none for a bare status). */
export interface FrontAnswer {
  readonly status: number;
  readonly body: JsonRpcResultResponse | JsonRpcErrorResponse | undefined;
}

/**
 * Answers with JSON.
 *
 * @param c The Hono context.
 * @param answer Status and body.
 * @returns The response.
 */
export function respond(c: Context, answer: FrontAnswer): Response {
  if (answer.body === undefined) return c.body(null, answer.status as never);
  // Straight to the connection where the entry can; not to a request with an Origin, whose
  // answer middleware may still add headers to (CORS) after the handler returns.
  const write = (c.env as { [JSON_WRITER]?: JsonWriter } | undefined)?.[JSON_WRITER];
  if (write !== undefined && c.req.header("origin") === undefined) {
    return write(answer.status, JSON.stringify(answer.body));
  }
  return c.json(answer.body, answer.status as never);
}

/** What {@linkcode respondStreaming} tells its caller once the answer is a stream. */
export interface StreamHooks {
  /** Called with the call's completion when it turns into a stream (it outlives the handler). */
  readonly onStream: (done: Promise<unknown>) => void;
  /**
   * Called with the reason when the caller closes the stream before its end: a modern caller's
   * way to cancel its request, which the server must take as such (2026-07-28).
   */
  readonly onCancel: (reason: unknown) => void;
  /**
   * How often to write an SSE comment while the call runs, opening the stream if need be; none
   * when `undefined`. Proxies then see no idle connection, and a caller that left before its
   * answer started is heard where the runtime does not tell: on Deno the write fails and cancels
   * the stream; on workerd a beat still unread at the next one is told to `onCancel`.
   */
  readonly heartbeat?: Heartbeat | undefined;
}

/**
 * Answers a caller that accepts SSE: with JSON when the call ends before any notification or
 * heartbeat (most calls: no stream to set up), else with an SSE stream from the first of them
 * on, each notification an event, each heartbeat a comment, the final answer ending it.
 *
 * @param c The Hono context.
 * @param work Runs the call; gets `emit` for notifications; returns the final answer.
 * @param hooks What to tell once the answer is a stream (that it is, that the caller closed
 *   it), and how often to beat.
 * @returns The response, once the call ended or its stream opened.
 */
export function respondStreaming(
  c: Context,
  work: (emit: (notification: JsonRpcNotification) => void) => Promise<FrontAnswer>,
  hooks: StreamHooks,
): Promise<Response> {
  const { onStream, onCancel, heartbeat } = hooks;
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  let answer: (response: Response) => void = () => {};
  const response = new Promise<Response>((resolve) => (answer = resolve));
  const event = (message: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  // Set once `work` has started: a notification sent before its first await streams from then.
  let done: Promise<void> | undefined = undefined;
  let beat: unknown;
  // The chunks the stream held unread just after the last beat, and those sent since.
  let unreadByBeat = 0;
  let sentSinceBeat = 0;
  // With a high-water mark of 0, `-desiredSize` is how many chunks the stream holds unread.
  const unread = () => -(stream?.desiredSize ?? 0);
  const send = (chunk: Uint8Array) => {
    if (stream === undefined) {
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => void (stream = controller),
        cancel: onCancel,
      }, { highWaterMark: 0 });
      answer(new Response(body, { status: 200, headers: SSE_HEADERS }));
      if (done !== undefined) onStream(done);
    }
    sentSinceBeat++;
    try {
      stream?.enqueue(chunk);
    } catch {
      // The caller went away; the call ends on its own signal.
    }
  };
  const emit = (notification: JsonRpcNotification) => send(event(notification));
  const arm = () => {
    if (heartbeat !== undefined) beat = heartbeat.timers.setTimeout(tick, heartbeat.ms);
  };
  const tick = () => {
    // Chunks held and none read since the last beat: the caller left (workerd never cancels it).
    if (unread() > 0 && unread() === unreadByBeat + sentSinceBeat) return onCancel(NOT_READ);
    send(HEARTBEAT_COMMENT);
    unreadByBeat = unread();
    sentSinceBeat = 0;
    arm();
  };
  arm();
  const finish = (final: FrontAnswer): void => {
    heartbeat?.timers.clearTimeout(beat);
    if (stream === undefined) return answer(respond(c, final));
    try {
      if (final.body !== undefined) stream.enqueue(event(final.body));
      stream.close();
    } catch {
      // The caller went away.
    }
  };
  done = work(emit).then(finish, () => finish(INTERNAL_ERROR));
  if (stream !== undefined) onStream(done);
  return response;
}
