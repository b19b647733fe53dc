/**
 * The loopback rule for plain `http:`: a URL whose host is loopback never leaves the machine, so
 * its traffic and headers cannot be read on the network. The policy's HTTP transports and
 * `remoteHandler` both accept `http:` only there, unless loosened by `allowHttp`.
 *
 * @module
 */

/** `localhost`, `127.0.0.0/8` and `[::1]`, as the WHATWG URL parser writes them. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Tells whether a URL's host is loopback: `localhost`, an IPv4 address in `127.0.0.0/8`, or
 * `[::1]`. A subdomain such as `app.localhost` is not. The URL parser has already lower-cased the
 * name and normalised IP literals (`127.1` to `127.0.0.1`, `[0:0::1]` to `[::1]`), which is why
 * this takes a `URL`, not a string.
 *
 * @param url The parsed URL.
 * @returns Whether its host is loopback.
 * @example
 * ```ts
 * import { hasLoopbackHost } from "./loopback-host.ts";
 * console.log(hasLoopbackHost(new URL("http://127.1:8787/"))); // true
 * console.log(hasLoopbackHost(new URL("http://10.0.0.2/"))); // false
 * ```
 */
export function hasLoopbackHost(url: URL): boolean {
  return LOOPBACK.test(url.hostname);
}
