/**
 * The absolute URI of JSON Schema's `format: "uri"`, which the MCP schema gives resource URIs,
 * and which a form's `uri` field asks for.
 *
 * @module
 */

/** A scheme, a colon, then only unreserved and reserved characters and `%` (RFC 3986). */
const URI = /^[a-z][a-z\d+.-]*:[\w\-.~:/?#[\]@!$&'()*+,;=%]*$/i;
/** A `%` that two hexadecimal digits do not follow. */
const BROKEN_ESCAPE = /%(?![\da-f]{2})/i;

/**
 * Whether text is an absolute URI as RFC 3986 writes one, in ASCII: a scheme, a colon, then only
 * unreserved and reserved characters and `%` escapes of two hexadecimal digits.
 *
 * @param text The text.
 * @returns `true` for `urn:isbn:0451450523`; `false` for `https://example.com/%zz`.
 * @example
 * ```ts
 * import { isAbsoluteUri } from "./uri.ts";
 * console.log(isAbsoluteUri("file:///srv/report.pdf")); // true
 * console.log(isAbsoluteUri("report.pdf")); // false
 * ```
 */
export function isAbsoluteUri(text: string): boolean {
  return URI.test(text) && !BROKEN_ESCAPE.test(text);
}
