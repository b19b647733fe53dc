/**
 * The origin of a request the front serves, which its sign-in and its `auth` name in the URLs
 * they give out. Requests to a gateway arrive at the same few URLs, so each URL's origin is
 * parsed once ({@linkcode memoByString}), not on every call.
 *
 * @module
 */
import { memoByString } from "../_internal/string-memo.ts";

const originOfUrl = memoByString((url) => new URL(url).origin, 64);

/**
 * The request's origin: its URL's scheme, host and port.
 *
 * @param request The request.
 * @returns Its origin, such as `"http://127.0.0.1:8787"`.
 */
export function requestOrigin(request: Request): string {
  return originOfUrl(request.url);
}
