/**
 * Reads a request body as JSON within a byte limit, for `handlerApp`: the content type must be
 * JSON, a body over the limit is refused as soon as the limit is passed (or at once from its
 * `Content-Length`), and the bytes must be UTF-8 JSON.
 *
 * @module
 */
import { quote } from "../_internal/quote.ts";
import { readRequestBytes } from "../transport/body-reader.ts";
import { mediaTypeOf } from "./_remote-wire.ts";
import { exceedsJsonDepth, MESSAGE_LIMIT_DEFAULTS } from "../protocol/message-limits.ts";

/** The parsed body, or the status and message to refuse it with. */
export type RequestBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413 | 415; readonly message: string };

/**
 * Reads and parses the body of a request.
 *
 * @param request The request; its body unread. Its signal aborts the read.
 * @param maxBytes The largest body accepted.
 * @returns The parsed JSON, or why it was refused.
 */
export async function readJsonRequest(request: Request, maxBytes: number): Promise<RequestBody> {
  const type = mediaTypeOf(request.headers.get("content-type"));
  if (type !== "application/json") {
    const received = type === undefined ? "none" : quote(type);
    return refused(415, `expected content type "application/json", received ${received}`);
  }
  const tooLarge = refused(413, `the body is larger than ${maxBytes} bytes`);
  const bytes = await readRequestBytes(request, maxBytes);
  if (bytes === "over_limit") return tooLarge;
  if (bytes === "incomplete") return refused(400, "the body was not received in full");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refused(400, "the body is not valid UTF-8");
  }
  const { maxJsonDepth } = MESSAGE_LIMIT_DEFAULTS;
  if (exceedsJsonDepth(text, maxJsonDepth)) {
    return refused(400, `the body nests more than ${maxJsonDepth} levels deep`);
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return refused(400, "the body is not valid JSON");
  }
}

function refused(status: 400 | 413 | 415, message: string): RequestBody {
  return { ok: false, status, message: `Request body refused: ${message}` };
}
