/**
 * The RFC 5424 log levels MCP uses for `logging/setLevel`, the modern per-request
 * `io.modelcontextprotocol/logLevel` and `notifications/message`.
 *
 * @module
 */
import * as v from "valibot";
import type { WireSchema } from "./decode.ts";

/** A log level, from least to most severe. */
export type LoggingLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** The log levels in RFC 5424 order, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = Object.freeze([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

/** One of the eight log levels. */
export const LoggingLevelSchema: WireSchema<LoggingLevel> = v.picklist(LOGGING_LEVELS);

/**
 * Whether `level` is `floor` or more severe: the one comparison of log levels.
 *
 * @param level An entry's level.
 * @param floor The least severe level let through.
 * @returns Whether an entry at `level` passes.
 */
export function atOrAbove(level: LoggingLevel, floor: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(floor);
}

const LEVELS: ReadonlySet<unknown> = new Set(LOGGING_LEVELS);

/**
 * Whether a value is one of the eight levels, exactly.
 *
 * @param value Any value.
 * @returns `true` for `"debug"` … `"emergency"`.
 */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return LEVELS.has(value);
}
