/**
 * Measures how deeply JSON text nests, on the text itself, before it is parsed: a hostile peer's
 * `[[[[…` a hundred thousand levels deep is refused without building it, and nothing that walks
 * a parsed value later (a decoder, `JSON.stringify`, a sanitizer) can run out of stack.
 *
 * @module
 */

/** The deepest nesting a message may have unless a policy says otherwise (`maxJsonDepth`). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Tells whether JSON text nests arrays and objects more than `maxDepth` levels deep (the
 * outermost array or object is level 1; brackets inside strings do not count).
 *
 * One pass over the text, no recursion and no allocation. Text that is not JSON gets an answer
 * too (its brackets are counted the same way); parsing it fails afterwards anyway.
 *
 * @param text The JSON text.
 * @param maxDepth The deepest nesting allowed.
 * @returns `true` when some value is nested deeper than `maxDepth`.
 * @example
 * ```ts
 * import { exceedsJsonDepth } from "./json-depth.ts";
 * console.log(exceedsJsonDepth('{"a":[["[[[[not counted"]]}', 3)); // false
 * console.log(exceedsJsonDepth("[".repeat(100_000), 64)); // true
 * ```
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  // Each level needs at least one character.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or the text's end. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    // A quote preceded by an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return text.length;
}
