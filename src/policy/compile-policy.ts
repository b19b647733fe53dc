/**
 * Validates a policy and resolves every default, reporting every problem at once.
 *
 * @module
 */
import * as v from "valibot";
import { formatDuration, parseDuration } from "./duration.ts";
import type {
  ElicitationPolicy,
  HttpTransport,
  LogLevel,
  Policy,
  RateOption,
  UpstreamAuth,
} from "./policy.ts";
import { PolicyError, type PolicyProblem } from "./policy-error.ts";
import { PolicySchema, SERVER_ID, TransportSchemas } from "./policy-schema.ts";
import { withoutQuotedUrlSecrets } from "../_internal/url-query.ts";
import { POLICY_DEFAULTS } from "./policy-defaults.ts";
import {
  httpTransportProblems,
  type HttpTransportShape,
  problemsFromIssues,
  type ProblemSite,
  transportKeyProblems,
  transportKindOf,
  unknownKeyProblems,
} from "./_policy-problems.ts";
import {
  createElicitationUrlCheck,
  type ElicitationUrlCheck,
  type ElicitationUrlOptions,
  hostListProblems,
} from "../checks/elicitation-url.ts";

/** A token-bucket rule in milliseconds. */
export interface CompiledRate {
  /** Tokens added every `perMs`. */
  readonly rate: number;
  /** The refill period in milliseconds. */
  readonly perMs: number;
  /** Bucket capacity. */
  readonly burst: number;
}

/** A resolved HTTP transport. */
export interface CompiledHttpTransport {
  /** Always `"http"`. */
  readonly kind: "http";
  /** The endpoint URL, normalised. */
  readonly url: string;
  /** The endpoint's origin. */
  readonly origin: string;
  /** Extra headers (may be empty). */
  readonly headers: Readonly<Record<string, string>>;
  /** The redirect rule. */
  readonly redirect: "same-origin" | "none" | "any";
  /** Whether a plain `http:` URL may have a host that is not loopback (the endpoint's, a redirect's). */
  readonly allowHttp: boolean;
  /** How sluice signs in to the server, when the policy says (`transport.auth`). */
  readonly auth?: CompiledUpstreamAuth | undefined;
}

/** A resolved `transport.auth`: environment variable names, never their values. */
export type CompiledUpstreamAuth = CompiledClientCredentials | CompiledOAuthSignIn;

/** A resolved `transport.auth.oauth`. */
export interface CompiledOAuthSignIn {
  /** Always `"authorization_code"`. */
  readonly kind: "authorization_code";
  /** Scopes asked for; empty means the server's challenge, else its metadata's, else none. */
  readonly scopes: readonly string[];
  /** The pre-registered client, bound to its issuer. */
  readonly client?: {
    readonly clientId: string;
    readonly issuer: string;
    readonly secretEnv?: string | undefined;
    readonly method?: "none" | "client_secret_basic" | "client_secret_post" | undefined;
  } | undefined;
  /** The Client ID Metadata Document URL. */
  readonly clientMetadataUrl?: string | undefined;
}

/** A resolved `transport.auth.clientCredentials`: environment variable names, never their values. */
export interface CompiledClientCredentials {
  /** Always `"client_credentials"`. */
  readonly kind: "client_credentials";
  /** The client id registered at the authorization server. */
  readonly clientId: string;
  /** Where the secret lives: a client secret, or a PKCS#8 PEM private key for `private_key_jwt`. */
  readonly credential:
    | { readonly kind: "secret"; readonly env: string }
    | {
      readonly kind: "private_key";
      readonly env: string;
      readonly algorithm: "ES256" | "RS256" | "PS256" | "EdDSA";
    };
  /** Scopes asked for; empty means the server's challenge, else its metadata's, else none. */
  readonly scopes: readonly string[];
}

/** A resolved stdio transport. */
export interface CompiledStdioTransport {
  /** Always `"stdio"`. */
  readonly kind: "stdio";
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Added environment variables. */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory, when set. */
  readonly cwd: string | undefined;
}

/** A policy with every option resolved to a number, flag or list. */
export interface CompiledPolicy {
  /** Where the policy came from, when known. */
  readonly source: string | undefined;
  /** The server id. */
  readonly server: string;
  /** The transport. */
  readonly transport: CompiledHttpTransport | CompiledStdioTransport;
  /** The protocol era, or `"auto"`. */
  readonly era: "modern" | "legacy" | "auto";
  /** Sampling rules. */
  readonly sampling: {
    readonly enabled: boolean;
    readonly maxTokens: number;
    readonly context: boolean;
    readonly allowIdle: boolean;
    readonly maxToolIterations: number;
    readonly rejectionCode: number;
    readonly tools: boolean;
  };
  /** Elicitation rules. */
  readonly elicitation: {
    readonly enabled: boolean;
    readonly modes: readonly ("form" | "url")[];
    readonly origin: string | undefined;
    readonly allowHosts: readonly string[] | undefined;
    readonly denyHosts: readonly string[];
    readonly allowIpHosts: boolean;
    readonly allowPrivateHosts: boolean;
    readonly maxUrlLength: number;
    readonly maxFields: number;
    readonly maxEnumValues: number;
  };
  /** Roots rules. */
  readonly roots: { readonly enabled: boolean };
  /** Input-request budget. */
  readonly inputRateLimit: CompiledRate;
  /** Log budget. */
  readonly logRateLimit: CompiledRate;
  /** Lowest log level asked for. */
  readonly logLevel: LogLevel;
  /** Whether a store failure lets input requests through. */
  readonly rateLimitFailOpen: boolean;
  /** Handler time limits in milliseconds. */
  readonly handlerTimeoutMs: { readonly elicitation: number; readonly default: number };
  /** Each leg of a call, in milliseconds. */
  readonly callTimeoutMs: number;
  /** A whole call, in milliseconds. */
  readonly maxTotalTimeoutMs: number;
  /** Legacy server requests at once. */
  readonly maxServerRequests: number;
  /** Rounds of one multi round-trip request. */
  readonly maxRounds: number;
  /** The largest message (JSON body, stdio line, front request body), in bytes. */
  readonly maxMessageBytes: number;
  /** The largest SSE event data, in UTF-8 bytes. */
  readonly maxEventBytes: number;
  /** The most `inputRequests` entries in one round. */
  readonly maxInputRequests: number;
  /** The deepest nesting of arrays and objects in a message received. */
  readonly maxJsonDepth: number;
  /** The most entries of this server waiting for each notification consumer. */
  readonly maxWaitingNotifications: number;
  /** The front: kinds passed down to the caller when no handler implements them. */
  readonly passDown: readonly ("sampling" | "elicitation" | "roots")[];
  /** The front: lifetime of a sealed continuation state, in milliseconds. */
  readonly stateTtlMs: number;
  /** The front: the most legacy caller sessions at once. */
  readonly maxSessions: number;
  /** The front: how long an unused legacy caller session lives, in milliseconds. */
  readonly sessionIdleTimeoutMs: number;
  /** The front: who may use the server and which tools; `undefined`: everyone, every tool. */
  readonly access: readonly CompiledAccessRule[] | undefined;
}

/** One rule of `access`, compiled. */
export interface CompiledAccessRule {
  /** The subjects it admits; `undefined`: any. */
  readonly subjects: ReadonlySet<string> | undefined;
  /** The scopes a caller must all hold. */
  readonly scopes: readonly string[];
  /** The tools it opens; `"*"`: all. */
  readonly tools: ReadonlySet<string> | "*";
}

/** Options of {@linkcode compilePolicy} and {@linkcode checkPolicy}. */
export interface CompileOptions {
  /** Where the policy came from (a file path), named in every problem. */
  readonly source?: string;
}

/**
 * Lists every problem of a policy without throwing; an empty list means it compiles.
 *
 * @param policy The policy, as written (any value).
 * @param options Where it came from.
 * @returns The problems, in order.
 */
export function checkPolicy(policy: unknown, options: CompileOptions = {}): PolicyProblem[] {
  return validate(policy, options.source).problems;
}

/**
 * Validates a policy and resolves every default.
 *
 * @param policy The policy, usually a `*.policy.ts` file's default export.
 * @param options Where it came from.
 * @returns The compiled policy, frozen.
 * @throws {PolicyError} Listing every problem, when there is any.
 * @example
 * ```ts
 * import { compilePolicy } from "./compile-policy.ts";
 * const policy = compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } });
 * console.log(policy.sampling.maxTokens, policy.inputRateLimit); // 4096 { rate: 10, perMs: 1000, burst: 20 }
 * ```
 */
export function compilePolicy(policy: Policy | unknown, options: CompileOptions = {}): CompiledPolicy {
  const { problems, compiled } = validate(policy, options.source);
  if (compiled === undefined) throw new PolicyError(problems);
  return compiled;
}

function validate(input: unknown, source: string | undefined): {
  problems: PolicyProblem[];
  compiled?: CompiledPolicy;
} {
  const site = { source, server: serverIdOf(input) };
  // valibot takes an array for an object (and would report only its missing keys), and a promise
  // (a default export of an async function's call) for one that lacks them all.
  if (Array.isArray(input)) {
    return {
      problems: [{ ...site, path: "", message: "the policy must be a policy object, received an array" }],
    };
  }
  if (input instanceof Promise) {
    const message = "the policy must be a policy object, received a Promise: export what it resolves to " +
      "(`export default await …`)";
    return { problems: [{ ...site, path: "", message }] };
  }
  const result = v.safeParse(PolicySchema, input, { abortEarly: false });
  const problems = [
    ...problemsFromIssues(result.issues ?? [], PolicySchema, site),
    ...unknownKeyProblems(input, PolicySchema, site),
  ];
  if (typeof input !== "object" || input === null || Array.isArray(input)) return { problems };
  const transport = (input as { transport?: unknown }).transport;
  if (transport !== undefined) {
    problems.push(...transportProblems(transport, site), ...eraProblems(input, site));
  }
  problems.push(...timeoutProblems(input as Policy, site), ...eventLimitProblems(input as Policy, site));
  // The host lists' own rules, whenever they and the flags they read are well typed.
  const { elicitation } = input as Policy;
  const untyped = /^elicitation(\.(allowHosts|denyHosts|allowIpHosts|allowPrivateHosts)\b|$)/;
  if (typeof elicitation === "object" && !problems.some((problem) => untyped.test(problem.path))) {
    problems.push(...checkerProblems(elicitation, site));
  }
  if (problems.length > 0 || !result.success) return { problems };
  return { problems, compiled: resolve(input as Policy, source) };
}

/**
 * Builds the URL check of a policy's `elicitation` options, for URL elicitations and sign-in URLs.
 *
 * @param policy The compiled policy.
 * @returns The frozen check.
 * @throws {TypeError} When the options are not valid (never for a compiled policy).
 * @example
 * ```ts
 * import { compilePolicy, createPolicyUrlCheck } from "./compile-policy.ts";
 * const policy = compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } });
 * console.log(createPolicyUrlCheck(policy).check({ url: "http://mcp.example.com/pay" }, undefined).ok); // false
 * ```
 */
export function createPolicyUrlCheck(policy: CompiledPolicy): ElicitationUrlCheck {
  return createElicitationUrlCheck(urlOptionsOf(policy.elicitation));
}

function urlOptionsOf(e: CompiledPolicy["elicitation"]): ElicitationUrlOptions {
  return {
    ...(e.allowHosts === undefined ? {} : { allowHosts: e.allowHosts }),
    denyHosts: e.denyHosts,
    allowIpHosts: e.allowIpHosts,
    allowPrivateHosts: e.allowPrivateHosts,
    maxUrlLength: e.maxUrlLength,
  };
}

/** Host-list problems the schema cannot express, so such a policy fails here, not at its first request. */
function checkerProblems(elicitation: ElicitationPolicy, site: ProblemSite): PolicyProblem[] {
  const { allowHosts, denyHosts = [], allowIpHosts = false, allowPrivateHosts = false } = elicitation;
  const options = {
    ...(allowHosts === undefined ? {} : { allowHosts }),
    denyHosts,
    allowIpHosts,
    allowPrivateHosts,
  };
  return hostListProblems(options).map((message) => {
    const detail = message.replace(/^createElicitationUrlCheck: /, "");
    const path = /^"(allowHosts|denyHosts)(\[\d+\])?/.exec(detail)?.[0]?.slice(1);
    return {
      ...site,
      path: path === undefined ? "elicitation" : `elicitation.${path}`,
      // An entry written as a URL may carry a password: problems land in terminals and CI logs.
      message: withoutQuotedUrlSecrets(`"elicitation.${detail.slice(1)}`),
    };
  });
}

function transportProblems(transport: unknown, site: ProblemSite): PolicyProblem[] {
  const at = { ...site, prefix: "transport" };
  const isObject = typeof transport === "object" && transport !== null && !Array.isArray(transport);
  if (!isObject) {
    return problemsFromIssues(
      v.safeParse(TransportSchemas.http, transport).issues ?? [],
      TransportSchemas.http,
      at,
    );
  }
  const { kind, misspelt } = transportKindOf(transport);
  if (kind === undefined) return transportKeyProblems(transport, undefined, at);
  const schema = TransportSchemas[kind];
  const result = v.safeParse(schema, transport, { abortEarly: false });
  // A misspelt `url` or `command` is reported as the unknown key it is, with the right name.
  const required = misspelt === undefined ? "" : kind === "http" ? "transport.url" : "transport.command";
  const problems = [
    ...problemsFromIssues(result.issues ?? [], schema, at).filter((problem) => problem.path !== required),
    ...transportKeyProblems(transport, kind, at),
  ];
  if (result.success && kind === "http") {
    problems.push(...httpTransportProblems(transport as HttpTransportShape, at));
  }
  return problems;
}

/** The modern era runs over HTTP only: a policy for a server over stdio that says so never connects. */
function eraProblems(
  policy: { readonly era?: unknown; readonly transport?: unknown },
  site: ProblemSite,
): PolicyProblem[] {
  const { transport } = policy;
  if (policy.era !== "modern" || typeof transport !== "object" || transport === null) return [];
  if (transportKindOf(transport).kind !== "stdio") return [];
  return [{
    ...site,
    path: "era",
    message:
      '"era" is "modern" with a "transport" that has a "command": the modern era (2026-07-28) runs over HTTP only; expected "legacy" or "auto" for a server over stdio, or a "transport" with a "url"',
  }];
}

/**
 * Each leg and each handler the policy times must fit inside the whole call's time (checked on
 * valid durations only); one it leaves to its default gets at most the whole call's time.
 */
function timeoutProblems(policy: Policy, site: ProblemSite): PolicyProblem[] {
  const read = (value: unknown) => typeof value === "string" ? parseDuration(value) : undefined;
  // A maxTotalTimeout given but not a duration is reported by the schema alone: the timeouts are
  // not held to the default it was meant to replace.
  const limit = read(
    policy.maxTotalTimeout === undefined ? POLICY_DEFAULTS.maxTotalTimeout : policy.maxTotalTimeout,
  );
  const checks: Array<[string, number | undefined]> = [
    ["callTimeout", read(policy.callTimeout)],
    ["handlerTimeout.elicitation", read(policy.handlerTimeout?.elicitation)],
    ["handlerTimeout.default", read(policy.handlerTimeout?.default)],
  ];
  if (limit === undefined) return [];
  return checks.filter(([, ms]) => ms !== undefined && ms > limit).map(([path, ms]) => ({
    ...site,
    path,
    message: `"${path}" (${formatDuration(ms ?? 0)}) must not exceed "maxTotalTimeout" (${
      formatDuration(limit)
    })`,
  }));
}

/** An SSE event carries one message, so its limit must not exceed the message limit. */
function eventLimitProblems(policy: Policy, site: ProblemSite): PolicyProblem[] {
  const event = policy.maxEventBytes;
  const message = policy.maxMessageBytes ?? POLICY_DEFAULTS.maxMessageBytes;
  // Checked only when both are valid on their own (the schema reports the others).
  const valid = (n: unknown) =>
    Number.isSafeInteger(n) && (n as number) >= 1024 && (n as number) <= 268_435_456;
  if (event === undefined || !valid(event) || !valid(message) || event <= message) return [];
  return [{
    ...site,
    path: "maxEventBytes",
    message: `"maxEventBytes" (${event}) must not exceed "maxMessageBytes" (${message})`,
  }];
}

function serverIdOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const server = (input as { server?: unknown }).server;
  return typeof server === "string" && SERVER_ID.test(server) ? server : undefined;
}

/**
 * Compiles a rate as a policy writes it (`per` a duration) into the token bucket's milliseconds.
 *
 * @param option A valid rate, e.g. `{ rate: 50, per: "1s", burst: 100 }`.
 * @returns The frozen rate.
 * @example
 * ```ts
 * import { compileRate } from "./compile-policy.ts";
 * console.log(compileRate({ rate: 50, per: "1s", burst: 100 })); // { rate: 50, perMs: 1000, burst: 100 }
 * ```
 */
export function compileRate(option: RateOption): CompiledRate {
  return Object.freeze({ rate: option.rate, perMs: parseDuration(option.per) ?? 0, burst: option.burst });
}

/** A duration the policy set, else its default, at most `atMost` (a default only). */
const ms = (duration: string | undefined, fallback: string, atMost = Infinity): number =>
  duration === undefined ? Math.min(parseDuration(fallback) ?? 0, atMost) : parseDuration(duration) ?? 0;

function resolve(policy: Policy, source: string | undefined): CompiledPolicy {
  const d = POLICY_DEFAULTS;
  const totalMs = ms(policy.maxTotalTimeout, d.maxTotalTimeout);
  const maxMessageBytes = policy.maxMessageBytes ?? d.maxMessageBytes;
  const sampling = policy.sampling === false ? undefined : policy.sampling ?? {};
  const elicitation = policy.elicitation === false ? undefined : policy.elicitation ?? {};
  const transport = resolveTransport(policy.transport);
  return deepFreeze({
    source,
    server: policy.server,
    transport,
    era: policy.era ?? d.era,
    sampling: {
      enabled: sampling !== undefined,
      maxTokens: sampling?.maxTokens ?? d.sampling.maxTokens,
      context: sampling?.context ?? d.sampling.context,
      allowIdle: sampling?.allowIdle ?? d.sampling.allowIdle,
      maxToolIterations: sampling?.maxToolIterations ?? d.sampling.maxToolIterations,
      rejectionCode: sampling?.rejectionCode ?? d.sampling.rejectionCode,
      tools: sampling?.tools ?? d.sampling.tools,
    },
    elicitation: {
      enabled: elicitation !== undefined,
      modes: [...new Set(elicitation?.modes ?? d.elicitation.modes)],
      // The schema took it as an origin in any case: compared in the URL's own (lower) case.
      origin: (elicitation?.origin === undefined ? undefined : new URL(elicitation.origin).origin) ??
        (transport.kind === "http" ? transport.origin : undefined),
      allowHosts: elicitation?.allowHosts === undefined ? undefined : [...elicitation.allowHosts],
      denyHosts: [...(elicitation?.denyHosts ?? [])],
      allowIpHosts: elicitation?.allowIpHosts ?? d.elicitation.allowIpHosts,
      allowPrivateHosts: elicitation?.allowPrivateHosts ?? d.elicitation.allowPrivateHosts,
      maxUrlLength: elicitation?.maxUrlLength ?? d.elicitation.maxUrlLength,
      maxFields: elicitation?.maxFields ?? d.elicitation.maxFields,
      maxEnumValues: elicitation?.maxEnumValues ?? d.elicitation.maxEnumValues,
    },
    roots: { enabled: policy.roots ?? d.roots },
    inputRateLimit: compileRate(policy.inputRateLimit ?? d.inputRateLimit),
    logRateLimit: compileRate(policy.logRateLimit ?? d.logRateLimit),
    logLevel: policy.logLevel ?? d.logLevel,
    rateLimitFailOpen: policy.rateLimitFailOpen ?? d.rateLimitFailOpen,
    handlerTimeoutMs: {
      elicitation: ms(policy.handlerTimeout?.elicitation, d.handlerTimeout.elicitation, totalMs),
      default: ms(policy.handlerTimeout?.default, d.handlerTimeout.default, totalMs),
    },
    callTimeoutMs: ms(policy.callTimeout, d.callTimeout, totalMs),
    maxTotalTimeoutMs: totalMs,
    maxServerRequests: policy.maxServerRequests ?? d.maxServerRequests,
    maxRounds: policy.maxRounds ?? d.maxRounds,
    maxMessageBytes,
    maxEventBytes: policy.maxEventBytes ?? Math.min(d.maxEventBytes, maxMessageBytes),
    maxInputRequests: policy.maxInputRequests ?? d.maxInputRequests,
    maxJsonDepth: policy.maxJsonDepth ?? d.maxJsonDepth,
    maxWaitingNotifications: policy.maxWaitingNotifications ?? d.maxWaitingNotifications,
    passDown: [...new Set(policy.passDown ?? d.passDown)],
    stateTtlMs: ms(policy.stateTtl, d.stateTtl),
    maxSessions: policy.maxSessions ?? d.maxSessions,
    sessionIdleTimeoutMs: ms(policy.sessionIdleTimeout, d.sessionIdleTimeout),
    access: policy.access?.map((rule) => ({
      subjects: rule.subjects === undefined ? undefined : new Set(rule.subjects),
      scopes: [...(rule.scopes ?? [])],
      tools: rule.tools === undefined || rule.tools === "*" ? "*" as const : new Set(rule.tools),
    })),
  });
}

function resolveTransport(transport: Policy["transport"]): CompiledHttpTransport | CompiledStdioTransport {
  // As transportKindOf() tells it: `{ url, command: undefined }` is HTTP.
  if ("command" in transport && transport.command !== undefined) {
    return {
      kind: "stdio",
      command: transport.command,
      args: [...(transport.args ?? [])],
      env: { ...transport.env },
      cwd: transport.cwd,
    };
  }
  const { url, headers, redirect, allowHttp, auth } = transport as HttpTransport;
  const parsed = new URL(url);
  return {
    kind: "http",
    url: parsed.href,
    origin: parsed.origin,
    headers: { ...headers },
    redirect: redirect ?? "same-origin",
    allowHttp: allowHttp ?? false,
    ...auth === undefined ? {} : { auth: resolveAuth(auth) },
  };
}

function resolveAuth(auth: UpstreamAuth): CompiledUpstreamAuth {
  if (auth.oauth !== undefined) {
    const { clientId, issuer, clientSecretEnv, tokenEndpointAuthMethod, clientMetadataUrl, scopes } =
      auth.oauth;
    return {
      kind: "authorization_code",
      scopes: [...scopes ?? []],
      client: clientId === undefined
        ? undefined
        : { clientId, issuer: issuer ?? "", secretEnv: clientSecretEnv, method: tokenEndpointAuthMethod },
      clientMetadataUrl,
    };
  }
  const { clientId, clientSecretEnv, privateKeyEnv, algorithm, scopes } = auth.clientCredentials;
  return {
    kind: "client_credentials",
    clientId,
    credential: privateKeyEnv === undefined
      ? { kind: "secret", env: clientSecretEnv ?? "" }
      : { kind: "private_key", env: privateKeyEnv, algorithm: algorithm ?? "ES256" },
    scopes: [...scopes ?? []],
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
