/**
 * JSON safe for a terminal or a log: what the CLI prints with `--json` and the gateway's decision
 * lines, with every character a terminal acts on or does not show written as a `\uXXXX` escape.
 *
 * @module
 */

/**
 * What `JSON.stringify` leaves as it is and a terminal acts on or does not show: C1 controls and
 * DEL, format characters (bidi overrides, zero-width characters, tag characters) and the line and
 * paragraph separators: what `sanitizeText` removes beyond the C0 controls, which JSON escapes
 * in strings (so the line breaks of indented JSON stay).
 */
const UNSHOWN = /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A value as JSON safe for a terminal, piped or not: the same JSON value, with every character
 * above (C1 controls, DEL, format characters, separators) written as a `\uXXXX` escape, so nothing is lost (a
 * program reading it gets the server's exact text) and nothing reaches the screen raw.
 *
 * @param value A JSON value.
 * @param indent Spaces per level, as `JSON.stringify` takes them; none for one line.
 * @returns The JSON text.
 * @example
 * ```ts
 * import { safeJson } from "./safe-json.ts";
 * console.log(safeJson({ text: "ok\u009b2J\u202e" })); // {"text":"ok\u009b2J\u202e"}
 * ```
 */
export function safeJson(value: unknown, indent?: number): string {
  return String(JSON.stringify(value, null, indent)).replace(
    UNSHOWN,
    (found) =>
      found.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  );
}
