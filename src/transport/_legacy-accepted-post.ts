/**
 * A legacy POST that carries no request: a notification or the client's answer to a server
 * request. The server accepts it with `202 Accepted` (a `200` with an empty body is tolerated).
 *
 * @module
 */
import { ConnectionError } from "./legacy-connection.ts";
import type { JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { openBody, readBodyBytes } from "./body-reader.ts";
import type { LegacyHttpWire } from "./_legacy-http-wire.ts";
import { quoteBody } from "./_legacy-request-stream.ts";

/** How much of a refusal's body is read, for the message. */
const ERROR_BODY_BYTES = 1024;

/**
 * POSTs one message that expects no response.
 *
 * @param wire The connection.
 * @param message A notification or a response.
 * @param label What is sent, for messages: `Notification "notifications/initialized"`.
 * @param signal Fires when the connection ends.
 * @throws {ConnectionError} `http` when refused, `protocol` when accepted with a body.
 */
export async function postAccepted(
  wire: LegacyHttpWire,
  message: JsonRpcMessage,
  label: string,
  signal: AbortSignal,
): Promise<void> {
  const response = await wire.send("POST", { body: JSON.stringify(message), signal });
  const { status } = response;
  if (status === 202) {
    response.body?.cancel().catch(() => {});
    return;
  }
  const body = openBody(response.body, signal);
  let read: Awaited<ReturnType<typeof readBodyBytes>>;
  try {
    read = await readBodyBytes(body, ERROR_BODY_BYTES);
  } finally {
    body.close();
  }
  if (read.end === "aborted") throw new ConnectionError("aborted", `${label} was aborted`);
  if (status >= 200 && status <= 299) {
    if (read.end === "complete" && read.bytes.byteLength === 0) return;
    throw new ConnectionError(
      "protocol",
      `${label}: expected HTTP 202 Accepted with no body, received HTTP ${status} with a body`,
      { status },
    );
  }
  const text = new TextDecoder().decode(read.bytes.subarray(0, ERROR_BODY_BYTES), { stream: true });
  throw new ConnectionError(
    "http",
    `${label} was refused with HTTP ${status}: expected 202 Accepted, received ${quoteBody(text)}`,
    { status },
  );
}
