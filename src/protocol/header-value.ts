/**
 * The value encoding of the 2026-07-28 Streamable HTTP request headers `Mcp-Name` and
 * `Mcp-Param-{Name}`: a value that is plain visible ASCII goes as is, anything else as
 * `=?base64?{base64 of its UTF-8 bytes}?=`.
 *
 * A value is plain when every character is in U+0020–U+007E and it neither starts nor ends with
 * a space. Everything else is encoded: non-ASCII, every control character (tab included, since
 * the spec names control characters and a tab at either end would be trimmed by HTTP parsers),
 * leading or trailing spaces, and a plain value that already looks like the sentinel, so that
 * decoding is never ambiguous. The sentinel markers are case-sensitive in the spec; a plain value
 * that matches them in any letter case (`=?BASE64?…?=`) is encoded too, since older readers
 * matched them case-insensitively and encoding one value more costs nothing.
 *
 * Strings are converted to UTF-8 with `TextEncoder`, which turns a lone surrogate into U+FFFD:
 * `decodeHeaderValue(encodeHeaderValue(s)) === s` holds for every well-formed string, and for a
 * string with lone surrogates the result is `s` with each replaced by U+FFFD. Callers that must
 * mirror a body value exactly refuse such strings first.
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
 * Decodes an `Mcp-Name` or `Mcp-Param-{Name}` header value as received (after HTTP parsing).
 *
 * Only the exact lowercase markers denote an encoded value; `=?BASE64?…?=` is a literal. The
 * Base64 must be canonical (standard alphabet, `=` padding, zero trailing bits) and the bytes
 * valid UTF-8; a leading U+FEFF is kept. A literal value may hold only tab and U+0020–U+007E.
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
  // Any letter case, and overlapping markers too: "=?base64?=" starts with the prefix and ends
  // with the suffix, the two sharing its "?".
  const lower = value.toLowerCase();
  return !(lower.startsWith(PREFIX) && lower.endsWith(SUFFIX));
}
