/**
 * Signing in to an OAuth-protected MCP server: a `Fetcher` that wraps the server's own, so both
 * protocol eras (every POST, GET stream and DELETE of either) take the same path.
 *
 * On a 401 with a `Bearer` challenge from the server's origin, it discovers the protected
 * resource metadata and the authorization server's metadata and gets a token for the principal:
 * with the client credentials grant (`transport.auth.clientCredentials`: no person takes part),
 * or with the authorization code grant (`transport.auth.oauth`): a refresh when the stored grant
 * has a refresh token, else a new sign-in by the person, through `authorize` (the handler's
 * `authorize` callback in the library, a URL elicitation in the gateway, `sluice login` on the
 * command line). Then it retries the request once. A 403 `insufficient_scope` asks for the
 * union of the scopes, at most {@linkcode MAX_STEP_UPS} times in a row.
 *
 * Tokens are kept per server and principal (the store's grants; client credentials tokens in
 * memory), sent only to the server's origin, and never appear in errors. Concurrent refreshes of
 * one grant, on any instance sharing the store, make one refresh request: the others wait for
 * its result.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import type { Clock } from "../_internal/clock.ts";
import type { CompiledHttpTransport, CompiledUpstreamAuth } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { codecs } from "../_internal/encoding.ts";
import { discoverAuthorizationServer, discoverResource, type ResourceMetadata } from "./_discovery.ts";
import { requestClientCredentialsToken } from "./_client-credentials.ts";
import { resourceProof } from "./_dpop.ts";
import type { EnvironmentReader } from "./_token-request.ts";
import {
  beginAuthorization,
  type CodeGrantContext,
  finishAuthorization,
  type Grant,
  grantKey,
  type PendingFlow,
  readGrant,
  refreshGrant,
} from "./authorization-code.ts";
import type { TokenStore } from "./token-store.ts";
import { SignInRequiredError, UpstreamAuthError } from "../upstream-auth-error.ts";

export type { EnvironmentReader };

/** A sign-in the person must make: what `authorize` is given. */
export interface SignInRequest {
  /** The server's id. */
  readonly server: string;
  /** Whose sign-in (`""`: the client's own). */
  readonly principal: string;
  /** The authorization URL to open in a browser. */
  readonly url: string;
  /** The flow's `state`. */
  readonly state: string;
  /** When the sign-in stops being accepted (ms since the epoch). */
  readonly expiresAt: number;
  /** Settles when this process completes the flow (`complete`), or rejects when that fails. */
  readonly completed: Promise<void>;
}

/**
 * Has the person sign in: resolves once the flow is complete (the tokens are stored), rejects
 * when it cannot be (declined, timed out), or throws {@linkcode SignInRequiredError} to end the
 * request and let the person sign in elsewhere (the gateway, the command line).
 */
export type Authorize = (request: SignInRequest, signal: AbortSignal | undefined) => Promise<void>;

/** What {@linkcode createUpstreamSignIn} needs. */
export interface UpstreamSignInOptions {
  /** The server's id. */
  readonly server: string;
  /** The server's HTTP transport; its `auth` says how to sign in. */
  readonly transport: CompiledHttpTransport & { readonly auth: CompiledUpstreamAuth };
  /** The fetch the server's requests, discovery and token requests go through. */
  readonly fetch: Fetcher;
  /** Reads the variables `auth` names. */
  readonly environment: EnvironmentReader;
  /** The clock tokens expire by. */
  readonly clock: Clock;
  /** Where grants, registrations and flows in progress are kept. */
  readonly tokens: TokenStore;
  /** The redirect URI of the authorization code grant: `https:`, or `http:` on loopback. */
  readonly redirectUri?: string | undefined;
  /** The client's metadata document URL, used where the server supports them (an `https:` URL with a path). */
  readonly clientMetadataUrl?: string | undefined;
  /** The client name sent with Dynamic Client Registration. */
  readonly clientName: string;
  /** Has the person sign in; without it a needed sign-in fails with {@linkcode SignInRequiredError}. */
  readonly authorize?: Authorize | undefined;
}

/** What one fetcher does differently from the sign-in's options (the gateway's, per request). */
export interface SignInOverrides {
  /** The redirect URI. */
  readonly redirectUri?: string | undefined;
  /** The Client ID Metadata Document URL. */
  readonly clientMetadataUrl?: string | undefined;
  /** Has the person sign in. */
  readonly authorize?: Authorize | undefined;
}

/** Signs in to one server, for any number of principals. */
export interface UpstreamSignIn {
  /** The grant: `"authorization_code"` (a person signs in) or `"client_credentials"`. */
  readonly kind: CompiledUpstreamAuth["kind"];
  /**
   * A fetch that signs in on the server's challenge and sends the token.
   *
   * @param principal Whose tokens: each principal has its own. @default ""
   * @param overrides The redirect URI, metadata document and `authorize` of this fetcher's sign-ins.
   */
  fetcher(principal?: string, overrides?: SignInOverrides): Fetcher;
  /**
   * Starts a sign-in by the person, without a request (`sluice login`).
   *
   * @param principal Whose sign-in. @default ""
   * @param signal Aborts discovery and registration.
   * @returns The authorization URL and its flow.
   */
  begin(principal?: string, signal?: AbortSignal): Promise<Omit<SignInRequest, "completed">>;
  /**
   * Finishes a flow of this server taken from the store (see `takeFlow`): checks the callback,
   * exchanges the code, stores the grant.
   *
   * @param flow The flow.
   * @param callbackUrl The URL the authorization server sent the person back to.
   * @returns Whose grant it is.
   */
  complete(flow: PendingFlow, callbackUrl: URL): Promise<{ readonly principal: string }>;
  /**
   * Forgets a principal's tokens for this server.
   *
   * @param principal Whose. @default ""
   */
  signOut(principal?: string): Promise<void>;
}

interface Discovered {
  readonly resource: ResourceMetadata;
  readonly as: oauth.AuthorizationServer;
}

/** What the server's last challenge said. */
interface Challenge {
  readonly metadataUrl: string | undefined;
  readonly scopes: readonly string[] | undefined;
  /** The challenge's scheme is `DPoP`: the server takes DPoP-bound tokens (RFC 9449 §7.1). */
  readonly dpop?: boolean;
}

/** How long before its expiry a token is replaced, at most. */
const RENEW_MARGIN_MS = 30_000;
/** How many principals' grants one sign-in keeps in memory (the store keeps them all). */
const MAX_RECENT = 1000;
/** How many step-up sign-ins (403 `insufficient_scope`) in a row, before the 403 is the answer. */
export const MAX_STEP_UPS = 2;
/** How long a refresh may hold its claim; others wait for its result at most this long. */
const REFRESH_CLAIM_MS = 30_000;
const REFRESH_POLL_MS = 100;

/**
 * Creates the sign-in of one server.
 *
 * @param options The transport with its `auth`, the fetch, the environment, the clock and the store.
 * @returns The sign-in; its fetchers share the discovered metadata.
 * @throws {TypeError} When the redirect URI is neither `https:` nor `http:` on loopback.
 * @example
 * ```ts
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * import { createMemoryTokenStore } from "./token-store.ts";
 * import { createUpstreamSignIn } from "./upstream-sign-in.ts";
 * const { transport } = compilePolicy({
 *   server: "files",
 *   transport: {
 *     url: "https://mcp.example.com/mcp",
 *     auth: { clientCredentials: { clientId: "sluice", clientSecretEnv: "FILES_SECRET" } },
 *   },
 * });
 * if (transport.kind === "http" && transport.auth !== undefined) {
 *   const signIn = createUpstreamSignIn({
 *     server: "files",
 *     transport: { ...transport, auth: transport.auth },
 *     fetch: (url, init) => fetch(url, init),
 *     environment: () => undefined,
 *     clock: Date,
 *     tokens: createMemoryTokenStore(),
 *     clientName: "my-agent",
 *   });
 *   console.log(typeof signIn.fetcher()); // function
 * }
 * ```
 */
export function createUpstreamSignIn(options: UpstreamSignInOptions): UpstreamSignIn {
  const { transport, fetch, clock, tokens, server } = options;
  const { auth } = transport;
  const serverUrl = new URL(transport.url);
  if (options.redirectUri !== undefined) checkRedirectUri(options.redirectUri);
  /** Client credentials tokens: cheap to ask for again, kept in memory. */
  const machineTokens = new Map<string, Grant>();
  const pending = new Map<string, Promise<Grant>>();
  const waiters = new Map<string, { resolve: () => void; reject: (error: unknown) => void }>();
  const stepUps = new Map<string, number>();
  /**
   * The grants last read from the store, per principal: a request does not wait for the store
   * (a Redis round trip with Upstash) while its grant is usable. A refused token, an expiry, a
   * sign-in or a sign-out here drops the entry; a sign-out on another instance shows as the
   * server's 401.
   */
  const recent = new Map<string, Grant>();
  const remember = (principal: string, grant: Grant): Grant => {
    recent.delete(principal);
    if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value as string);
    recent.set(principal, grant);
    return grant;
  };
  let discovered: Promise<Discovered> | undefined;

  const discover = (
    metadataUrl: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Discovered> => {
    if (discovered === undefined) {
      const attempt = (async () => {
        const resource = await discoverResource(serverUrl, { metadataUrl, fetch, ...signalOf(signal) });
        const issuer = resource.authorizationServers[0] ?? "";
        const as = await discoverAuthorizationServer(issuer, { fetch, ...signalOf(signal) });
        return { resource, as };
      })();
      discovered = attempt;
      attempt.catch(() => {
        if (discovered === attempt) discovered = undefined;
      });
    }
    return discovered;
  };

  const codeContext = (overrides: SignInOverrides = {}): CodeGrantContext => {
    if (auth.kind !== "authorization_code") throw new TypeError("not an authorization code sign-in");
    const redirectUri = overrides.redirectUri ?? options.redirectUri;
    if (redirectUri === undefined) {
      throw new UpstreamAuthError(
        `sign-in needed, but no redirect URI is set for the authorization code grant (createClient's "signIn.redirectUri")`,
      );
    }
    return {
      server,
      auth,
      fetch,
      environment: options.environment,
      clock,
      tokens,
      redirectUri,
      clientMetadataUrl: auth.clientMetadataUrl ?? overrides.clientMetadataUrl ?? options.clientMetadataUrl,
      clientName: options.clientName,
    };
  };

  /** Runs `work` once per principal at a time: concurrent callers share its result. */
  const once = (principal: string, work: () => Promise<Grant>): Promise<Grant> => {
    const running = pending.get(principal);
    if (running !== undefined) return running;
    const attempt = work().finally(() => pending.delete(principal));
    pending.set(principal, attempt);
    return attempt;
  };

  const begin = async (
    principal: string,
    stepUp: readonly string[] | undefined,
    challenge: Challenge,
    signal: AbortSignal | undefined,
    overrides: SignInOverrides = {},
  ) => {
    const context = codeContext(overrides);
    const { resource, as } = await discover(challenge.metadataUrl, signal);
    const wanted = chooseScopes(auth.scopes, challenge.scopes, resource.scopesSupported, stepUp);
    const dpop = challenge.dpop === true || resource.dpopRequired;
    return await beginAuthorization(context, as, resource.resource, principal, wanted, dpop);
  };

  /** A sign-in by the person: `authorize` shows the URL; the grant is read back from the store. */
  const signInByPerson = async (
    principal: string,
    stepUp: readonly string[] | undefined,
    challenge: Challenge,
    signal: AbortSignal | undefined,
    overrides: SignInOverrides,
  ): Promise<Grant> => {
    const authorize = overrides.authorize ?? options.authorize;
    // No one to ask and nowhere to come back to: nothing is started (no registration, no flow).
    if (authorize === undefined && (overrides.redirectUri ?? options.redirectUri) === undefined) {
      throw new SignInRequiredError({ server, principal });
    }
    const started = await begin(principal, stepUp, challenge, signal, overrides);
    const completed = new Promise<void>((resolve, reject) => waiters.set(started.state, { resolve, reject }));
    completed.catch(() => {});
    const request: SignInRequest = { server, principal, ...started, completed };
    try {
      if (authorize === undefined) throw new SignInRequiredError(request);
      await authorize(request, signal);
    } finally {
      waiters.delete(started.state);
    }
    const grant = await readGrant(tokens, grantKey(server, principal));
    if (grant === undefined) {
      throw new UpstreamAuthError(`sign-in to "${server}" did not complete: no tokens were stored`);
    }
    return grant;
  };

  /** A refresh, made once across everything that shares the store; the others wait for its result. */
  const refresh = async (
    principal: string,
    grant: Grant,
    signal: AbortSignal | undefined,
  ): Promise<Grant | undefined> => {
    const context = codeContext({ redirectUri: grant.redirectUri });
    const { resource, as } = await discover(undefined, signal);
    if (as.issuer !== grant.issuer) return undefined;
    const key = grantKey(server, principal);
    const claim = `refresh|${key}|${await digest(grant.refreshToken ?? "")}`;
    const failed = `${claim}|failed`;
    if (await tokens.claim(claim, REFRESH_CLAIM_MS)) {
      let renewed: Grant | undefined;
      try {
        renewed = await refreshGrant(context, as, resource.resource, grant);
      } catch (error) {
        // The waiting instances stop waiting (the claim itself holds until it expires).
        await tokens.set(failed, "1", REFRESH_CLAIM_MS).catch(() => {});
        throw error;
      }
      if (renewed === undefined) await tokens.delete(key);
      else await tokens.set(key, JSON.stringify(renewed));
      return renewed;
    }
    // Another refresh of this grant is running: its result replaces the grant in the store.
    // Counted in polls, not by the clock: a test's clock may stand still.
    for (let poll = 0; poll < REFRESH_CLAIM_MS / REFRESH_POLL_MS; poll++) {
      await sleep(REFRESH_POLL_MS, signal);
      const now = await readGrant(tokens, key);
      if (now === undefined) return undefined;
      if (now.refreshToken !== grant.refreshToken || now.accessToken !== grant.accessToken) return now;
      if (await tokens.get(failed) !== undefined) return undefined;
    }
    return undefined;
  };

  const usable = (grant: Grant | undefined): boolean =>
    grant !== undefined &&
    (grant.expiresAt === null || clock.now() < grant.expiresAt - renewMargin(grant, clock));

  /** The principal's token to send now, refreshed when it is about to expire; `undefined` when there is none. */
  const current = async (principal: string, signal: AbortSignal | undefined): Promise<Grant | undefined> => {
    if (auth.kind === "client_credentials") {
      const grant = machineTokens.get(principal);
      if (usable(grant)) return grant;
      if (grant === undefined) return undefined;
      machineTokens.delete(principal);
      // The server wanted a token (it had one): a new one first, not a round trip without.
      return await once(
        principal,
        () =>
          machineToken(principal, grant.scopes, {
            metadataUrl: undefined,
            scopes: undefined,
            dpop: grant.dpop !== undefined,
          }, signal),
      );
    }
    const cached = recent.get(principal);
    if (cached !== undefined && usable(cached)) return cached;
    const grant = await readGrant(tokens, grantKey(server, principal));
    if (grant === undefined) return undefined;
    if (usable(grant)) return remember(principal, grant);
    if (grant.refreshToken === undefined) return undefined;
    const renewed = await once(principal, async () => (await refresh(principal, grant, signal)) ?? grant);
    return usable(renewed) ? remember(principal, renewed) : undefined;
  };

  const machineToken = async (
    principal: string,
    again: readonly string[] | undefined,
    challenge: Challenge,
    signal: AbortSignal | undefined,
  ): Promise<Grant> => {
    if (auth.kind !== "client_credentials") throw new TypeError("not a client credentials sign-in");
    const { resource, as } = await discover(challenge.metadataUrl, signal);
    const wanted = chooseScopes(auth.scopes, challenge.scopes, resource.scopesSupported, again);
    const grant = await requestClientCredentialsToken(
      as,
      resource.resource,
      wanted,
      { ...options, auth },
      signal,
      challenge.dpop === true || resource.dpopRequired,
    );
    machineTokens.set(principal, grant);
    return grant;
  };

  /**
   * A new token after the server refused the one sent (or none was sent), for the scopes of
   * `stepUp` when the server wants more than the token had.
   */
  const renew = (
    principal: string,
    sent: Grant | undefined,
    challenge: Challenge,
    stepUp: readonly string[] | undefined,
    signal: AbortSignal | undefined,
    overrides: SignInOverrides,
  ): Promise<Grant> =>
    once(principal, async () => {
      if (sent !== undefined) {
        // A token the server no longer takes: its metadata may have changed too (a new
        // authorization server: its grants and registrations are its own).
        discovered = undefined;
        machineTokens.delete(principal);
      }
      recent.delete(principal);
      if (auth.kind === "client_credentials") return await machineToken(principal, stepUp, challenge, signal);
      const stored = await readGrant(tokens, grantKey(server, principal));
      if (
        stored !== undefined && stored.accessToken !== sent?.accessToken && usable(stored) &&
        stepUp === undefined
      ) {
        return stored; // another request (or instance) signed in meanwhile
      }
      if (stored !== undefined && stored.refreshToken !== undefined && stepUp === undefined) {
        const renewed = await refresh(principal, stored, signal);
        if (renewed !== undefined) return renewed;
      }
      if (stored !== undefined) await tokens.delete(grantKey(server, principal));
      return await signInByPerson(principal, stepUp, challenge, signal, overrides);
    });

  /** The MCP server's last DPoP nonce (RFC 9449 §9), sent in the next proofs. */
  let resourceNonce: string | undefined;
  /** Sends `init` with the grant's token; a DPoP nonce the server asks for is sent once more. */
  const send = async (url: string, init: RequestInit, grant: Grant | undefined): Promise<Response> => {
    let response = await fetch(url, await withToken(init, grant, url, resourceNonce));
    const nonce = response.headers.get("dpop-nonce");
    if (nonce === null || grant?.dpop === undefined) return response;
    const fresh = nonce !== resourceNonce;
    resourceNonce = nonce;
    if (response.status === 401 && fresh && (await challengeOf(response))?.error === "use_dpop_nonce") {
      await response.body?.cancel().catch(() => {});
      response = await fetch(url, await withToken(init, grant, url, resourceNonce));
    }
    return response;
  };

  const fetcher = (principal = "", overrides: SignInOverrides = {}): Fetcher => async (url, init) => {
    // The token goes to the server's origin only (a redirect elsewhere gets none).
    if (new URL(url).origin !== transport.origin) return await fetch(url, init);
    const signal = init.signal ?? undefined;
    let grant = await current(principal, signal);
    let response = await send(url, init, grant);
    if (response.status === 401) {
      const challenge = await challengeOf(response);
      if (challenge === undefined) return response;
      await response.body?.cancel().catch(() => {});
      grant = await renew(principal, grant, challenge, undefined, signal, overrides);
      response = await send(url, init, grant);
      if (response.status === 401) {
        await forget(principal);
        await response.body?.cancel().catch(() => {});
        const error = (await challengeOf(response))?.error;
        throw new UpstreamAuthError(
          `sign-in failed: the server refused the access token it was just issued (HTTP 401${
            error === undefined ? "" : `, error "${error}"`
          })`,
        );
      }
    }
    if (response.status === 403 && grant !== undefined) {
      const challenge = await challengeOf(response);
      if (challenge?.error !== "insufficient_scope") return response;
      const union = [...new Set([...grant.scopes, ...challenge.scopes ?? []])];
      const tries = stepUps.get(principal) ?? 0;
      // A client credentials token with every scope asked for already cannot get more.
      if (
        tries >= MAX_STEP_UPS || (auth.kind === "client_credentials" && union.length === grant.scopes.length)
      ) {
        return response;
      }
      stepUps.set(principal, tries + 1);
      await response.body?.cancel().catch(() => {});
      grant = await renew(principal, undefined, challenge, union, signal, overrides);
      response = await send(url, init, grant);
    }
    if (response.status !== 403) stepUps.delete(principal);
    return response;
  };

  const forget = async (principal: string) => {
    recent.delete(principal);
    machineTokens.delete(principal);
    await tokens.delete(grantKey(server, principal));
  };

  return Object.freeze({
    kind: auth.kind,
    fetcher,
    begin: async (principal = "", signal?: AbortSignal) => {
      const started = await begin(
        principal,
        undefined,
        { metadataUrl: undefined, scopes: undefined },
        signal,
      );
      return { server, principal, ...started };
    },
    complete: async (flow: PendingFlow, callbackUrl: URL) => {
      const waiter = waiters.get(new URL(callbackUrl).searchParams.get("state") ?? "");
      try {
        await finishAuthorization(codeContext({ redirectUri: flow.redirectUri }), flow, callbackUrl);
      } catch (error) {
        waiter?.reject(error);
        throw error;
      }
      stepUps.delete(flow.principal);
      recent.delete(flow.principal);
      waiter?.resolve();
      return { principal: flow.principal };
    },
    signOut: (principal = "") => forget(principal),
  });
}

/**
 * The scopes a token is asked for, in both grants: the policy's `scopes`, else the server's
 * challenge's, else every one of its metadata's `scopes_supported`, else none (what `scopes`
 * documents). A step-up, or a token asked for again, names its scopes in `again`: the policy's
 * are added to them.
 */
function chooseScopes(
  policy: readonly string[],
  challenged: readonly string[] | undefined,
  supported: readonly string[],
  again: readonly string[] | undefined,
): readonly string[] {
  if (again !== undefined) return [...new Set([...policy, ...again])];
  if (policy.length > 0) return policy;
  if (challenged !== undefined && challenged.length > 0) return challenged;
  return supported;
}

function renewMargin(grant: Grant, clock: Clock): number {
  if (grant.expiresAt === null) return 0;
  return Math.min(RENEW_MARGIN_MS, Math.max(0, (grant.expiresAt - clock.now()) / 2));
}

/** Redirect URIs must be `https:` or on loopback (the MCP spec's communication security rule). */
function checkRedirectUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TypeError(`the sign-in redirect URI is not a URL: ${JSON.stringify(uri)}`);
  }
  if (url.hash !== "" || !(url.protocol === "https:" || (url.protocol === "http:" && hasLoopbackHost(url)))) {
    throw new TypeError(
      `the sign-in redirect URI must be https (or http on localhost), without a fragment, received "${url.href}"`,
    );
  }
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return codecs.toHex(bytes.subarray(0, 12));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The server's `Bearer` (or `DPoP`) challenge: its `resource_metadata`, `scope` and `error`, or
 * `undefined` when the response has none (or an unparsable one).
 */
async function challengeOf(
  response: Response,
): Promise<
  | {
    metadataUrl: string | undefined;
    scopes: string[] | undefined;
    error: string | undefined;
    dpop: boolean;
  }
  | undefined
> {
  const challenges = await challengesOf(response);
  const found = challenges?.find((challenge) => challenge.scheme === "dpop") ??
    challenges?.find((challenge) => challenge.scheme === "bearer");
  if (found === undefined) return undefined;
  const { parameters } = found;
  const scope = parameters.scope?.split(" ").filter((value) => value !== "");
  return {
    metadataUrl: parameters.resource_metadata,
    scopes: scope,
    error: parameters.error,
    dpop: found.scheme === "dpop",
  };
}

/**
 * oauth4webapi's own `WWW-Authenticate` parser (RFC 9110 §11.6.1), reached through its public
 * API: 3.8.8 does not export the parser, but `protectedResourceRequest` rejects a response
 * carrying challenges with them parsed. Its fetch hands back the response already received, so
 * nothing is sent and no token is involved (the placeholder never leaves this function).
 */
async function challengesOf(response: Response): Promise<oauth.WWWAuthenticateChallenge[] | undefined> {
  try {
    await oauth.protectedResourceRequest(
      "-",
      "GET",
      new URL(response.url || "https://upstream.invalid/"),
      undefined,
      undefined,
      {
        [oauth.customFetch]: () => Promise.resolve(response),
        [oauth.allowInsecureRequests]: true,
      },
    );
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause;
  }
  return undefined;
}

/** A fresh init with the grant's token: `Bearer`, or `DPoP` with a proof for this request. */
async function withToken(
  init: RequestInit,
  grant: Grant | undefined,
  url: string,
  nonce: string | undefined,
): Promise<RequestInit> {
  if (grant === undefined) return init;
  // A fresh init each time: the caller's headers object is never changed.
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  if (grant.dpop === undefined) {
    headers.authorization = `Bearer ${grant.accessToken}`;
  } else {
    headers.authorization = `DPoP ${grant.accessToken}`;
    headers.dpop = await resourceProof(grant.dpop, init.method ?? "GET", url, grant.accessToken, nonce);
  }
  return { ...init, headers };
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
