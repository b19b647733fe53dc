/**
 * The `allowHosts` / `denyHosts` rules of the elicitation URL check. Hosts are in WHATWG-normalised
 * A-label form, and an IPv4-mapped IPv6 address is compared as its IPv4 address, so no spelling of
 * a denied address slips through.
 *
 * @module
 */
import { getDomain } from "tldts";
import { hostShapeProblem, isIpHost, isPublicHost, mappedIpv4 } from "../_internal/host-kind.ts";
import { quote } from "../_internal/quote.ts";
import { findUnsafeCharacter } from "./_url-text.ts";

/** Registrable-domain look-up of a bare host, the PSL private section included. */
const WITH_PRIVATE = {
  extractHostname: false,
  validateHostname: false,
  detectIp: false,
  allowPrivateDomains: true,
} as const;

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
 * Finds the entry a host matches. An exact entry matches that host only; `*.example.com` matches
 * every subdomain at any depth but **not** the apex, and never across a public-suffix boundary
 * (both sides must have the same registrable domain, PSL private section included).
 *
 * @param rules The compiled list.
 * @param host A normalised host.
 * @returns The matching entry as written by the operator, or `undefined`.
 */
export function matchHost(rules: HostRules, host: string): string | undefined {
  const exact = rules.exact.get(mappedIpv4(host) ?? host);
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

/**
 * Finds the `denyHosts` entry a host falls under: as {@linkcode matchHost}, and also an exact
 * entry naming a parent of the host within its registrable domain, the same owner's
 * (`evil.example` covers `login.evil.example`; `co.uk` covers nothing under it).
 *
 * @param rules The compiled `denyHosts`.
 * @param host A normalised host.
 * @returns The matching entry as written by the operator, or `undefined`.
 */
export function matchDenied(rules: HostRules, host: string): string | undefined {
  const found = matchHost(rules, host);
  if (found !== undefined || rules.exact.size === 0 || isIpHost(host)) return found;
  const domain = getDomain(host, WITH_PRIVATE);
  if (domain === null || domain === host) return undefined;
  for (let dot = host.indexOf("."); dot !== -1; dot = host.indexOf(".", dot + 1)) {
    const parent = host.slice(dot + 1);
    const entry = rules.exact.get(parent);
    if (entry !== undefined || parent === domain) return entry;
  }
  return undefined;
}

/**
 * The A-label form of a configured host (an IPv4-mapped IPv6 address as its IPv4 address), or
 * `undefined` when it is not a bare host.
 */
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
  return mappedIpv4(host) ?? host;
}
