/**
 * Encoders for the legacy utilities a client sends: `logging/setLevel`, `ping` and its answer,
 * `notifications/cancelled` (also modern stdio) and `notifications/roots/list_changed`.
 *
 * @module
 */
import type { JsonObject, RequestId } from "./jsonrpc.ts";
import type { LoggingLevel } from "./logging-level.ts";
import { ROOTS_LIST_CHANGED_NOTIFICATION } from "./notifications.ts";
import type { OutgoingRequest } from "./requests.ts";

/** A notification to send: wrap it with `encodeNotification(method, params)`. */
export interface OutgoingNotification {
  /** The method. */
  readonly method: string;
  /** The params, if any. */
  readonly params?: JsonObject;
}

/**
 * Builds a `logging/setLevel` request (legacy; 2026-07-28 sets the level per request in `_meta`).
 *
 * @param level The least severe level wanted.
 * @returns A new request.
 */
export function encodeSetLevel(level: LoggingLevel): OutgoingRequest {
  return { method: "logging/setLevel", params: { level } };
}

/**
 * Builds a `ping` request (legacy).
 *
 * @returns A new request without params.
 */
export function encodePing(): OutgoingRequest {
  return { method: "ping" };
}

/**
 * Builds the answer to a server's `ping` (legacy): an empty result.
 *
 * @returns A new empty object.
 */
export function encodePingResult(): JsonObject {
  return {};
}

/**
 * Builds `notifications/cancelled` for a request the client sent (legacy; modern stdio).
 *
 * @param requestId The id of the request to cancel.
 * @param reason Why, for logs.
 * @returns A new notification.
 */
export function encodeCancelled(requestId: RequestId, reason?: string): OutgoingNotification {
  return {
    method: "notifications/cancelled",
    params: reason === undefined ? { requestId } : { requestId, reason },
  };
}

/**
 * Builds `notifications/roots/list_changed` (legacy, when `roots.listChanged` was declared).
 *
 * @returns A new notification without params.
 */
export function encodeRootsListChanged(): OutgoingNotification {
  return { method: ROOTS_LIST_CHANGED_NOTIFICATION };
}
