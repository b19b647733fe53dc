/**
 * Reads a remote handler endpoint's response: `200`, JSON, within a byte limit. The parsed
 * value goes back to the chain, which judges it like any handler's answer; anything else is an
 * `Error` naming what was wrong (the chain never reflects it to the server).
 *
 * @module
 */
import { quote } from "../_internal/quote.ts";
import { openBody, readBodyBytes } from "../transport/body-reader.ts";
import { ERROR_BODY_BYTES, mediaTypeOf } from "./_remote-wire.ts";
import { exceedsJsonDepth, MESSAGE_LIMIT_DEFAULTS } from "../protocol/message-limits.ts";

const PREFIX = "remoteHandler():";

/**
 * Reads the body of the endpoint's response as the answer.
 *
 * @param response The response; its body unread.
 * @param signal Aborting it cancels the body; the read then throws the abort reason.
 * @param maxBytes The largest body accepted.
 * @returns The parsed JSON value (the answer or `{ error }`, unjudged).
 * @throws {Error} When the status is not 200, the content type not JSON, the body too large,
 *   broken, not UTF-8 or not JSON; the abort reason when `signal` fired.
 */
export async function readRemoteAnswer(
  response: Response,
  signal: AbortSignal,
  maxBytes: number,
): Promise<unknown> {
  const body = openBody(response.body, signal);
  try {
    if (signal.aborted) throw abortReason(signal);
    if (response.status !== 200) {
      const read = await readBodyBytes(body, ERROR_BODY_BYTES);
      if (read.end === "aborted") throw abortReason(signal);
      throw new Error(
        `${PREFIX} the endpoint answered HTTP ${response.status}, expected 200${detail(read.bytes)}`,
      );
    }
    const type = mediaTypeOf(response.headers.get("content-type"));
    if (type !== "application/json") {
      const received = type === undefined ? "none" : quote(type);
      throw new Error(`${PREFIX} expected content type "application/json", received ${received}`);
    }
    const tooLarge = `${PREFIX} the response body is larger than ${maxBytes} bytes (maxResponseBytes)`;
    if (Number(response.headers.get("content-length") ?? 0) > maxBytes) throw new Error(tooLarge);
    const read = await readBodyBytes(body, maxBytes);
    switch (read.end) {
      case "aborted":
        throw abortReason(signal);
      case "over_limit":
        throw new Error(tooLarge);
      case "failed":
        throw new Error(`${PREFIX} the response body failed before it was complete: ${read.reason}`);
    }
    return parseJson(read.bytes);
  } finally {
    body.close();
  }
}

function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${PREFIX} the response body is not valid UTF-8`);
  }
  const { maxJsonDepth } = MESSAGE_LIMIT_DEFAULTS;
  if (exceedsJsonDepth(text, maxJsonDepth)) {
    throw new Error(`${PREFIX} the response body nests more than ${maxJsonDepth} levels deep`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${PREFIX} the response body is not valid JSON`);
  }
}

/** The endpoint's own words for an error status: its JSON `message`, else the text, quoted. */
function detail(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, ERROR_BODY_BYTES), { stream: true });
  if (text.trim() === "") return "";
  let message: unknown = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "message" in parsed) message = parsed.message;
  } catch {
    // not JSON: quote the text
  }
  return `: ${quote(typeof message === "string" ? message : text, 200)}`;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The remote handler call was aborted", "AbortError");
}
