/**
 * Reads a downstream POST body as text within the server's `maxMessageBytes`: refused at once
 * from its `Content-Length`, or, for a body of unknown length, as soon as more bytes than the
 * limit arrive (a chunked body that never ends is never held whole).
 *
 * @module
 */
import { openBody, readBodyBytes } from "../transport/_body-reader.ts";
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
  const tooLarge = refusal(
    413,
    null,
    -32600,
    `Request body too large: expected at most ${maxBytes} bytes (maxMessageBytes)`,
  );
  const declared = request.headers.get("content-length");
  const length = Number(declared ?? 0);
  if (Number.isFinite(length) && length > maxBytes) return tooLarge;
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit: the server reads exactly that many bytes, so the body
    // cannot outgrow it, and the runtime's own reader is much cheaper than a stream read here.
    try {
      return { text: new TextDecoder().decode(await request.arrayBuffer()) };
    } catch {
      return refusal(400, null, -32700, "Parse error: the request body was not received in full");
    }
  }
  const body = openBody(request.body, request.signal);
  try {
    const read = await readBodyBytes(body, maxBytes);
    if (read.end === "over_limit") return tooLarge;
    if (read.end !== "complete") {
      return refusal(400, null, -32700, "Parse error: the request body was not received in full");
    }
    return { text: new TextDecoder().decode(read.bytes) };
  } finally {
    body.close();
  }
}
