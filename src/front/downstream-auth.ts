/**
 * Who may call the gateway: its `auth` option, which turns each request into a
 * {@linkcode Principal} or a refusal, before the body is read.
 *
 * - `{ bearer: [...] }`: static secrets, each naming its subject and scopes. Presented tokens are
 *   compared as SHA-256 digests in constant time, never as strings; list the old and the new
 *   secret of a subject together while rotating.
 * - `{ jwt: {...} }`: OAuth 2.1 access tokens as JWTs, verified with `jose` against a JWKS URL or
 *   fixed keys: signature, `iss`, `aud` (by default this endpoint's resource URL,
 *   `<gateway>/mcp/<server>`, or the gateway's own URL; scheme and host in any case, as RFC 3986
 *   has them), `exp`/`nbf`, and the scopes every request needs. The gateway is then an OAuth
 *   protected resource as the MCP authorization spec has it: it serves its RFC 9728 metadata at
 *   `/.well-known/oauth-protected-resource/mcp/<server>` (and at the root for the gateway as a
 *   whole), and answers `401` with `WWW-Authenticate: Bearer resource_metadata="…"` and
 *   `403 insufficient_scope` naming the scopes needed, so a host finds its authorization server by
 *   itself. A verified token is remembered until its `exp` (the last 1000). A JWKS is
 *   fetched again once a minute old, and for a key it lacks at most every 5 seconds: a withdrawn
 *   key stops new tokens within a minute (tokens already verified last to their `exp`). While it
 *   cannot be fetched (or is not a key set), new tokens are answered `503` (`Retry-After: 5`).
 * - a function `(request) => principal | Response`: anything else (a reverse proxy's header,
 *   Cloudflare Access, mTLS). A `Response` is sent as it is.
 * - `"none"`: everyone is let in, without a principal. Say it explicitly: the entries that can be
 *   reached from the network refuse to start without an `auth`.
 *
 * Tokens are taken from the `Authorization: Bearer` header only, never from the URL, and never
 * appear in an answer or a log.
 *
 * @module
 */
import { createLocalJWKSet, createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import type { JWK } from "jose";
import { encodeError, type RequestId } from "../protocol/jsonrpc.ts";
import type { Principal } from "./principal.ts";
import { checkOptionKeys } from "../_internal/suggest.ts";
import { MAKE_A_KEY, secretKeyProblem } from "../_internal/secret-key.ts";
import type { Clock } from "../_internal/clock.ts";
import { sameBytes, sha256 } from "../_internal/sha256.ts";

/** A static bearer secret and the caller it stands for. */
export interface BearerSecret {
  /** The secret (at least 32 random bytes, e.g. `openssl rand -base64 32`). */
  readonly secret: string;
  /** Who presents it (`ctx.principal.subject`). Give the old and new secret one subject while rotating. */
  readonly subject: string;
  /** The scopes it grants. @default [] */
  readonly scopes?: readonly string[] | undefined;
}

/** How JWT access tokens are verified. */
export interface JwtAuthOptions {
  /** The authorization server's issuer: the `iss` every token must carry, exactly. */
  readonly issuer: string;
  /** The URL of the issuer's JWKS (`jwks_uri`). One of `jwks` and `keys` is required. */
  readonly jwks?: string | undefined;
  /** The issuer's public keys, when they are fixed. */
  readonly keys?: readonly JWK[] | undefined;
  /**
   * The `aud` a token must name. @default this endpoint's resource URL (`<gateway>/mcp/<server>`)
   *   or the gateway's own URL
   */
  readonly audience?: string | readonly string[] | undefined;
  /** Scopes every request needs (and the metadata's `scopes_supported`). @default [] */
  readonly scopes?: readonly string[] | undefined;
  /** The `authorization_servers` the metadata names. @default [issuer] */
  readonly authorizationServers?: readonly string[] | undefined;
  /** Signature algorithms accepted. @default the asymmetric ones: RS256, PS256, ES256, ES384, EdDSA */
  readonly algorithms?: readonly string[] | undefined;
}

/** What a custom `auth` function may return for a caller it admits. */
export interface PrincipalInput {
  /** Who the caller is (a non-empty string). */
  readonly subject: string;
  /** Its scopes. @default [] */
  readonly scopes?: readonly string[] | undefined;
  /** Anything else known about it, for handlers (`ctx.principal.claims`). @default {} */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A custom `auth`: the caller's principal, or the `Response` to refuse it with. When it throws,
 * or answers what is no principal, the caller is answered `500` with JSON-RPC `-32603` and the
 * error goes to `console.error`.
 */
export type AuthFunction = (
  request: Request,
) => PrincipalInput | Response | Promise<PrincipalInput | Response>;

/** Who may call the gateway (see the module docs). */
export type GatewayAuth =
  | "none"
  | { readonly bearer: readonly BearerSecret[] }
  | { readonly jwt: JwtAuthOptions }
  | AuthFunction;

/** What a request is authenticated against. */
export interface ResourceTarget {
  /** The gateway's public URL, without a trailing slash: `https://gate.example.com`. */
  readonly base: string;
  /** The server of the endpoint (`/mcp/<server>`); absent for gateway-wide routes (`/servers`). */
  readonly serverId?: string | undefined;
}

/** A checked `auth` option. */
export interface DownstreamAuth {
  /**
   * Authenticates one request.
   *
   * @returns The principal; `undefined` with `auth: "none"`; or the refusal to send.
   */
  authenticate(request: Request, target: ResourceTarget): Promise<Principal | Response | undefined>;
  /**
   * The protected resource metadata (RFC 9728) of a target, or `undefined` when this `auth` has
   * no authorization server (bearer secrets, functions, none).
   */
  metadata(target: ResourceTarget): Record<string, unknown> | undefined;
  /**
   * The `403 insufficient_scope` answer for a caller that lacks `scopes` (a policy's `access`),
   * to the request `id` when it was read.
   */
  insufficientScope(
    target: ResourceTarget,
    scopes: readonly string[],
    message: string,
    id?: RequestId | null,
  ): Response;
}

/** RFC 6750's `b64token`: the characters of a bearer token. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "ES384", "EdDSA"];
/**
 * How fresh a fetched JWKS is kept, tighter than jose's defaults (10 minutes, 30 seconds): a
 * withdrawn key is often a leaked one; tokens naming keys the set lacks cannot make the gateway
 * fetch it more often than every 5 seconds.
 */
const JWKS_FRESHNESS = { cacheMaxAge: 60_000, cooldownDuration: 5_000 };

/** What {@linkcode downstreamAuth} names in its errors, and the time JWTs are checked at. */
export interface AuthSetting {
  /** The function to name in errors: `createFront()`. */
  readonly who: string;
  /** The clock a JWT's `exp` and `nbf` are checked by, and a remembered token expires by. */
  readonly clock: Clock;
}

/**
 * Checks an `auth` option and prepares it (digests of the secrets, the key set).
 *
 * @param auth The option.
 * @param setting The function to name in errors, and the clock.
 * @returns The prepared authentication.
 * @throws {TypeError} When the option is not one of the forms of {@linkcode GatewayAuth}, or a
 *   secret is weak, or a JWT option is missing or malformed.
 * @example
 * ```ts
 * import { downstreamAuth } from "./downstream-auth.ts";
 * import { systemClock } from "../_internal/clock.ts";
 * const secret = crypto.randomUUID() + crypto.randomUUID();
 * const auth = downstreamAuth({ bearer: [{ secret, subject: "ci" }] }, { who: "createFront()", clock: systemClock });
 * const request = new Request("http://127.0.0.1/mcp/files", { headers: { authorization: `Bearer ${secret}` } });
 * const principal = await auth.authenticate(request, { base: "http://127.0.0.1", serverId: "files" });
 * console.log(principal); // { subject: "ci", scopes: [], claims: {} }
 * ```
 */
export function downstreamAuth(auth: unknown, setting: AuthSetting): DownstreamAuth {
  const { who } = setting;
  if (auth === "none") return NONE;
  if (typeof auth === "function") return functionAuth(auth as AuthFunction, who);
  if (typeof auth === "object" && auth !== null && !Array.isArray(auth)) {
    const keys = Object.keys(auth);
    if (keys.length === 1 && keys[0] === "bearer") {
      return bearerAuth((auth as { bearer: unknown }).bearer, who);
    }
    if (keys.length === 1 && keys[0] === "jwt") return jwtAuth((auth as { jwt: unknown }).jwt, setting);
    // A misspelt kind is named (`Bearer`, `jwts`), and two kinds are one too many.
    checkOptionKeys(auth, ["bearer", "jwt"], who, "auth.");
    if (keys.length > 1) {
      throw new TypeError(`${who}: "auth" takes one of "bearer" and "jwt", received both`);
    }
  }
  throw new TypeError(
    `${who}: "auth" must be "none", { bearer: [...] }, { jwt: {...} } or a function (request) => principal | Response, received ${
      describe(auth)
    }`,
  );
}

/** An `auth` without an authorization server: no metadata, and a `403` that names no metadata. */
const WITHOUT_SERVER: Omit<DownstreamAuth, "authenticate"> = {
  metadata: () => undefined,
  insufficientScope: (_target, scopes, message, id = null) =>
    challenge(403, message, { error: "insufficient_scope", scopes, id }),
};

const NONE: DownstreamAuth = { ...WITHOUT_SERVER, authenticate: () => Promise.resolve(undefined) };

/**
 * What is wrong with a bearer secret, for a message that names where it was given: it must be a
 * state key's worth of random bytes, and made of the characters a bearer token may have.
 *
 * @param secret The secret.
 * @returns The problem, starting with a verb ("must be at least…", "repeats a pattern…"), or
 *   `undefined` when it is a good secret. It never quotes the secret.
 * @example
 * ```ts
 * import { bearerSecretProblem } from "./downstream-auth.ts";
 * console.log(bearerSecretProblem("short")); // 'must be at least 32 bytes of random data, received 5: make one with `openssl rand -base64 32`'
 * console.log(bearerSecretProblem("ci-secret-Zq3Lr8Vw1Xy5Nb7Mk2Pj4Hg6Fd9Sa0Tc")); // undefined
 * ```
 */
export function bearerSecretProblem(secret: unknown): string | undefined {
  const problem = secretKeyProblem(secret);
  if (problem !== undefined) return problem;
  // RFC 6750's token68: what a client can send in "Authorization: Bearer".
  return TOKEN68.test(secret as string)
    ? undefined
    : `must be made of letters, digits and "-._~+/" (with "=" at the end), as a bearer token is: ${MAKE_A_KEY}`;
}

/** The keys of a bearer secret and of the JWT settings. */
const BEARER_KEYS: readonly (keyof BearerSecret)[] = ["secret", "subject", "scopes"];
const JWT_KEYS: readonly (keyof JwtAuthOptions)[] = [
  "issuer",
  "jwks",
  "keys",
  "audience",
  "scopes",
  "authorizationServers",
  "algorithms",
];

function bearerAuth(value: unknown, who: string): DownstreamAuth {
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError(`${who}: "auth.bearer" must be a non-empty array of { secret, subject, scopes? }`);
  }
  const entries = value.map((entry: unknown, index) => {
    const at = (field?: string) => `${who}: "auth.bearer[${index}]${field === undefined ? "" : `.${field}`}"`;
    if (typeof entry !== "object" || entry === null) {
      throw new TypeError(`${at()} must be { secret, subject, scopes? }, received ${describe(entry)}`);
    }
    checkOptionKeys(entry, BEARER_KEYS, who, `auth.bearer[${index}].`);
    const { secret, subject, scopes } = entry as Partial<BearerSecret>;
    const problem = bearerSecretProblem(secret);
    if (problem !== undefined) throw new TypeError(`${at("secret")} ${problem}`);
    // The first entry a token matches is its principal: a secret given twice never reaches the
    // second (a copy made for another subject or scopes that would never apply).
    const first = value.findIndex((other) => (other as Partial<BearerSecret>).secret === secret);
    if (first !== index) {
      throw new TypeError(
        `${at("secret")} is the secret of "auth.bearer[${first}]": give each subject its own`,
      );
    }
    return {
      digest: sha256(secret as string),
      principal: Object.freeze({
        subject: subjectOf(subject, at("subject")),
        scopes: Object.freeze(scopesOf(scopes, at("scopes"))),
        claims: Object.freeze({}),
      }),
    };
  });
  return {
    ...WITHOUT_SERVER,
    async authenticate(request) {
      const token = bearerToken(request);
      if (token === undefined) return challenge(401, "Unauthorized: send Authorization: Bearer <secret>", {});
      if (token === null) return challenge(400, MALFORMED_MESSAGE, MALFORMED);
      const presented = await sha256(token);
      let found: Principal | undefined;
      for (const entry of entries) {
        // Every entry is compared, whichever matches, so the time taken tells nothing.
        if (sameBytes(await entry.digest, presented) && found === undefined) found = entry.principal;
      }
      return found ?? challenge(401, "Unauthorized: the bearer token is not one this gateway accepts", {
        error: "invalid_token",
        description: "The token is not one this gateway accepts",
      });
    },
  };
}

function jwtAuth(value: unknown, setting: AuthSetting): DownstreamAuth {
  const { who, clock } = setting;
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `${who}: "auth.jwt" must be { issuer, jwks | keys, audience?, scopes? }, received ${describe(value)}`,
    );
  }
  checkOptionKeys(value, JWT_KEYS, who, "auth.jwt.");
  const options = value as Partial<JwtAuthOptions>;
  const issuer = urlOf(options.issuer, `${who}: "auth.jwt.issuer"`);
  if ((options.jwks === undefined) === (options.keys === undefined)) {
    throw new TypeError(
      `${who}: "auth.jwt" needs exactly one of "jwks" (the JWKS URL) and "keys" (public JWKs)`,
    );
  }
  const remote = options.jwks === undefined
    ? undefined
    : createRemoteJWKSet(new URL(httpUrlOf(options.jwks, `${who}: "auth.jwt.jwks"`)), JWKS_FRESHNESS);
  const keySet = remote ?? createLocalJWKSet({ keys: keysOf(options.keys, `${who}: "auth.jwt.keys"`) });
  const audience = options.audience === undefined ? undefined : nonEmpty(
    typeof options.audience === "string"
      ? [subjectOf(options.audience, `${who}: "auth.jwt.audience"`)]
      : scopesOf(options.audience, `${who}: "auth.jwt.audience"`),
    `${who}: "auth.jwt.audience"`,
    "no token could be taken",
  ).map(comparable);
  const scopes = scopesOf(options.scopes, `${who}: "auth.jwt.scopes"`);
  const servers = options.authorizationServers === undefined
    ? [issuer]
    : scopesOf(options.authorizationServers, `${who}: "auth.jwt.authorizationServers"`);
  const algorithms = options.algorithms === undefined
    ? DEFAULT_ALGORITHMS
    : algorithmsOf(options.algorithms, `${who}: "auth.jwt.algorithms"`);
  const metadataUrl = (target: ResourceTarget) =>
    `${target.base}/.well-known/oauth-protected-resource${
      target.serverId === undefined ? "" : `/mcp/${target.serverId}`
    }`;
  // Hosts send the same token with every request, and its signature check is the costliest step
  // of authentication (bench/RESULTS.md, "Measured by hand").
  const verified = new Map<string, { readonly principal: Principal; readonly expiresAt: number }>();
  const refuse = (status: 400 | 401 | 403, target: ResourceTarget, message: string, extra: ChallengeParts) =>
    challenge(status, message, { ...extra, metadata: metadataUrl(target), scopes: extra.scopes ?? scopes });
  const invalidToken = (target: ResourceTarget, description: string) =>
    refuse(401, target, `Unauthorized: ${lower(description)}`, { error: "invalid_token", description });
  // No new token is verified until the keys come back: the operator is told, at most once a minute.
  let keysLoggedAt = -Infinity;
  let keysFailedAt = -Infinity;
  const keysUnfetched = (error: unknown) => {
    keysFailedAt = clock.now();
    if (clock.now() - keysLoggedAt >= 60_000) {
      keysLoggedAt = clock.now();
      console.error(
        `sluice: ${lower(KEYS_UNFETCHED)}, so new tokens are answered 503 until they are:`,
        error,
      );
    }
    return keysUnavailable();
  };
  return {
    async authenticate(request, target) {
      const token = bearerToken(request);
      if (token === undefined) {
        return refuse(
          401,
          target,
          "Unauthorized: this gateway needs an OAuth access token (Authorization: Bearer)",
          {},
        );
      }
      // Malformed Bearer credentials: 400 (RFC 6750), the challenge still pointing at the metadata.
      if (token === null) return refuse(400, target, MALFORMED_MESSAGE, MALFORMED);
      const cacheKey = `${audience === undefined ? resourcesOf(target)[0] : ""} ${token}`;
      const known = verified.get(cacheKey);
      if (known !== undefined && clock.now() < known.expiresAt) return known.principal;
      verified.delete(cacheKey);
      // jose fetches an unheld set for every token: after a failed try, only once the 503's
      // Retry-After has passed, so a flood of tokens is no flood of requests to a failing server.
      if (remote !== undefined && !remote.fresh && clock.now() - keysFailedAt < KEYS_RETRY_MS) {
        return keysUnavailable();
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySet, {
          issuer,
          algorithms: [...algorithms],
          requiredClaims: ["exp", "sub", "aud"],
          currentDate: new Date(clock.now()),
        }));
      } catch (error) {
        const problem = tokenProblem(error);
        return problem === KEYS_UNFETCHED ? keysUnfetched(error) : invalidToken(target, problem);
      }
      // Compared here, not by jose, which compares whole strings: a scheme or host in upper case
      // names the same resource (RFC 3986), and the MCP spec asks a server to accept it.
      const accepted = audience ?? resourcesOf(target).map(comparable);
      if (
        ![payload.aud].flat().some((aud) => typeof aud === "string" && accepted.includes(comparable(aud)))
      ) {
        return invalidToken(target, "The token was not issued for this resource (aud)");
      }
      if (typeof payload.sub !== "string" || payload.sub === "") {
        return invalidToken(target, "The token's sub claim is not a non-empty string");
      }
      const granted = grantedScopes(payload);
      const missing = scopes.filter((scope) => !granted.includes(scope));
      if (missing.length > 0) {
        return refuse(
          403,
          target,
          `Forbidden: the token lacks the scope ${missing.map((s) => JSON.stringify(s)).join(", ")}`,
          {
            error: "insufficient_scope",
            description: `The token lacks the scope ${missing.join(" ")}`,
          },
        );
      }
      const principal: Principal = Object.freeze({
        subject: payload.sub,
        scopes: Object.freeze(granted),
        claims: Object.freeze({ ...payload }),
      });
      if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value as string);
      verified.set(cacheKey, { principal, expiresAt: (payload.exp as number) * 1000 });
      return principal;
    },
    metadata(target) {
      return {
        resource: resourcesOf(target)[0],
        authorization_servers: [...servers],
        ...(scopes.length === 0 ? {} : { scopes_supported: [...scopes] }),
        bearer_methods_supported: ["header"],
        resource_name: target.serverId === undefined ? "sluice gateway" : `sluice: ${target.serverId}`,
      };
    },
    insufficientScope: (target, needed, message, id) =>
      refuse(403, target, message, {
        error: "insufficient_scope",
        description: `The token lacks the scope ${needed.join(" ")}`,
        scopes: [...new Set([...scopes, ...needed])],
        id,
      }),
  };
}

function functionAuth(fn: AuthFunction, who: string): DownstreamAuth {
  const principalOf = async (request: Request): Promise<Principal | Response> => {
    const outcome = await fn(request);
    if (outcome instanceof Response) return outcome;
    if (typeof outcome !== "object" || outcome === null) {
      throw new TypeError(
        `${who}: the "auth" function must return a principal { subject } or a Response, received ${
          describe(outcome)
        }`,
      );
    }
    if (!("subject" in outcome) && ("bearer" in outcome || "jwt" in outcome)) {
      // The shape createWorker takes, (env) => setting, given where a setting itself is meant.
      throw new TypeError(
        `${who}: the "auth" function returned an auth setting ({ ${
          "bearer" in outcome ? "bearer" : "jwt"
        } }), where it must return the caller's principal { subject } or a Response: give the setting itself as "auth" (or as the default export of an --auth module)`,
      );
    }
    return Object.freeze({
      subject: subjectOf(outcome.subject, `${who}: the "auth" function's subject`),
      scopes: Object.freeze(scopesOf(outcome.scopes, `${who}: the "auth" function's scopes`)),
      claims: Object.freeze({ ...(outcome.claims ?? {}) }),
    });
  };
  return {
    ...WITHOUT_SERVER,
    async authenticate(request) {
      try {
        return await principalOf(request);
      } catch (error) {
        // The operator's function failed (or answered what is no principal): the operator is told
        // why, where they look; the caller only that it could not be let in, in JSON-RPC.
        console.error(`${who}: the "auth" function failed, so the request was answered 500:`, error);
        return new Response(
          JSON.stringify(encodeError(null, {
            code: -32603,
            message: "Internal error: the gateway could not authenticate this request",
          })),
          { status: 500, headers: { "content-type": "application/json" } },
        );
      }
    },
  };
}

/** The resource URLs a token may name: this endpoint's, then the gateway's. */
function resourcesOf(target: ResourceTarget): string[] {
  return target.serverId === undefined
    ? [target.base]
    : [`${target.base}/mcp/${target.serverId}`, target.base];
}

/**
 * A URI as `aud` is compared: as WHATWG URL writes it (scheme and host in lower case, a default
 * port dropped, the path as written), so equivalent forms of one resource match; text that is not
 * a URL as it is.
 */
function comparable(uri: string): string {
  try {
    return new URL(uri).href;
  } catch {
    return uri;
  }
}

/**
 * The bearer token of a request; `undefined` when it has none (no Authorization header, or one of
 * another scheme: RFC 6750 answers such a request as one without credentials, with no error
 * code); `null` when its Bearer credentials are malformed (`400`, `invalid_request`).
 */
function bearerToken(request: Request): string | null | undefined {
  const header = request.headers.get("authorization");
  if (header === null || !/^Bearer(?: |$)/i.test(header)) return undefined;
  const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
  return token !== undefined && TOKEN68.test(token) ? token : null;
}

const MALFORMED_MESSAGE = 'Unauthorized: the Authorization header must be "Bearer <token>"';
const MALFORMED: ChallengeParts = {
  error: "invalid_request",
  description: "The Authorization header must be Bearer <token>",
};

interface ChallengeParts {
  readonly error?: "invalid_token" | "invalid_request" | "insufficient_scope";
  readonly description?: string;
  readonly scopes?: readonly string[];
  readonly metadata?: string;
  /** The request's id, when it was read (a refusal at the gate has none). */
  readonly id?: RequestId | null | undefined;
}

/** A `400`/`401`/`403` with its `WWW-Authenticate` challenge (RFC 6750, RFC 9728) and a JSON-RPC error. */
function challenge(status: 400 | 401 | 403, message: string, parts: ChallengeParts): Response {
  const params: string[] = [];
  if (parts.error !== undefined) params.push(`error="${parts.error}"`);
  if (parts.description !== undefined) {
    params.push(`error_description="${parts.description.replace(/["\\]/g, "'")}"`);
  }
  if (parts.scopes !== undefined && parts.scopes.length > 0) params.push(`scope="${parts.scopes.join(" ")}"`);
  if (parts.metadata !== undefined) params.push(`resource_metadata="${parts.metadata}"`);
  return new Response(JSON.stringify(encodeError(parts.id ?? null, { code: -32000, message })), {
    status,
    headers: {
      "content-type": "application/json",
      "www-authenticate": params.length === 0 ? "Bearer" : `Bearer ${params.join(", ")}`,
    },
  });
}

const KEYS_UNFETCHED = "The authorization server's keys could not be fetched or read";

/** How long after a failed try the keys are fetched again for a new token: the 503's `Retry-After`. */
const KEYS_RETRY_MS = 5_000;

/**
 * The answer while the JWKS cannot be fetched: `503`, not `401 invalid_token`, which a host takes
 * as its token being bad and so signs its person in again, in vain.
 */
function keysUnavailable(): Response {
  const message = `Service unavailable: ${
    lower(KEYS_UNFETCHED)
  }, so the token cannot be verified; try again later`;
  return new Response(JSON.stringify(encodeError(null, { code: -32000, message })), {
    status: 503,
    headers: { "content-type": "application/json", "retry-after": String(KEYS_RETRY_MS / 1000) },
  });
}

/** What was wrong with a token, for `error_description` (never the token itself). */
function tokenProblem(error: unknown): string {
  const { code, claim, reason } = error as { code?: unknown; claim?: string; reason?: string };
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "The token has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (reason === "missing" && claim !== undefined) return `The token has no ${claim} claim`;
      return claim === "aud"
        ? "The token was not issued for this resource (aud)"
        : claim === "iss"
        ? "The token was not issued by this gateway's authorization server (iss)"
        : `The token's ${claim ?? "claims"} claim is not valid`;
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "The token was signed with a key the authorization server does not publish";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "The token's signature is not valid";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "The token's signature algorithm is not accepted";
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
    case "ERR_JOSE_GENERIC":
      return KEYS_UNFETCHED;
    default:
      // Not jose's own error: the JWKS request itself failed (refused, DNS, TLS), or the key it
      // published for the token could not be imported (WebCrypto's DOMException: a number code).
      return typeof code !== "string" || !code.startsWith("ERR_J")
        ? KEYS_UNFETCHED
        : "The token is not a valid access token";
  }
}

/** The scopes a JWT grants: `scope` (space-separated, RFC 9068) or `scp` (an array or a string). */
function grantedScopes(payload: JWTPayload): string[] {
  const value = payload["scope"] ?? payload["scp"];
  if (typeof value === "string") return value.split(" ").filter((s) => s !== "");
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string");
  return [];
}

/** The most verified tokens remembered; past it the oldest is forgotten. */
const MAX_VERIFIED = 1000;

/** A description as it reads after "Unauthorized: ". */
function lower(description: string): string {
  return description.charAt(0).toLowerCase() + description.slice(1);
}

function subjectOf(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${what} must be a non-empty string, received ${describe(value)}`);
  }
  return value;
}

function scopesOf(value: unknown, what: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((s) => typeof s !== "string" || s === "" || /\s/.test(s))) {
    throw new TypeError(
      `${what} must be an array of non-empty strings without spaces, received ${describe(value)}`,
    );
  }
  return [...value];
}

function urlOf(value: unknown, what: string): string {
  if (typeof value === "string" && URL.canParse(value)) return value;
  throw new TypeError(`${what} must be an absolute URL, received ${describe(value)}`);
}

function httpUrlOf(value: unknown, what: string): string {
  if (typeof value === "string" && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)) {
    return value;
  }
  throw new TypeError(`${what} must be an http(s) URL, received ${describe(value)}`);
}

/** A list that must hold something, or the setting refuses every token. */
function nonEmpty<T>(list: T[], what: string, consequence: string): T[] {
  if (list.length === 0) throw new TypeError(`${what} must not be empty: ${consequence}`);
  return list;
}

/** The public keys of `keys`: JWKs, each with a `kty` (jose refuses the set as a whole otherwise). */
function keysOf(value: unknown, what: string): JWK[] {
  if (!Array.isArray(value) || value.some((key) => typeof key?.kty !== "string")) {
    throw new TypeError(
      `${what} must be an array of public JWKs, each with "kty", received ${describe(value)}`,
    );
  }
  return nonEmpty([...value] as JWK[], what, "no token could be verified");
}

/** The signature algorithms of public keys, as jose verifies them: never "none", nor a shared secret. */
const ASYMMETRIC = new Set([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);

function algorithmsOf(value: unknown, what: string): string[] {
  const list = nonEmpty(scopesOf(value, what), what, "no token could be verified");
  const other = list.find((name) => !ASYMMETRIC.has(name));
  if (other !== undefined) {
    throw new TypeError(
      `${what} must name public-key algorithms (${[...ASYMMETRIC].join(", ")}), received ${
        JSON.stringify(other.slice(0, 64))
      }`,
    );
  }
  return list;
}

function describe(value: unknown): string {
  return typeof value === "string"
    ? JSON.stringify(value.slice(0, 64))
    : Array.isArray(value)
    ? "an array"
    : `"${typeof value}"`;
}
