/**
 * Where to cut cleaned text so that no grapheme (user-perceived character) is split: with
 * `Intl.Segmenter` where the runtime has it, else at least never inside a surrogate pair.
 *
 * `Segments.containing()` finds the grapheme around one position from local context (ICU's
 * break rules run backwards to a safe point), so what a cut costs does not grow with the text's
 * length, as iterating the text's graphemes from its start would.
 * The common cut between two Latin-script characters needs no segmenter at all.
 *
 * @module
 */

/** The only BMP character outside Cf that joins the character after it (Prepend, Unicode 17). */
const MALAYALAM_DOT_REPH = 0x0d4e;

let segmenter: Intl.Segmenter | null | undefined;

function graphemes(): Intl.Segmenter | null {
  if (segmenter === undefined) {
    try {
      segmenter = typeof Intl === "object" && typeof Intl.Segmenter === "function"
        ? new Intl.Segmenter("en", { granularity: "grapheme" })
        : null;
    } catch {
      segmenter = null;
    }
  }
  return segmenter;
}

/**
 * The last grapheme boundary at or before `at`, in text that has no control, format or
 * separator character and no lone surrogate.
 *
 * @param text The cleaned text; `text[at]` exists (the character after the cut is known).
 * @param at Where the cut would be, in UTF-16 code units: `0 < at < text.length`.
 * @returns The cut: `at`, or the start of the grapheme that `at` falls inside.
 */
export function graphemeCut(text: string, at: number): number {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  // Characters below U+0300 are never Extend, SpacingMark, ZWJ, Regional_Indicator or Hangul
  // jamo, so a boundary precedes one unless the character before is Prepend.
  if (after < 0x300 && (before < 0xd800 || before > 0xdfff) && before !== MALAYALAM_DOT_REPH) return at;
  const isLow = after >= 0xdc00 && after <= 0xdfff;
  const segments = graphemes();
  if (segments === null) return isLow ? at - 1 : at;
  const pairSafe = isLow ? at - 1 : at;
  const end = after >= 0xd800 && !isLow && after <= 0xdbff ? at + 2 : at + 1;
  try {
    return segments.segment(end >= text.length ? text : text.slice(0, end)).containing(at)?.index ?? pairSafe;
  } catch {
    return pairSafe;
  }
}
