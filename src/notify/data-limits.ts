/**
 * The bounds of the sanitizer's walk over server data (`notifications/message` `data`, and the
 * params of every other server notification): how long a string, how deep a nesting, how many
 * entries, and how much work in all, with the markers that stand where something was cut.
 *
 * @example
 * ```ts
 * import { DATA_LIMITS, DEPTH_LIMIT_MARKER } from "./data-limits.ts";
 * console.log(DATA_LIMITS.maxDepth, DEPTH_LIMIT_MARKER); // 16 [depth limit]
 * ```
 *
 * @module
 */

/** The bounds of one walk. */
export interface DataLimits {
  /** Each string (value or key) keeps at most this many UTF-16 code units. */
  readonly maxStringLength: number;
  /** Arrays and objects nest at most this deep; one more level becomes {@linkcode DEPTH_LIMIT_MARKER}. */
  readonly maxDepth: number;
  /** Each array or object keeps at most this many entries, then {@linkcode SIZE_LIMIT_MARKER}. */
  readonly maxEntries: number;
  /** Values visited in one walk (every scalar, array and object counts one). */
  readonly maxValues: number;
  /** String code units examined in one walk, keys and values together. */
  readonly maxTextUnits: number;
}

/**
 * The walk's bounds: at most `maxValues` steps and `maxTextUnits` code units of text, so its cost
 * has a fixed ceiling whatever a server sends (but listing an object's keys, which parsing paid for).
 */
export const DATA_LIMITS: DataLimits = Object.freeze({
  maxStringLength: 4096,
  maxDepth: 16,
  maxEntries: 1000,
  maxValues: 10_000,
  maxTextUnits: 262_144,
});

/** Stands for an array or object nested deeper than {@linkcode DataLimits.maxDepth}. */
export const DEPTH_LIMIT_MARKER = "[depth limit]";

/**
 * Ends an array (as its last element) or an object (as a key, with itself as the value) whose
 * remaining entries were left out: past {@linkcode DataLimits.maxEntries}, or once the walk's
 * `maxValues` or `maxTextUnits` are spent.
 */
export const SIZE_LIMIT_MARKER = "[size limit]";

/** Stands for a value that threw while being read (a getter, a revoked proxy). */
export const UNREADABLE_MARKER = "[unreadable]";
