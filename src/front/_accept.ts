/**
 * Reading a caller's `Accept` header.
 *
 * @module
 */

/**
 * Whether an `Accept` header admits a media type (RFC 9110 §12.5.1). The most specific range
 * that names it decides (`text/event-stream`, then `text/*`, then `*\/*`), and a `q` of 0 means
 * "not acceptable". Parameters other than `q` are ignored.
 *
 * @param header The header's value; a missing one admits nothing.
 * @param type The media type, lower case (`text/event-stream`).
 * @param wildcards Whether `text/*` and `*\/*` count; without, only a range naming the type does.
 * @returns Whether the caller accepts the type.
 * @example
 * ```ts
 * import { accepts } from "./_accept.ts";
 * console.log(accepts("application/json, text/event-stream;q=0", "text/event-stream", true)); // false
 * console.log(accepts("*\/*", "text/event-stream", true)); // true
 * console.log(accepts("*\/*", "text/event-stream", false)); // false
 * ```
 */
export function accepts(header: string | null | undefined, type: string, wildcards: boolean): boolean {
  if (header === null || header === undefined) return false;
  const ranges = wildcards ? [type, `${type.split("/")[0]}/*`, "*/*"] : [type];
  let best = ranges.length;
  let acceptable = false;
  for (const part of header.split(",")) {
    const [range = "", ...parameters] = part.split(";");
    const rank = ranges.indexOf(range.trim().toLowerCase());
    if (rank < 0 || rank >= best) continue;
    best = rank;
    const q = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    acceptable = q === undefined || Number(q.slice(2)) > 0;
  }
  return acceptable;
}
