/**
 * The scan behind `sanitizeText`: removes the characters of `_removable.ts` and lone surrogates
 * from the start of a string, stopping once enough is kept or a limit of code units has been
 * examined, so its cost never depends on how long the string is.
 *
 * It cleans the text window by window, each window as long as what is still to keep: when a
 * window removes nothing, the keep is reached exactly at its end; when it removes some, the next
 * window covers what they took. So it examines what a character-by-character scan would, while
 * each window is one native `replace`.
 *
 * @module
 */
import { REMOVABLE } from "./_removable.ts";

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
 * Removes control, format, bidi and separator characters and lone surrogates from the start of
 * `text`: scans until at least `keep` code units are kept (one more when the last kept character
 * is a surrogate pair) or `limit` code units are examined (one more when a pair straddles it).
 *
 * @param text The text.
 * @param keep How many code units to keep at least before stopping.
 * @param limit How many code units to examine at most.
 * @returns The kept text: a prefix of the cleaned text, whole characters only.
 */
export function stripPrefix(text: string, keep: number, limit: number): string {
  const end = Math.min(text.length, limit);
  let out = "";
  let from = 0;
  while (out.length < keep && from < end) {
    const to = pairEnd(text, Math.min(end, from + keep - out.length));
    const window = text.slice(from, to);
    // Lone surrogates go first, judged by their neighbours before anything between them is
    // removed. They are kept out of REMOVABLE because a class that also matches them compiles to
    // look-arounds that slow the scan of all text beyond Latin-1, and nearly all text has none.
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
