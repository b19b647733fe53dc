/**
 * A real OAuth 2.1 authorization server for tests: `oidc-provider` on a free loopback port, set up
 * so an MCP host can use it by itself. It publishes its metadata at both
 * `/.well-known/oauth-authorization-server` (RFC 8414, what MCP hosts try first) and
 * `/.well-known/openid-configuration`, lets clients register themselves (RFC 7591, open dynamic
 * registration), requires PKCE with `S256`, answers with `iss` (RFC 9207), and issues JWT access
 * tokens (RFC 9068, `typ: at+jwt`, RS256, signed with the key published at `jwks_uri`) whose `aud`
 * is the requested `resource` (RFC 8707) and whose `scope` is what was asked for among the
 * configured scopes.
 *
 * No person takes part: the interaction pages log one fixed user in and consent to everything the
 * request asks for, and {@linkcode AuthorizationServer.authorize} drives an authorization URL
 * headlessly (a small user agent with a cookie jar) up to the redirect to the client.
 * {@linkcode AuthorizationServer.issueToken} runs the whole flow itself (registration,
 * authorization code with PKCE, token request) for a chosen resource, scope and lifetime, to make
 * the tokens a negative test needs (another audience, expired, without a scope) the way a real
 * host would get them.
 *
 * Plain `http` on 127.0.0.1 needs no special setting: oidc-provider accepts an `http` issuer, and
 * a client whose `application_type` is `native` (what hosts register for a loopback redirect) may
 * use `http` redirect URIs on loopback addresses. Client ID Metadata Documents are not offered:
 * hosts only use them with an `https` client id, so hosts register dynamically here.
 *
 * oidc-provider prints two warnings when it starts, which are expected here: it wants Node 22
 * (it runs on Node 20 as tested), and it keeps its state in memory (what a test wants).
 *
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, type JWK, type JWTPayload } from "jose";

/** Options of {@linkcode startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /**
   * The scopes the server knows and grants (to any resource), listed in its metadata's
   * `scopes_supported` along with `openid` and `offline_access`.
   * @default ["mcp:tools"]
   */
  readonly scopes?: readonly string[];
  /**
   * How long access tokens live, in seconds (a positive integer); `issueToken()` may ask for
   * another lifetime.
   * @default 300
   */
  readonly accessTokenTtl?: number;
  /** The user who logs in, and consents, at every authorization: the tokens' `sub`. @default "alice" */
  readonly subject?: string;
  /**
   * Pre-registered confidential clients allowed the client credentials grant (machine to
   * machine), each with every configured scope. The grant is enabled only when this is given.
   * @default []
   */
  readonly clients?: readonly ConfidentialClient[];
}

/**
 * A pre-registered confidential client (see {@linkcode AuthorizationServerOptions.clients}): with
 * a secret (`client_secret_basic`) or a public key (`private_key_jwt`).
 */
export type ConfidentialClient =
  | {
    /** Its `client_id`: the `sub` of its tokens. */
    readonly clientId: string;
    /** Its secret, for `client_secret_basic`. */
    readonly clientSecret: string;
  }
  | {
    /** Its `client_id`: the `sub` of its tokens. */
    readonly clientId: string;
    /** The public key its assertions are verified with, for `private_key_jwt`. */
    readonly publicKey: JWK;
  };

/** What {@linkcode AuthorizationServer.issueToken} asks for. */
export interface TokenRequest {
  /** The `resource` (RFC 8707) sent in the authorization and token requests: the token's `aud`. */
  readonly resource: string;
  /**
   * The `scope` asked for (space-separated), among the configured scopes: an authorization that
   * would grant none is refused (`access_denied`), as oidc-provider does.
   * @default every configured scope
   */
  readonly scope?: string;
  /** The access token's lifetime in seconds. @default the server's `accessTokenTtl` */
  readonly accessTokenTtl?: number;
  /** The user who logs in and consents this time: the token's `sub`. @default the server's `subject` */
  readonly subject?: string;
}

/** An access token {@linkcode AuthorizationServer.issueToken} obtained, and its decoded claims. */
export interface IssuedToken {
  /** The JWT, as sent in `Authorization: Bearer`. */
  readonly accessToken: string;
  /** Its payload (not verified: the server just signed it): `iss`, `aud`, `sub`, `scope`, `exp`… */
  readonly claims: JWTPayload;
}

/** A running authorization server. */
export interface AuthorizationServer {
  /** The issuer identifier, `http://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  /** Where its signing keys are published: `<issuer>/jwks`. */
  readonly jwksUri: string;
  /**
   * Follows an authorization URL as a browser would (a fresh cookie jar each time), the fixed
   * user logging in and consenting on the way, until the server redirects off itself.
   *
   * @param url An authorization request URL of this server (`<issuer>/auth?…`).
   * @param subject Who logs in this time (one authorization at a time). @default the server's `subject`
   * @returns The redirect to the client: `code`, `state` and `iss` in its query (or `error`).
   * @throws {Error} When a page answers with something other than a redirect.
   */
  authorize(url: string | URL, subject?: string): Promise<URL>;
  /**
   * Gets an access token through the real flow, as a host would: registers a public client, runs
   * the authorization code flow with PKCE for the resource and scope, and redeems the code.
   *
   * @param request The resource, scope, lifetime and user.
   * @returns The access token and its claims.
   * @throws {Error} When a step fails, with the server's answer.
   */
  issueToken(request: TokenRequest): Promise<IssuedToken>;
  /** How many token requests (`POST /token`, any grant) the server has received since it started. */
  tokenRequests(): number;
  /** The form of every token request the server has read since it started, oldest first. */
  tokenForms(): readonly URLSearchParams[];
  /** How many dynamic client registrations (`POST /reg`) the server has received since it started. */
  registrations(): number;
  /** Stops listening and drops open connections; resolves once the server has closed. */
  close(): Promise<void>;
}

/** The parts of oidc-provider's `Provider` used here (the package ships no type declarations). */
interface Provider {
  readonly Grant: GrantConstructor;
  use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
}

/** The part of a request's context the token form is read from (after the provider read the body). */
interface ProviderContext {
  readonly method: string;
  readonly path: string;
  readonly oidc?: { readonly body?: Record<string, string | string[]> };
}

interface GrantConstructor {
  new (init: { accountId: string; clientId: string }): Grant;
  find(id: string): Promise<Grant | undefined>;
}

interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: readonly string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

interface InteractionDetails {
  readonly prompt: {
    readonly name: string;
    readonly details: {
      readonly missingOIDCScope?: readonly string[];
      readonly missingOIDCClaims?: readonly string[];
      readonly missingResourceScopes?: Readonly<Record<string, readonly string[]>>;
    };
  };
  readonly params: { readonly client_id: string };
  readonly session?: { readonly accountId: string };
  readonly grantId?: string;
}

/** The client `issueToken()` registers: where its authorization responses go (never opened). */
const ISSUE_REDIRECT_URI = "http://127.0.0.1/callback";

/** How many redirects `authorize()` follows before it gives up. */
const MAX_HOPS = 10;

// A variable, so the compiler does not look for the type declarations the package lacks.
const OIDC_PROVIDER: string = "oidc-provider";

/**
 * Starts an oidc-provider on 127.0.0.1, on a free port, with a fresh RS256 signing key.
 *
 * @param options Scopes, access-token lifetime, the user.
 * @returns The running server, once it listens.
 * @throws {TypeError} When `accessTokenTtl` is not a positive integer.
 * @example
 * ```ts
 * const as = await startAuthorizationServer({ scopes: ["mcp:tools"], subject: "alice" });
 * const { claims } = await as.issueToken({ resource: "http://127.0.0.1:8787/mcp/files" });
 * console.log(claims.aud, claims.sub, claims.scope); // http://127.0.0.1:8787/mcp/files alice mcp:tools
 * await as.close();
 * ```
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const scopes = [...options.scopes ?? ["mcp:tools"]];
  const accessTokenTtl = positiveTtl(options.accessTokenTtl ?? 300);
  const subject = options.subject ?? "alice";
  const clients = [...options.clients ?? []];
  let tokenRequests = 0;
  const tokenForms: URLSearchParams[] = [];
  let registrations = 0;
  // Lifetimes and users asked for by issueToken(), by the client it registered for the occasion.
  const ttlByClient = new Map<string, number>();
  const subjectByClient = new Map<string, string>();
  /** Who logs in during the authorize() in progress, when it names one. */
  let loggingIn: string | undefined;
  const subjectOf = (clientId: string) => loggingIn ?? subjectByClient.get(clientId) ?? subject;

  const { default: ProviderClass } = await import(OIDC_PROVIDER) as {
    default: new (issuer: string, configuration: Record<string, unknown>) => Provider;
  };
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey: JWK = { ...await exportJWK(privateKey), kid: "as-signing-key", alg: "RS256", use: "sig" };

  // The issuer names the port, so the server listens before the provider exists; nobody knows
  // the port before then, so no request comes in without a handler.
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let provider: Provider;
  try {
    provider = new ProviderClass(
      issuer,
      providerConfiguration({ signingKey, scopes, accessTokenTtl, ttlByClient, clients }),
    );
  } catch (error) {
    server.close();
    throw error;
  }

  // The provider reads the body itself; its parsed form is there once the request is handled.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method === "POST" && ctx.path === "/token") tokenForms.push(formOf(ctx.oidc?.body ?? {}));
  });
  const callback = provider.callback();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "POST" && req.url === "/token") tokenRequests++;
    if (req.method === "POST" && req.url === "/reg") registrations++;
    if (req.method === "GET" && /^\/interaction\/[^/]+$/.test(req.url ?? "")) {
      finishInteraction(provider, req, res, subjectOf).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(String(error));
      });
    } else {
      callback(req, res);
    }
  });

  const close = async (): Promise<void> => {
    const done = once(server, "close");
    server.close();
    server.closeAllConnections();
    await done;
  };
  const authorize = async (url: string | URL, who?: string): Promise<URL> => {
    loggingIn = who;
    try {
      return await followAuthorization(issuer, new URL(url));
    } finally {
      loggingIn = undefined;
    }
  };

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    authorize,
    async issueToken(request) {
      const ttl = request.accessTokenTtl === undefined ? undefined : positiveTtl(request.accessTokenTtl);
      const clientId = await registerClient(issuer);
      if (ttl !== undefined) ttlByClient.set(clientId, ttl);
      if (request.subject !== undefined) subjectByClient.set(clientId, request.subject);
      const verifier = randomBytes(32).toString("base64url");
      const authorization = new URL(`${issuer}/auth`);
      authorization.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: ISSUE_REDIRECT_URI,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        state: randomBytes(8).toString("base64url"),
        resource: request.resource,
        scope: request.scope ?? scopes.join(" "),
      }).toString();
      const redirect = await authorize(authorization);
      const code = redirect.searchParams.get("code");
      if (code === null) throw new Error(`issueToken(): the authorization failed: ${redirect.search}`);
      const accessToken = await redeemCode(issuer, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: ISSUE_REDIRECT_URI,
        client_id: clientId,
        resource: request.resource,
      });
      return { accessToken, claims: decodeJwt(accessToken) };
    },
    tokenRequests: () => tokenRequests,
    tokenForms: () => [...tokenForms],
    registrations: () => registrations,
    close,
  };
}

/** What the provider is configured from. */
interface Settings {
  readonly signingKey: JWK;
  readonly scopes: readonly string[];
  readonly accessTokenTtl: number;
  readonly ttlByClient: ReadonlyMap<string, number>;
  readonly clients: readonly ConfidentialClient[];
}

/** oidc-provider's configuration (the module docs say what each part is for). */
function providerConfiguration(settings: Settings): Record<string, unknown> {
  const { signingKey, scopes, accessTokenTtl, ttlByClient, clients } = settings;
  return {
    jwks: { keys: [signingKey] },
    clients: clients.map((client) => ({
      client_id: client.clientId,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: scopes.join(" "),
      ...("clientSecret" in client
        ? { client_secret: client.clientSecret, token_endpoint_auth_method: "client_secret_basic" }
        : { jwks: { keys: [client.publicKey] }, token_endpoint_auth_method: "private_key_jwt" }),
    })),
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    // Resource scopes are listed too: registration refuses a `scope` naming values the server
    // does not list, and hosts register with the scope they are about to ask for.
    // `offline_access` makes `refresh_token` a supported grant type, which hosts register.
    scopes: ["openid", "offline_access", ...scopes],
    responseTypes: ["code"],
    // Public clients must use PKCE by default already; this requires it of every client.
    pkce: { required: () => true },
    // A refresh token for every client registered for the grant: OpenID Connect drops
    // offline_access without prompt=consent, which MCP clients do not send (the MCP spec asks for
    // offline_access alone, SEP-2207). Refresh tokens rotate on use (oidc-provider's default for
    // public clients).
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed("refresh_token"),
    features: {
      // The built-in login pages are replaced by finishInteraction().
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: clients.length > 0 },
      resourceIndicators: {
        enabled: true,
        // Any resource is known, with every configured scope, and gets JWT access tokens
        // (`aud` = the resource) signed with the published key.
        getResourceServerInfo: () => ({
          scope: scopes.join(" "),
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    ttl: {
      AccessToken: (_ctx: unknown, _token: unknown, client: { clientId: string }) =>
        ttlByClient.get(client.clientId) ?? accessTokenTtl,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      RefreshToken: 600,
      Session: 600,
    },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    clientBasedCORS: () => false,
  };
}

/** A parsed form back as a form, repeated fields kept. */
function formOf(body: Record<string, string | string[]>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    for (const one of typeof value === "string" ? [value] : value) form.append(name, one);
  }
  return form;
}

function positiveTtl(ttl: number): number {
  if (Number.isInteger(ttl) && ttl > 0) return ttl;
  throw new TypeError(
    `startAuthorizationServer(): "accessTokenTtl" must be a positive integer, received "${ttl}"`,
  );
}

/**
 * The interaction page, without a page: logs the client's user in at the login prompt, and at
 * the consent prompt grants every scope, claim and resource scope the request is missing.
 */
async function finishInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  subjectOf: (clientId: string) => string,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { name, details: missing } = details.prompt;
  const clientId = details.params.client_id;
  let result: Record<string, unknown>;
  if (name === "login") {
    result = { login: { accountId: subjectOf(clientId) } };
  } else if (name === "consent") {
    const grant = details.grantId === undefined
      ? new provider.Grant({ accountId: details.session?.accountId ?? subjectOf(clientId), clientId })
      : await provider.Grant.find(details.grantId);
    if (grant === undefined) throw new Error(`interaction: grant "${details.grantId}" not found`);
    if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, granted] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, granted.join(" "));
    }
    result = { consent: { grantId: await grant.save() } };
  } else {
    throw new Error(`interaction: prompt "${name}" is not handled, expected "login" or "consent"`);
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

/** A headless user agent: follows redirects on the server with a cookie jar, until one leaves it. */
async function followAuthorization(issuer: string, start: URL): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (!url.href.startsWith(`${issuer}/`)) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { redirect: "manual", headers: cookie === "" ? {} : { cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === "") jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get("location");
    const body = await response.text();
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(
        `authorize(): ${url.pathname} answered ${response.status}, expected a redirect: ${
          body.slice(0, 300)
        }`,
      );
    }
    url = new URL(location, url);
  }
  throw new Error(`authorize(): more than ${MAX_HOPS} redirects from ${start.href}`);
}

/** Registers a public client (RFC 7591), as a host on this machine does; returns its `client_id`. */
async function registerClient(issuer: string): Promise<string> {
  const response = await fetch(`${issuer}/reg`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "issueToken",
      application_type: "native",
      redirect_uris: [ISSUE_REDIRECT_URI],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const body = await response.json() as { client_id?: string };
  if (response.status !== 201 || body.client_id === undefined) {
    throw new Error(`issueToken(): registration answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.client_id;
}

/** The token request; returns the access token. */
async function redeemCode(issuer: string, form: Record<string, string>): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  const body = await response.json() as { access_token?: string };
  if (response.status !== 200 || body.access_token === undefined) {
    throw new Error(`issueToken(): the token request answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
