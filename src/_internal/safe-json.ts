/**
 * JSON safe for a terminal or a log: what the CLI prints with `--json` and the gateway's decision
 * lines, with every character a terminal acts on or does not show written as a `\uXXXX` escape.
 *
 * @module
 */

/**
 * What `JSON.stringify` leaves raw and a terminal acts on or does not show: DEL, C1 controls,
 * format characters and the line and paragraph separators (C0 controls JSON escapes itself).
 */
const UNSHOWN = /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A value as JSON safe for a terminal, piped or not: the same JSON value, with every such character
 * written as a `\uXXXX` escape, so a program reading it gets the exact text and a screen none raw.
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
