/**
 * Cleans a string and clamps it, in one bounded pass: the shared core of `sanitizeText` and the
 * data walk (which passes a smaller limit once its own text budget runs low).
 *
 * The scan cleans the text window by window, each as long as what is still to keep, so it examines
 * what a character-by-character scan would while each window is one native `replace`.
 *
 * The cut never splits a grapheme where `Intl.Segmenter` exists, else never a surrogate pair.
 * `Segments.containing()` works from local context, so a cut's cost does not grow with the text.
 *
 * @module
 */
import { REMOVABLE } from "../_internal/removable.ts";

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
  const out = kept.length <= max ? kept : kept.slice(0, graphemeCut(kept, max));
  // A slice pins the whole string it was cut from (V8 and JSC), so a short result of a long string
  // is copied, through UTF-8, the one copy JSC does not make a slice again (no lone surrogates remain).
  return text.length > 2 * out.length + 1024 ? UTF8_OUT.decode(UTF8_IN.encode(out)) : out;
}

const UTF8_IN = new TextEncoder();
/** Keeps a leading U+FEFF, as any other character. */
const UTF8_OUT = new TextDecoder("utf-8", { ignoreBOM: true });

/** A surrogate without its other half. */
const LONE_SURROGATE = /\p{Cs}/gu;

let examinedUnits = 0;

/**
 * How many code units the last {@linkcode stripPrefix} call examined (at most `limit + 1`).
 *
 * @returns The count.
 */
export function lastExamined(): number {
  return examinedUnits;
}

/**
 * Cleans the start of `text`, whole characters only: scans until at least `keep` code units are
 * kept (one more when the last kept character is a surrogate pair) or `limit` code units are
 * examined (one more when a pair straddles it).
 */
function stripPrefix(text: string, keep: number, limit: number): string {
  const end = Math.min(text.length, limit);
  let out = "";
  let from = 0;
  while (out.length < keep && from < end) {
    const to = pairEnd(text, Math.min(end, from + keep - out.length));
    const window = text.slice(from, to);
    // Lone surrogates go first, judged before anything between them is removed. They are kept out
    // of REMOVABLE, where they would compile to look-arounds that slow all text beyond Latin-1.
    const whole = window.isWellFormed() ? window : window.replace(LONE_SURROGATE, "");
    out += whole.replace(REMOVABLE, "");
    from = to;
  }
  examinedUnits = from;
  return out;
}

/** `at`, or `at + 1` when `at` falls inside a surrogate pair (so windows hold whole pairs). */
function pairEnd(text: string, at: number): number {
  const high = text.charCodeAt(at - 1);
  const low = text.charCodeAt(at);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? at + 1 : at;
}

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
 * The last grapheme boundary at or before `at` (`0 < at < text.length`), in text already cleaned:
 * `at`, or the start of the grapheme that `at` falls inside.
 */
function graphemeCut(text: string, at: number): number {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  // Characters below U+0300 are never Extend, SpacingMark, ZWJ, Regional_Indicator or Hangul
  // jamo, so a boundary precedes one unless the character before is Prepend.
  if (after < 0x300 && (before < 0xd800 || before > 0xdfff) && before !== MALAYALAM_DOT_REPH) return at;
  const isLow = after >= 0xdc00 && after <= 0xdfff;
  const pairSafe = isLow ? at - 1 : at;
  const segments = graphemes();
  if (segments === null) return pairSafe;
  const end = after >= 0xd800 && !isLow && after <= 0xdbff ? at + 2 : at + 1;
  try {
    return segments.segment(end >= text.length ? text : text.slice(0, end)).containing(at)?.index ?? pairSafe;
  } catch {
    return pairSafe;
  }
}
