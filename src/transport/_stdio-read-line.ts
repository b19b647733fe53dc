/**
 * Reads one stdout line of a stdio server: UTF-8, JSON, one JSON-RPC message (no batch); and
 * names every reason the stdio transport drops a line.
 *
 * @module
 */
import { decodeMessage, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.ts";
import { checkJsonDepth } from "../protocol/message-limits.ts";
import { isObject } from "../_internal/is-object.ts";

/** Why a line the server wrote on stdout was dropped. */
export interface DroppedLine {
  /**
   * `"not_utf8"`, `"not_json"`, `"batch"` (a JSON array), `"invalid_message"` (not one JSON-RPC
   * message), `"unknown_response"` (to an id no pending request has, e.g. an aborted one, or to
   * `null`), `"unterminated"` (bytes after the last newline when stdout ended).
   */
  readonly reason:
    | "not_utf8"
    | "not_json"
    | "batch"
    | "invalid_message"
    | "unknown_response"
    | "unterminated";
  /** The line's length in bytes, line ending excluded. */
  readonly bytes: number;
  /** What was wrong, for logs; never the line itself. */
  readonly detail: string;
}

/**
 * What a line held: a message, nothing (a blank line), too deep a nesting, or something to drop; a
 * dropped object with an `id` and no `method` names it (`responseTo`), so that request fails at once.
 */
export type ReadLine =
  | { readonly kind: "message"; readonly message: JsonRpcMessage }
  | { readonly kind: "blank" }
  | { readonly kind: "too_deep"; readonly problem: string }
  | {
    readonly kind: "dropped";
    readonly reason: DroppedLine["reason"];
    readonly detail: string;
    readonly responseTo?: RequestId;
  };

const BLANK: ReadLine = { kind: "blank" };
/** Decodes whole lines: without `stream`, a decoder keeps no state between calls. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes one line.
 *
 * @param bytes The line, without its line ending.
 * @param maxDepth The deepest nesting of arrays and objects accepted, checked before parsing.
 * @returns The message, or why the line holds none.
 */
export function readLine(bytes: Uint8Array, maxDepth: number): ReadLine {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { kind: "dropped", reason: "not_utf8", detail: "expected UTF-8 text" };
  }
  if (text.trim() === "") return BLANK;
  const tooDeep = checkJsonDepth(text, maxDepth);
  if (tooDeep !== undefined) return { kind: "too_deep", problem: tooDeep.message };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "dropped", reason: "not_json", detail: "expected JSON text" };
  }
  if (Array.isArray(value)) {
    return { kind: "dropped", reason: "batch", detail: "expected one message, not a batch" };
  }
  const decoded = decodeMessage(value);
  if (!decoded.ok) {
    const { id, method } = isObject(value) ? value : {};
    const answering = method === undefined && (typeof id === "string" || typeof id === "number");
    return {
      kind: "dropped",
      reason: "invalid_message",
      detail: decoded.message,
      ...(answering ? { responseTo: id } : {}),
    };
  }
  return { kind: "message", message: decoded.value };
}
