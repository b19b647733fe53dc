/**
 * What kind of host a URL names, without resolving it, and how far from this machine it reaches
 * (loopback, private, public): the elicitation URL check refuses what is not public, and upstream
 * sign-in discovery refuses a URL that reaches further in than the upstream (SSRF). Hosts are in
 * WHATWG-normalised A-label form.
 *
 * @module
 */
import { parse } from "tldts";
import { hasLoopbackHost } from "./loopback-host.ts";
import { quote } from "./quote.ts";

/** Public-suffix look-up without hostname extraction: the input is already a bare host. */
const ICANN_ONLY = { extractHostname: false, validateHostname: false, detectIp: false } as const;

/** ICANN top-level labels that no public web browser resolves: Tor and infrastructure. */
const NON_PUBLIC_TLDS: ReadonlySet<string> = new Set(["onion", "arpa"]);

/** A dotted-quad IPv4 address as the WHATWG URL parser serialises one. */
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Whether a normalised host is an IP literal: IPv6 is bracketed, and the WHATWG parser turns every
 * host whose last label is a number into a dotted quad (`web1` is a domain name).
 *
 * @param host A WHATWG-normalised host.
 * @returns `true` for an IPv4 or IPv6 literal.
 */
export function isIpHost(host: string): boolean {
  return host.charCodeAt(0) === 0x5b || DOTTED_QUAD.test(host);
}

/** An IPv4-mapped IPv6 literal as the WHATWG URL parser serialises one: `[::ffff:7f00:1]`. */
const MAPPED_IPV4 = /^\[::ffff:([\da-f]{1,4}):([\da-f]{1,4})\]$/;

/**
 * The IPv4 address an IPv4-mapped IPv6 literal stands for, so `[::ffff:7f00:1]` gets the same
 * verdict as `127.0.0.1`, which a dual-stack socket connects to.
 *
 * @param host A WHATWG-normalised host.
 * @returns The dotted quad, or `undefined` when the host is not an IPv4-mapped IPv6 literal.
 */
export function mappedIpv4(host: string): string | undefined {
  const [, high, low] = MAPPED_IPV4.exec(host) ?? [];
  if (high === undefined || low === undefined) return undefined;
  const [a, b] = [parseInt(high, 16), parseInt(low, 16)];
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

/**
 * Why a normalised domain name is not one a browser would resolve as written: characters other
 * than letters, digits, `-`, `_` and `.`, an empty label or a trailing dot (`example.com.` is a
 * different origin from `example.com`, and would slip past host rules).
 *
 * @param host A WHATWG-normalised host that is not an IP literal.
 * @returns The reason, or `undefined` when the host is well-formed.
 */
export function hostShapeProblem(host: string): string | undefined {
  const first = FIRST_SHAPE_PROBLEM.exec(host)?.[0];
  if (first?.startsWith(".")) return `expected a host without empty labels, received ${quote(host)}`;
  if (first !== undefined) {
    return `expected a host of letters, digits, hyphens, underscores and dots, received ${quote(host)}`;
  }
  if (host === "" || host.endsWith(".")) {
    return `expected a host without a trailing dot, received ${quote(host)}`;
  }
  return undefined;
}

/** The first empty label (a leading or doubled dot) or character a host may not hold. */
const FIRST_SHAPE_PROBLEM = /^\.|\.\.|[^a-z\d_.-]/;

/**
 * Whether a domain name sits under an ICANN public suffix and has a registrable domain of its
 * own: `localhost`, single labels, `*.local`, `*.internal`, `*.test`, `*.example`, a bare public
 * suffix, and the `onion` and `arpa` trees are not public.
 *
 * @param host A well-formed, normalised domain name.
 * @returns `true` when a public browser would resolve it on the Internet.
 */
export function isPublicHost(host: string): boolean {
  const parsed = parse(host, ICANN_ONLY);
  if (parsed.isIcann !== true || parsed.domain === null) return false;
  return !NON_PUBLIC_TLDS.has(host.slice(host.lastIndexOf(".") + 1));
}

/**
 * Tells how far in a URL's host reaches, by its name alone (never resolved): `"loopback"` for
 * `localhost`, `127.0.0.0/8` (IPv4-mapped too) and `[::1]`; `"public"` for a well-formed domain
 * name under an ICANN public suffix; `"private"` for everything else, every other IP literal
 * included (public addresses too: ranges are not parsed).
 *
 * @param url The parsed URL.
 * @returns Its host's reach.
 * @example
 * ```ts
 * import { hostReach } from "./host-kind.ts";
 * console.log(hostReach(new URL("http://127.1:8787/"))); // loopback
 * console.log(hostReach(new URL("https://10.0.0.2/"))); // private
 * console.log(hostReach(new URL("https://auth.example.com/"))); // public
 * ```
 */
export function hostReach(url: URL): "loopback" | "private" | "public" {
  if (hasLoopbackHost(url) || mappedIpv4(url.hostname)?.startsWith("127.") === true) return "loopback";
  const host = url.hostname;
  const named = !isIpHost(host) && hostShapeProblem(host) === undefined;
  return named && isPublicHost(host) ? "public" : "private";
}
