/**
 * Host classification and the `allowHosts` / `denyHosts` rules of the elicitation URL check.
 * Every host here is in the WHATWG-normalised A-label form (lower case, punycode).
 *
 * @module
 */
import { getDomain, parse } from "tldts";
import { quote } from "../_internal/quote.ts";
import { findUnsafeCharacter } from "./_url-text.ts";

/** Public-suffix look-up without hostname extraction: the input is already a bare host. */
const ICANN_ONLY = { extractHostname: false, validateHostname: false, detectIp: false } as const;
const WITH_PRIVATE = { ...ICANN_ONLY, allowPrivateDomains: true } as const;

/** ICANN top-level labels that no public web browser resolves: Tor and infrastructure. */
const NON_PUBLIC_TLDS: ReadonlySet<string> = new Set(["onion", "arpa"]);

/** A dotted-quad IPv4 address as the WHATWG URL parser serialises one. */
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Whether a normalised host is an IP literal: IPv6 is bracketed, and the WHATWG parser turns
 * every host whose last label is a number (decimal, octal, hex, short forms) into a dotted quad.
 * A name that merely ends in a digit (`web1`, `example.co1`, `1e100`) is a domain name.
 *
 * @param host A WHATWG-normalised host.
 * @returns `true` for an IPv4 or IPv6 literal.
 */
export function isIpHost(host: string): boolean {
  return host.charCodeAt(0) === 0x5b || DOTTED_QUAD.test(host);
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

/** A compiled `allowHosts` or `denyHosts` list. */
export interface HostRules {
  /** Exact hosts, mapped to the entry as the operator wrote it. */
  readonly exact: ReadonlyMap<string, string>;
  /** `*.` patterns. */
  readonly patterns: readonly HostPattern[];
}

interface HostPattern {
  readonly entry: string;
  /** `.` + the base host, e.g. `.example.co.uk`. */
  readonly dotBase: string;
  /** The registrable domain of the base (private PSL section included). */
  readonly domain: string;
}

/** What an `allowHosts` entry may name; `undefined` for `denyHosts`, which may name anything. */
export interface HostReach {
  readonly ip: boolean;
  readonly private: boolean;
}

/**
 * Compiles a host list, throwing a `TypeError` on an entry that is not a host name, an IP or a
 * `*.` pattern under a registrable domain, or (with `reach`) that could never be let through.
 *
 * @param list The option's value, an array of strings.
 * @param name The option's name, for messages.
 * @param reach For `allowHosts`: which kinds of host the other options let through.
 * @returns The compiled rules.
 * @throws {TypeError} Naming the first entry that is wrong (see {@linkcode readHostRules} for all).
 */
export function compileHostRules(list: readonly unknown[], name: string, reach?: HostReach): HostRules {
  const { rules, problems } = readHostRules(list, name, reach);
  if (problems[0] !== undefined) throw new TypeError(problems[0]);
  return rules;
}

/**
 * Compiles a host list as {@linkcode compileHostRules} does, keeping every problem rather than
 * throwing the first, so a policy's check reports them all at once.
 *
 * @param list The option's value, an array of strings.
 * @param name The option's name, for messages.
 * @param reach For `allowHosts`: which kinds of host the other options let through.
 * @returns The rules of the entries that are right, and one message per entry that is not.
 */
export function readHostRules(
  list: readonly unknown[],
  name: string,
  reach?: HostReach,
): { readonly rules: HostRules; readonly problems: readonly string[] } {
  const exact = new Map<string, string>();
  const patterns: HostPattern[] = [];
  const problems: string[] = [];
  list.forEach((entry, index) => {
    const where = `createElicitationUrlCheck: "${name}[${index}]"`;
    if (typeof entry !== "string") {
      return problems.push(`${where} must be a string, received ${typeof entry}`);
    }
    const wildcard = entry.startsWith("*.");
    const host = normaliseEntry(wildcard ? entry.slice(2) : entry);
    if (host === undefined) {
      return problems.push(
        `${where} must be a host name, an IP address or "*." and a host name, received ${quote(entry)}`,
      );
    }
    const ip = isIpHost(host);
    if (wildcard) {
      const domain = ip ? null : getDomain(host, WITH_PRIVATE);
      if (domain === null) {
        return problems.push(
          `${where} must not cover a public suffix or an IP range, received ${quote(entry)}`,
        );
      }
      patterns.push(Object.freeze({ entry, dotBase: `.${host}`, domain }));
    } else {
      exact.set(host, entry);
    }
    if (reach !== undefined && ip && !reach.ip) {
      problems.push(`${where} is an IP address, which is refused unless "allowIpHosts" is true`);
    } else if (reach !== undefined && !ip && !reach.private && !isPublicHost(host)) {
      problems.push(`${where} is not a public host, which is refused unless "allowPrivateHosts" is true`);
    }
  });
  return { rules: Object.freeze({ exact, patterns: Object.freeze(patterns) }), problems };
}

/**
 * Finds the entry a host matches. An exact entry matches that host only; `*.example.com`
 * matches every subdomain at any depth (`a.example.com`, `a.b.example.com`) but **not** the apex
 * `example.com`, and never across a public-suffix boundary: both sides must have the same
 * registrable domain (PSL private section included).
 *
 * @param rules The compiled list.
 * @param host A normalised host.
 * @returns The matching entry as written by the operator, or `undefined`.
 */
export function matchHost(rules: HostRules, host: string): string | undefined {
  const exact = rules.exact.get(host);
  if (exact !== undefined) return exact;
  let domain: string | null | undefined;
  for (const pattern of rules.patterns) {
    if (host.length > pattern.dotBase.length && host.endsWith(pattern.dotBase)) {
      domain ??= getDomain(host, WITH_PRIVATE);
      if (domain === pattern.domain) return pattern.entry;
    }
  }
  return undefined;
}

/** The A-label form of a configured host, or `undefined` when it is not a bare host. */
function normaliseEntry(text: string): string | undefined {
  if (text === "" || findUnsafeCharacter(text) !== undefined || /[/?#@%*]/.test(text)) return undefined;
  if (text.startsWith("[") ? !text.endsWith("]") : text.includes(":")) return undefined;
  let url: URL;
  try {
    url = new URL(`https://${text}/`);
  } catch {
    return undefined;
  }
  if (url.port !== "" || url.pathname !== "/") return undefined;
  const host = url.hostname;
  if (!isIpHost(host) && hostShapeProblem(host) !== undefined) return undefined;
  return host;
}
