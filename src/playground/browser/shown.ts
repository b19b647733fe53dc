/**
 * Server text as the page shows it. Apart from the modules that make elements, so that it is
 * tested on every runtime without a DOM.
 *
 * @module
 */
import { sanitizeText } from "../../notify/sanitize-text.ts";

/**
 * Text as the page shows it, as the command line shows server text: its line breaks and tabs
 * kept, every other control, bidi, invisible or format character removed (`sanitizeText`), so a
 * server cannot make `red\u202Egnp.exe` read `redexe.png`. Values sent back (an option's value,
 * a field's default) are never passed through it.
 *
 * @param text Text, often a server's.
 * @returns The text to show.
 */
export function shown(text: string): string {
  return text.split(/\r\n|\r|\n/).map((line) =>
    line.split("\t").map((part) => sanitizeText(part, Infinity)).join("\t")
  ).join("\n");
}
