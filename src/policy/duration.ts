/**
 * Durations as policy files write them: `"500ms"`, `"60s"`, `"5m"`, `"1h"`.
 *
 * @module
 */
/** A duration string: a positive decimal number and a unit, `ms`, `s`, `m` or `h`. */
export type Duration = `${number}${"ms" | "s" | "m" | "h"}`;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The longest duration, 596h: the longest timer (2³¹ − 1 ms) in whole hours, the bound errors name. */
const MAX_MS = 596 * 3_600_000;

// Any number of digits: the bound is checked on the milliseconds, so "2145600000ms" reads as "596h" does.
const PATTERN = /^(\d+)(?:\.(\d+))?(ms|s|m|h)$/;

/**
 * Reads a duration string.
 *
 * @param text A duration such as `"60s"`.
 * @returns Whole milliseconds (1 to 2145600000, which is 596h), or `undefined` when `text` is not
 *   a duration, is longer, or is not a whole number of milliseconds (`"0.5ms"`, `"1.0005s"`).
 * @example
 * ```ts
 * import { parseDuration } from "./duration.ts";
 * console.log(parseDuration("5m"), parseDuration("1.5s"), parseDuration("soon")); // 300000 1500 undefined
 * ```
 */
export function parseDuration(text: string): number | undefined {
  const match = PATTERN.exec(text);
  if (match === null) return undefined;
  const [, whole = "", fraction = "", unit = ""] = match;
  // In exact decimal integers (floats read 1.1s as 1100.0000000000002 ms); whole milliseconds only.
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(whole + fraction) * BigInt(UNIT_MS[unit] ?? 0);
  if (scaled % scale !== 0n) return undefined;
  const ms = Number(scaled / scale);
  return ms >= 1 && ms <= MAX_MS ? ms : undefined;
}

/**
 * Writes milliseconds in the largest unit that divides them exactly.
 *
 * @param ms Milliseconds.
 * @returns A duration such as `"5m"` or `"1500ms"`.
 */
export function formatDuration(ms: number): string {
  for (const unit of ["h", "m", "s"] as const) {
    const size = UNIT_MS[unit] ?? 1;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
