/**
 * Results, log entries and notifications as the front's caller must see them, whichever era the
 * upstream spoke (a legacy server never sends the keys a 2026-07-28 result needs).
 *
 * @module
 */
import type { LogEntry } from "../handler/handler.ts";
import { sanitizeLogParams } from "../notify/sanitize-log.ts";
import { sanitizeParams } from "../notify/notification-entry.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { DATA_LIMITS } from "../notify/data-limits.ts";
import { encodeNotification, type JsonObject, type JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { copyOwn } from "../_internal/copy.ts";
import { atOrAbove, type LoggingLevel } from "../protocol/logging-level.ts";

/** The results a 2026-07-28 caller may cache (`CacheableResult`): they need `ttlMs` and `cacheScope`. */
const CACHEABLE: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover",
]);

/** The era-only keys of a 2026-07-28 result. */
const MODERN_KEYS = ["resultType", "ttlMs", "cacheScope"] as const;

/**
 * A complete result in the caller's era.
 *
 * @param result The upstream's result object (not changed).
 * @param method The request's method.
 * @param era The caller's era.
 * @returns For a modern caller: `resultType: "complete"` when absent, and for a cacheable
 *   result `ttlMs: 0` and `cacheScope: "private"` when absent (the gateway answers per caller);
 *   for a legacy caller: the same result without those keys.
 * @example
 * ```ts
 * import { resultForCaller } from "./caller-era.ts";
 * console.log(resultForCaller({ tools: [] }, "tools/list", "modern"));
 * // { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" }
 * console.log(resultForCaller({ tools: [], resultType: "complete", ttlMs: 5, cacheScope: "public" }, "tools/list", "legacy"));
 * // { tools: [] }
 * ```
 */
export function resultForCaller(result: JsonObject, method: string, era: "modern" | "legacy"): JsonObject {
  if (era === "legacy") {
    if (!MODERN_KEYS.some((key) => Object.hasOwn(result, key))) return result;
    const out: Record<string, unknown> = { ...result };
    for (const key of MODERN_KEYS) delete out[key];
    return out;
  }
  const cacheable = CACHEABLE.has(method);
  if (
    result.resultType !== undefined &&
    (!cacheable || (result.ttlMs !== undefined && result.cacheScope !== undefined))
  ) {
    return result;
  }
  // Not a spread then keys (same result): V8 builds that slowly, and this runs on every result.
  const out = copyOwn(result);
  if (result.resultType === undefined) out.resultType = "complete";
  if (cacheable && result.ttlMs === undefined) out.ttlMs = 0;
  if (cacheable && result.cacheScope === undefined) out.cacheScope = "private";
  return out as JsonObject;
}

/**
 * The stricter of two log levels: a caller may ask for fewer logs than the policy's level, never
 * for more.
 *
 * @param floor The policy's `logLevel`.
 * @param asked The level the caller asked for.
 * @returns The more severe of the two.
 * @example
 * ```ts
 * import { effectiveLogLevel } from "./caller-era.ts";
 * console.log(effectiveLogLevel("info", "debug"), effectiveLogLevel("info", "error")); // info error
 * ```
 */
export function effectiveLogLevel(floor: LoggingLevel, asked: LoggingLevel): LoggingLevel {
  return atOrAbove(asked, floor) ? asked : floor;
}

/**
 * One upstream `notifications/message` as a caller gets it, or nothing: at or above the caller's
 * level, sanitized (only `level`, `logger` and `data`), and within the budget. Only an entry the
 * caller would get takes a token.
 *
 * @param params The upstream's params.
 * @param level The level the caller gets, or `undefined` when it asked for none.
 * @param withinBudget Takes the entry's token from its `LogBudgets`.
 * @returns The notification to send, or `undefined` (no level, below it, or over the budget).
 * @example
 * ```ts
 * import { logForCaller } from "./caller-era.ts";
 * console.log(logForCaller({ level: "error", data: "disk\u202E full", extra: 1 }, "warning", () => true));
 * // { jsonrpc: "2.0", method: "notifications/message", params: { level: "error", data: "disk full" } }
 * console.log(logForCaller({ level: "info", data: "indexing" }, "warning", () => true)); // undefined
 * ```
 */
export function logForCaller(
  params: unknown,
  level: LoggingLevel | undefined,
  withinBudget: () => boolean,
): JsonRpcNotification | undefined {
  if (level === undefined) return undefined;
  const entry: LogEntry = sanitizeLogParams(params);
  if (!atOrAbove(entry.level, level) || !withinBudget()) return undefined;
  return { jsonrpc: "2.0", method: "notifications/message", params: entry as unknown as JsonObject };
}

/**
 * An upstream notification other than a log entry (progress, a list change, a resource update)
 * as a caller gets it: its method and every string of its params cleaned as the client's
 * notification subscribers get them (`sanitizeParams`), so a relayed text cannot forge a line or
 * reorder one on the caller's screen.
 *
 * @param notification The upstream's notification (not changed).
 * @returns A fresh notification; without params when it had none.
 * @example
 * ```ts
 * import { notificationForCaller } from "./caller-era.ts";
 * console.log(notificationForCaller({
 *   jsonrpc: "2.0",
 *   method: "notifications/resources/updated",
 *   params: { uri: "file:///a\u202Eb\nFAKE" },
 * }));
 * // { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///abFAKE" } }
 * ```
 */
export function notificationForCaller(notification: JsonRpcNotification): JsonRpcNotification {
  const method = sanitizeText(notification.method, DATA_LIMITS.maxStringLength);
  return encodeNotification(method, notification.params && sanitizeParams(notification.params));
}
