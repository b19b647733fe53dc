/**
 * The value encoding of the 2026-07-28 headers `Mcp-Name` and `Mcp-Param-{Name}`: U+0020–U+007E
 * without a leading or trailing space goes as is, anything else (tabs included, which HTTP parsers
 * trim) as `=?base64?{base64 of its UTF-8 bytes}?=`, and so does a value that looks like the
 * sentinel in any letter case, since older readers matched it case-insensitively.
 *
 * A lone surrogate becomes U+FFFD (`TextEncoder`), so callers that must mirror a body value
 * exactly refuse such strings first.
 *
 * @module
 */
import { codecs } from "../_internal/encoding.ts";

const PREFIX = "=?base64?";
const SUFFIX = "?=";
const UTF8 = new TextEncoder();
/** Space and visible ASCII (U+0020–U+007E): what a value may hold to be sent as it is. */
const PRINTABLE = /^[\x20-\x7e]*$/;
/** Tab, space and visible ASCII: what a received literal value may hold. */
const LITERAL = /^[\t\x20-\x7e]*$/;

/**
 * Encodes a value for the `Mcp-Name` or an `Mcp-Param-{Name}` header.
 *
 * @param value The value from the request body (a string, or the decimal or `true`/`false` text
 *   of an integer or boolean).
 * @returns The value itself when it is plain visible ASCII, otherwise the Base64 sentinel form.
 * @example
 * ```ts
 * import { encodeHeaderValue } from "./header-value.ts";
 * encodeHeaderValue("us-west1"); // "us-west1"
 * encodeHeaderValue("Hello, 世界"); // "=?base64?SGVsbG8sIOS4lueVjA==?="
 * ```
 */
export function encodeHeaderValue(value: string): string {
  if (isPlain(value)) return value;
  return PREFIX + codecs.toBase64(UTF8.encode(value)) + SUFFIX;
}

/**
 * Decodes an `Mcp-Name` or `Mcp-Param-{Name}` header value as received. Only the exact lowercase
 * markers denote an encoded value, whose Base64 must be canonical and bytes valid UTF-8; a literal
 * may hold only tab and U+0020–U+007E.
 *
 * @param text The header value.
 * @returns The value it carries, or `undefined` when the sentinel is malformed or the literal
 *   holds a character a header value may not.
 * @example
 * ```ts
 * import { decodeHeaderValue } from "./header-value.ts";
 * decodeHeaderValue("=?base64?SGVsbG8=?="); // "Hello"
 * decodeHeaderValue("=?base64?SGVsbG8?="); // undefined (bad padding)
 * decodeHeaderValue("us-west1"); // "us-west1"
 * ```
 */
export function decodeHeaderValue(text: string): string | undefined {
  const encoded = text.length >= PREFIX.length + SUFFIX.length && text.startsWith(PREFIX) &&
    text.endsWith(SUFFIX);
  if (!encoded) return LITERAL.test(text) ? text : undefined;
  const bytes = codecs.fromBase64(text.slice(PREFIX.length, text.length - SUFFIX.length));
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function isPlain(value: string): boolean {
  if (!PRINTABLE.test(value) || value.startsWith(" ") || value.endsWith(" ")) return false;
  // Any letter case, and overlapping markers too ("=?base64?=" shares its "?").
  const lower = value.toLowerCase();
  return !(lower.startsWith(PREFIX) && lower.endsWith(SUFFIX));
}
