/**
 * Tells whether a message read from a POST's response is the answer to that POST's request.
 *
 * @module
 */
import {
  isRequest,
  isResponse,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcResultResponse,
  type RequestId,
} from "../protocol/jsonrpc.ts";

/** How a message relates to the request in flight. */
export type ResponseMatch =
  /** The response to it: its id, or `null` on an error response the server could not tie to one. */
  | { readonly kind: "ours"; readonly message: JsonRpcResultResponse | JsonRpcErrorResponse }
  /** A request or a notification. */
  | { readonly kind: "not_response"; readonly described: string }
  /** A response to some other request: the server is broken. */
  | { readonly kind: "wrong_id"; readonly problem: string };

/**
 * Matches a message against the id of the request in flight.
 *
 * @param message A decoded message.
 * @param requestId The id of the request the POST carried; `undefined` on a stream that carries
 *   no response (the legacy standalone GET stream), where every response is a wrong answer.
 * @returns Whether it is that request's response, some other message, or a wrong answer.
 */
export function matchResponse(message: JsonRpcMessage, requestId: RequestId | undefined): ResponseMatch {
  if (!isResponse(message)) {
    const what = isRequest(message) ? "a request" : "a notification";
    return { kind: "not_response", described: `${what} ${JSON.stringify(message.method)}` };
  }
  if (requestId !== undefined && (message.id === requestId || message.id === null)) {
    return { kind: "ours", message };
  }
  return {
    kind: "wrong_id",
    problem: `${expectedResponse(requestId)}, received a response to request ${JSON.stringify(message.id)}`,
  };
}

/**
 * Words the expectation, for messages.
 *
 * @param requestId The id of the request in flight, or `undefined` when none is.
 * @returns `expected the response to request 7`, or `expected no response on this stream`.
 */
export function expectedResponse(requestId: RequestId | undefined): string {
  if (requestId === undefined) return "expected no response on this stream";
  return `expected the response to request ${JSON.stringify(requestId)}`;
}
