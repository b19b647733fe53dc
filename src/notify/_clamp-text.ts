/**
 * Cleans a string and clamps it, in one bounded pass: the shared core of `sanitizeText` and the
 * data walk (which needs to pass a smaller limit once its own text budget runs low).
 *
 * @module
 */
import { graphemeCut } from "./_grapheme-cut.ts";
import { stripPrefix } from "./_strip-prefix.ts";

/**
 * Removes control, format, bidi and separator characters and lone surrogates from the first
 * `limit` code units of `text` (one more if a surrogate pair straddles the limit), and keeps at
 * most `max` code units of what remains, cut at a grapheme boundary.
 *
 * @param text The text.
 * @param max The most code units kept: a non-negative integer or `Infinity`.
 * @param limit The most code units examined: a non-negative integer or `Infinity`.
 * @returns The clean, clamped text.
 */
export function clampText(text: string, max: number, limit: number): string {
  if (max <= 0) return stripPrefix(text, 0, 0); // "", and nothing examined
  const kept = stripPrefix(text, max + 1, limit);
  return kept.length <= max ? kept : kept.slice(0, graphemeCut(kept, max));
}
