/**
 * How the front writes its answers: JSON with the right HTTP status, or, when the caller accepts
 * SSE, a stream of the upstream's notifications as they arrive and then the final response.
 *
 * @module
 */
import type { Context } from "hono";
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcResultResponse,
} from "../protocol/jsonrpc.ts";

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
  return c.json(answer.body, answer.status as never);
}

/**
 * Answers with an SSE stream: each notification `emit` is given becomes an event, and the final
 * answer ends the stream.
 *
 * @param work Runs the call; gets `emit` for notifications; returns the final answer.
 * @returns The streaming response (status 200).
 */
export function respondStream(
  work: (emit: (notification: JsonRpcNotification) => void) => Promise<FrontAnswer>,
): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const emit = (message: unknown) =>
        controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      try {
        const answer = await work(emit);
        if (answer.body !== undefined) emit(answer.body);
      } finally {
        controller.close();
      }
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
