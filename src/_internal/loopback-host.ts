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
 * Tells whether a URL's host is loopback: `localhost`, `127.0.0.0/8` or `[::1]` (`app.localhost`
 * is not). It takes a `URL` because the parser has already normalised the host (`127.1`).
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
