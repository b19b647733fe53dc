/**
 * The URL-mode elicitation check: only absolute `https` URLs to public hosts, without userinfo
 * and without characters the user would not see or a parser would drop. sluice never opens the
 * URL; the handler shows it.
 *
 * @module
 */
import { pass, type Refusal, RefusalCode, refuse, type Verdict } from "./verdict.ts";
import { compileHostRules, type HostRules, matchDenied, matchHost, readHostRules } from "./_host-rules.ts";
import { hostShapeProblem, isIpHost, isPublicHost } from "../_internal/host-kind.ts";
import { describeKind, describeValue, quote, thrownName } from "../_internal/quote.ts";
import { findUnsafeCharacter, readHttpsAuthority } from "./_url-text.ts";

/** Options of {@linkcode createElicitationUrlCheck}. */
export interface ElicitationUrlOptions {
  /**
   * When present, the only hosts allowed: exact hosts (`login.example.com`, Unicode or punycode)
   * or `*.` patterns (`*.example.com`: every subdomain at any depth, **not** the apex
   * `example.com`; list both to allow both). Compared on the lower-case A-label form; a pattern
   * never crosses a public-suffix boundary, and a pattern covering a whole public suffix
   * (`*.co.uk`, `*.github.io`) is a configuration error. Must not be empty.
   * @default undefined (every host, subject to `denyHosts`)
   */
  readonly allowHosts?: readonly string[];
  /**
   * Hosts refused even when `allowHosts` lists them (checked first); same syntax, but an exact
   * host is refused with its subdomains within its registrable domain (`evil.example` also refuses
   * `login.evil.example`; a public suffix such as `co.uk` or `github.io` refuses itself only).
   * @default []
   */
  readonly denyHosts?: readonly string[];
  /**
   * Let IP-literal hosts through (IPv4 in any notation, IPv6). Risky: loopback and private
   * ranges point at the user's own machine or network.
   * @default false
   */
  readonly allowIpHosts?: boolean;
  /**
   * Let non-public hosts through: `localhost`, single labels, `*.local`, `*.internal`, `*.test`
   * and any name without an ICANN public suffix. Risky for the same reason as IP hosts.
   * @default false
   */
  readonly allowPrivateHosts?: boolean;
  /**
   * The longest URL accepted, in UTF-16 code units, before and after normalisation.
   * @default 2048
   */
  readonly maxUrlLength?: number;
}

/** What the elicitation handler is told about an accepted URL. */
export interface ElicitationUrlContext {
  /** The normalised URL (WHATWG `href`): what a browser would open. */
  readonly url: string;
  /** The host in lower-case A-label (punycode) form, without port. */
  readonly host: string;
  /** `true` when a label of the host starts with `xn--` (Unicode hosts included): warn the user. */
  readonly idn: boolean;
  /** `true` unless the URL's origin is the server's origin (always `true` when that is unknown). */
  readonly originMismatch: boolean;
}

/** A passing URL check: the params to hand on and the context for the handler. */
export interface ElicitationUrlPass<P> {
  /** A copy of the params whose `url` is the normalised URL. */
  readonly params: P;
  /** What the handler is told about the URL. */
  readonly context: ElicitationUrlContext;
}

/** A compiled URL check. */
export interface ElicitationUrlCheck {
  /**
   * Checks the `url` of URL-mode elicitation params.
   *
   * @param params The request params; never modified.
   * @param serverOrigin The asking server's origin (`https://mcp.example.com`), when known.
   * @returns The rewritten params and the handler context, or a `-32602` refusal.
   */
  check<P extends { readonly url: string }>(
    params: P,
    serverOrigin: string | undefined,
  ): Verdict<ElicitationUrlPass<P>>;
}

/**
 * Builds the URL-mode elicitation check, validating and compiling its options once.
 *
 * @param options Host rules and limits.
 * @returns A frozen check whose `check(params, serverOrigin)` answers the same inputs the same way (it
 *   keeps only the last server origin it normalised).
 * @throws {TypeError} When an option is malformed (an unknown key, an empty `allowHosts`, a
 *   pattern covering a public suffix, an `allowHosts` entry the other options would refuse).
 * @example
 * ```ts
 * import { createElicitationUrlCheck } from "./elicitation-url.ts";
 * const urls = createElicitationUrlCheck({ denyHosts: ["*.evil.example.com"] });
 * const verdict = urls.check({ mode: "url", url: "https://Bücher.example.com/pay" }, "https://example.com");
 * if (verdict.ok) console.log(verdict.value.context.host, verdict.value.context.idn); // xn--bcher-kva.example.com true
 * ```
 */
export function createElicitationUrlCheck(options: ElicitationUrlOptions = {}): ElicitationUrlCheck {
  const { allowIp, allowPrivate, maxLength, deny, allow } = compileUrlOptions(options);

  function check<P extends { readonly url: string }>(
    params: P,
    serverOrigin: string | undefined,
  ): Verdict<ElicitationUrlPass<P>> {
    try {
      return checkUrl(params, serverOrigin);
    } catch (error) {
      const name = thrownName(error);
      const message = `Elicitation URL refused: expected plain JSON params, reading them threw ${name}`;
      return refuse(RefusalCode.InvalidParams, message);
    }
  }

  function checkUrl<P extends { readonly url: string }>(
    params: P,
    serverOrigin: string | undefined,
  ): Verdict<ElicitationUrlPass<P>> {
    const raw: unknown = params.url;
    if (typeof raw !== "string") {
      const message = `Elicitation URL refused: expected a string, received ${describeKind(raw)}`;
      return refuse(RefusalCode.InvalidParams, message);
    }
    const url = parseHttps(raw);
    if (typeof url === "string") return refused(raw, url);
    const host = url.hostname;
    const problem = hostProblem(host);
    if (problem !== undefined) return refused(raw, problem);
    const href = url.href;
    if (href.length > maxLength) {
      return refused(
        raw,
        `expected at most ${maxLength} characters once normalised, received ${href.length}`,
      );
    }
    const idn = host.startsWith("xn--") || host.includes(".xn--");
    const { origin } = url;
    const context: ElicitationUrlContext = {
      url: href,
      host,
      idn,
      originMismatch: serverOrigin === undefined ||
        (origin !== serverOrigin && origin !== normalisedOrigin(serverOrigin)),
    };
    return pass({ params: { ...params, url: href }, context });
  }

  /** The parsed URL, or why the raw text is refused (checked before the parser can rewrite it). */
  function parseHttps(raw: string): URL | string {
    if (raw.length > maxLength) return `expected at most ${maxLength} characters, received ${raw.length}`;
    const unsafe = findUnsafeCharacter(raw);
    if (unsafe !== undefined) return unsafe;
    const shape = readHttpsAuthority(raw);
    if (shape.kind === "refused") return shape.reason;
    if (!allowIp && shape.authority.startsWith("[")) {
      const end = shape.authority.indexOf("]");
      const literal = end < 0 ? shape.authority : shape.authority.slice(0, end + 1);
      return ipReason(literal, listProblem(hostnameOf(literal)) === undefined);
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "expected a valid URL";
    }
    if (url.username !== "" || url.password !== "") return 'expected no userinfo ("@") before the host';
    return url.hostname === "" ? 'expected "https://" followed by a host' : url;
  }

  /** The server's origin as WHATWG normalises it; the last one is kept, as a chain asks with the same. */
  let lastGiven: string | undefined;
  let lastNormalised: string | undefined;
  function normalisedOrigin(given: string): string | undefined {
    if (given !== lastGiven) {
      lastNormalised = originOf(given);
      lastGiven = given;
    }
    return lastNormalised;
  }

  /**
   * Why a normalised host is refused: IP, malformed, not public, denied, not allowed. The option
   * that lets an IP or private host through is named only when the lists would let it through too.
   */
  function hostProblem(host: string): string | undefined {
    const listed = listProblem(host);
    if (isIpHost(host)) {
      if (!allowIp) return ipReason(host, listed === undefined);
    } else {
      const problem = hostShapeProblem(host);
      if (problem !== undefined) return problem;
      if (!allowPrivate && !isPublicHost(host)) {
        const hint = listed === undefined ? " (set allowPrivateHosts to allow private hosts)" : "";
        return `expected a host under a public suffix, received ${quote(host)}${hint}`;
      }
    }
    return listed;
  }

  /** Why `denyHosts` or `allowHosts` refuse a host. */
  function listProblem(host: string): string | undefined {
    const denied = matchDenied(deny, host);
    if (denied !== undefined) {
      return `expected a host outside denyHosts, received ${quote(host)} (matches ${quote(denied)})`;
    }
    if (allow !== undefined && matchHost(allow, host) === undefined) {
      return `expected a host in allowHosts, received ${quote(host)}`;
    }
    return undefined;
  }

  return Object.freeze({ check });
}

function refused(raw: string, reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InvalidParams, `Elicitation URL ${quote(raw)} refused: ${reason}`);
}

function ipReason(host: string, hinted = true): string {
  const hint = hinted ? " (set allowIpHosts to allow IP addresses)" : "";
  return `expected a domain name, received the IP address ${quote(host)}${hint}`;
}

/** An IPv6 literal as the URL parser writes it (`[0:0::1]` is `[::1]`), or as it is when it does not parse. */
function hostnameOf(literal: string): string {
  try {
    return new URL(`https://${literal}/`).hostname;
  } catch {
    return literal;
  }
}

/** A URL's origin, or `undefined` when it does not parse or has none (`"null"`). */
function originOf(text: string): string | undefined {
  try {
    const { origin } = new URL(text);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

const OPTION_KEYS: readonly string[] = [
  "allowHosts",
  "denyHosts",
  "allowIpHosts",
  "allowPrivateHosts",
  "maxUrlLength",
];

/** Validates and compiles the options once, at factory time. */
function compileUrlOptions(options: unknown) {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `createElicitationUrlCheck: options must be an object, received ${describeKind(options)}`,
    );
  }
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!OPTION_KEYS.includes(key)) {
      const known = OPTION_KEYS.join(", ");
      throw new TypeError(
        `createElicitationUrlCheck: unknown option ${quote(key)}, expected one of ${known}`,
      );
    }
  }
  const allowIp = readFlag(given["allowIpHosts"], "allowIpHosts");
  const allowPrivate = readFlag(given["allowPrivateHosts"], "allowPrivateHosts");
  const maxLength = given["maxUrlLength"] ?? 2048;
  if (typeof maxLength !== "number" || !Number.isSafeInteger(maxLength) || maxLength < 1) {
    const received = describeValue(maxLength);
    throw new TypeError(
      `createElicitationUrlCheck: "maxUrlLength" must be a positive integer, received ${received}`,
    );
  }
  const deny = compileHostRules(readList(given["denyHosts"] ?? [], "denyHosts"), "denyHosts");
  let allow: HostRules | undefined;
  if (given["allowHosts"] !== undefined) {
    const list = readList(given["allowHosts"], "allowHosts");
    if (list.length === 0) throw new TypeError(EMPTY_ALLOW_HOSTS);
    allow = compileHostRules(list, "allowHosts", { ip: allowIp, private: allowPrivate });
  }
  return { allowIp, allowPrivate, maxLength, deny, allow };
}

const EMPTY_ALLOW_HOSTS =
  'createElicitationUrlCheck: "allowHosts" must list at least one host; omit it to allow every host';

/**
 * Every problem of the host lists {@linkcode createElicitationUrlCheck} would throw the first of:
 * entries that are not hosts, patterns on a public suffix, hosts the other options never let
 * through, an empty `allowHosts`.
 *
 * @param options The options, their types already checked (a policy's schema does that).
 * @returns One message per problem, `denyHosts` first; none when the check can be built.
 */
export function hostListProblems(options: ElicitationUrlOptions): string[] {
  const reach = { ip: options.allowIpHosts === true, private: options.allowPrivateHosts === true };
  const problems = [...readHostRules(options.denyHosts ?? [], "denyHosts").problems];
  if (options.allowHosts?.length === 0) problems.push(EMPTY_ALLOW_HOSTS);
  else if (options.allowHosts !== undefined) {
    problems.push(...readHostRules(options.allowHosts, "allowHosts", reach).problems);
  }
  return problems;
}

function readFlag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") {
    throw new TypeError(
      `createElicitationUrlCheck: "${name}" must be a boolean, received ${describeValue(value)}`,
    );
  }
  return value;
}

function readList(value: unknown, name: string): readonly unknown[] {
  if (!Array.isArray(value)) {
    const received = describeValue(value);
    throw new TypeError(
      `createElicitationUrlCheck: "${name}" must be an array of hosts, received ${received}`,
    );
  }
  return value;
}
