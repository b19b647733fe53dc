/**
 * What notification subscribers receive: one server notification, sanitized, with the server it
 * came from.
 *
 * @example
 * ```ts
 * import { toNotificationEntry } from "./notification-entry.ts";
 * const entry = toNotificationEntry("github", "modern", {
 *   jsonrpc: "2.0",
 *   method: "notifications/message",
 *   params: { level: "warning", data: "rate limited\u2028OK" },
 * });
 * if (entry.kind === "log") console.log(entry.log); // { level: "warning", data: "rate limitedOK" }
 * ```
 *
 * @module
 */
import type { LogEntry } from "../handler/handler.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { DATA_LIMITS } from "./data-limits.ts";
import { sanitizeData } from "./sanitize-data.ts";
import { sanitizeLogParams } from "./sanitize-log.ts";
import { sanitizeText } from "./sanitize-text.ts";

/** The method of server log entries. */
export const LOG_METHOD = "notifications/message";

/** A server log entry (`notifications/message`) that passed the log budget. */
export interface LogNotificationEntry {
  /** Always `"log"`. */
  readonly kind: "log";
  /** The operator's id of the server. */
  readonly serverId: string;
  /** The protocol era of the connection it came on. */
  readonly era: "modern" | "legacy";
  /** Always `"notifications/message"`. */
  readonly method: "notifications/message";
  /** The entry, as the handler's `log` callback receives it. */
  readonly log: LogEntry;
}

/** Any other server notification. */
export interface ServerNotificationEntry {
  /** Always `"notification"`. */
  readonly kind: "notification";
  /** The operator's id of the server. */
  readonly serverId: string;
  /** The protocol era of the connection it came on. */
  readonly era: "modern" | "legacy";
  /** The method, cleaned like any server string (`notifications/progress`, …). */
  readonly method: string;
  /** The params, copied by `sanitizeData`: cleaned strings, prototype-free, frozen. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** A sanitized server notification, as subscribers receive it. */
export type NotificationEntry = LogNotificationEntry | ServerNotificationEntry;

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/**
 * Sanitizes one notification: a log entry by `sanitizeLogParams`, any other's params by
 * `sanitizeData`, so every string a server sends reaches callbacks cleaned. Never throws.
 *
 * @param serverId The operator's id of the server.
 * @param era The protocol era.
 * @param notification The notification as received.
 * @returns The entry, frozen all the way down (handler and subscribers share it).
 * @example
 * ```ts
 * import { toNotificationEntry } from "./notification-entry.ts";
 * const entry = toNotificationEntry("github", "legacy", {
 *   jsonrpc: "2.0",
 *   method: "notifications/resources/updated",
 *   params: { uri: "file:///a\u202Eb" },
 * });
 * if (entry.kind === "notification") console.log(entry.params.uri); // file:///ab
 * ```
 */
export function toNotificationEntry(
  serverId: string,
  era: "modern" | "legacy",
  notification: JsonRpcNotification,
): NotificationEntry {
  const params: unknown = notification.params;
  if (notification.method === LOG_METHOD) {
    return Object.freeze({ kind: "log", serverId, era, method: LOG_METHOD, log: sanitizeLogParams(params) });
  }
  return Object.freeze({
    kind: "notification",
    serverId,
    era,
    method: sanitizeText(notification.method, DATA_LIMITS.maxStringLength),
    params: sanitizeParams(params),
  });
}

/**
 * Copies a notification's params by `sanitizeData`, as subscribers receive them (and a call's
 * `onProgress`). Never throws.
 *
 * @param params The params as received.
 * @returns The cleaned copy, prototype-free and frozen; an empty one when `params` is not an object.
 * @example
 * ```ts
 * import { sanitizeParams } from "./notification-entry.ts";
 * console.log(sanitizeParams({ progress: 1, message: "50%\u202E done\nFAKE" })); // [Object: null prototype] { progress: 1, message: "50% doneFAKE" }
 * ```
 */
export function sanitizeParams(params: unknown): Readonly<Record<string, unknown>> {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return NO_PARAMS;
  const clean = sanitizeData(params);
  return typeof clean === "object" && clean !== null ? clean as Readonly<Record<string, unknown>> : NO_PARAMS;
}
