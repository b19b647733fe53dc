/**
 * Reads a downstream POST body as text within the server's `maxMessageBytes`
 * ({@linkcode readRequestBytes}), and turns a refusal into the JSON-RPC error the front answers.
 *
 * @module
 */
import { tooLarge } from "../protocol/message-limits.ts";
import { readRequestBytes } from "../transport/body-reader.ts";
import { type DownstreamRefusal, refusal } from "./downstream-request.ts";

/**
 * Reads the body of a downstream request.
 *
 * @param request The request; its body unread. Its signal aborts the read.
 * @param maxBytes The largest body accepted: the server's `maxMessageBytes`.
 * @returns The body as text (UTF-8, invalid sequences replaced), or the refusal to answer with:
 *   `413` over the limit, `400` when the body did not arrive in full.
 */
export async function readDownstreamBody(
  request: Request,
  maxBytes: number,
): Promise<{ readonly text: string } | DownstreamRefusal> {
  const read = await readRequestBytes(request, maxBytes);
  if (read === "over_limit") return refusal(413, null, -32600, tooLarge("Request body", maxBytes));
  if (read === "incomplete") {
    return refusal(400, null, -32700, "Parse error: the request body was not received in full");
  }
  return { text: new TextDecoder().decode(read) };
}
