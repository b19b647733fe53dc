/**
 * The MCP protocol versions sluice speaks, and the era each belongs to: `2026-07-28` is the
 * modern, stateless era; `2025-11-25` and `2025-06-18` are the legacy, session-based era.
 *
 * @module
 */

/** The one modern protocol version. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The modern protocol version as a type. */
export type ModernProtocolVersion = typeof MODERN_PROTOCOL_VERSION;

/** A legacy protocol version. */
export type LegacyProtocolVersion = "2025-11-25" | "2025-06-18";

/** The legacy protocol versions, preferred first (the order offered in `initialize`). */
export const LEGACY_PROTOCOL_VERSIONS: readonly LegacyProtocolVersion[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
]);

/** A protocol version sluice supports. */
export type ProtocolVersion = ModernProtocolVersion | LegacyProtocolVersion;

/** The era of a protocol version: stateless `_meta` and MRTR, or `initialize` and sessions. */
export type Era = "modern" | "legacy";

/**
 * Tells the era of a supported protocol version.
 *
 * @param version A supported protocol version.
 * @returns `"modern"` for `2026-07-28`, `"legacy"` otherwise.
 * @example
 * ```ts
 * import { eraOf } from "./versions.ts";
 * console.log(eraOf("2025-06-18")); // legacy
 * ```
 */
export function eraOf(version: ProtocolVersion): Era {
  return version === MODERN_PROTOCOL_VERSION ? "modern" : "legacy";
}
