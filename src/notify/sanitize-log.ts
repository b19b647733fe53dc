/**
 * `sanitizeLogParams`: a server's `notifications/message` params as the handler's `log` callback
 * and notification subscribers see them.
 *
 * @example
 * ```ts
 * import { sanitizeLogParams } from "./sanitize-log.ts";
 * const entry = sanitizeLogParams({ level: "shout", logger: "db\u202E", data: "up", extra: 1 });
 * console.log(entry); // { level: "info", logger: "db", data: "up" }
 * ```
 *
 * @module
 */
import type { LogEntry } from "../handler/handler.ts";
import type { LogLevel } from "../policy/policy.ts";
import { isLoggingLevel } from "../protocol/logging-level.ts";
import { DATA_LIMITS, UNREADABLE_MARKER } from "./data-limits.ts";
import { sanitizeData } from "./sanitize-data.ts";
import { sanitizeText } from "./sanitize-text.ts";

/**
 * Keeps only `level`, `logger` and `data` of a log notification's params, cleaned. Never throws.
 *
 * - `level` stays when it is one of the eight RFC 5424 levels (`debug` … `emergency`, exactly);
 *   anything else, or none, becomes `"info"`.
 * - `logger` stays when it is a string, cleaned and clamped like `data` strings.
 * - `data` is copied by {@linkcode sanitizeData}; missing, it is `null`.
 *
 * @param params The params as received (any value).
 * @returns A new entry, frozen, its `data` too.
 * @example
 * ```ts
 * import { sanitizeLogParams } from "./sanitize-log.ts";
 * console.log(sanitizeLogParams({ level: "error", data: { error: "disk\r\nfull" } }).data);
 * // [Object: null prototype] { error: "diskfull" }
 * ```
 */
export function sanitizeLogParams(params: unknown): LogEntry {
  if (typeof params !== "object" || params === null) return Object.freeze({ level: "info", data: null });
  let level: unknown;
  let logger: unknown;
  let data: unknown;
  try {
    const fields = params as { readonly level?: unknown; readonly logger?: unknown; readonly data?: unknown };
    level = fields.level;
    logger = fields.logger;
    data = fields.data;
  } catch {
    return Object.freeze({ level: "info", data: UNREADABLE_MARKER });
  }
  const known: LogLevel = isLoggingLevel(level) ? level : "info";
  const clean = data === undefined ? null : sanitizeData(data);
  return Object.freeze(
    typeof logger === "string"
      ? { level: known, logger: sanitizeText(logger, DATA_LIMITS.maxStringLength), data: clean }
      : { level: known, data: clean },
  );
}
