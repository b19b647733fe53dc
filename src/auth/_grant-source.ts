/**
 * How an upstream sign-in gets a grant: discovery, then a person's sign-in (authorization code), a
 * refresh (made once across every instance sharing the store), or a client credentials token. Which
 * grant to send, and when to ask for a new one, is `_kept-grants.ts`'s.
 *
 * @module
 */
import type * as oauth from "oauth4webapi";
import type { Clock } from "../_internal/clock.ts";
import type { CompiledHttpTransport, CompiledUpstreamAuth } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { codecs } from "../_internal/encoding.ts";
import { sha256 } from "../_internal/sha256.ts";
import { errorText } from "../_internal/error-text.ts";
import { awaitShared, joinable, linkSignals, pause, sharedWork } from "../_internal/signals.ts";
import { systemTimers, type Timers } from "../_internal/timers.ts";
import { discoverAuthorizationServer, discoverResource, type ResourceMetadata } from "./_discovery.ts";
import { askForChallenge, type Challenge } from "./_challenge.ts";
import { requestClientCredentialsToken } from "./_client-credentials.ts";
import { supportsDpop } from "./_dpop.ts";
import type { EnvironmentReader } from "./_token-request.ts";
import {
  beginAuthorization,
  type CodeGrantContext,
  finishAuthorization,
  type Grant,
  grantKey,
  type GrantOwner,
  type PendingFlow,
  readGrant,
  refreshGrant,
} from "./authorization-code.ts";
import type { TokenStore } from "./token-store.ts";
import { SignInRequiredError, UpstreamAuthError } from "../upstream-auth-error.ts";

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

/** What `createUpstreamSignIn` needs. */
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
  /** The timers of refresh polling and token request deadlines. @default systemTimers */
  readonly timers?: Timers | undefined;
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
export type SignInOverrides = Pick<UpstreamSignInOptions, "redirectUri" | "clientMetadataUrl" | "authorize">;

/** What a new grant is asked for with. */
export interface GrantAsk {
  /** The server's challenge that asked for it; `undefined`: the server is asked (`askForChallenge`). */
  readonly challenge: Challenge | undefined;
  /** The scopes of a step-up, or of a token asked for again (see `chooseScopes`). */
  readonly again?: readonly string[] | undefined;
  /** Aborts discovery and the token requests. */
  readonly signal: AbortSignal | undefined;
  /** The redirect URI, metadata document and `authorize` of the fetcher asking. */
  readonly overrides?: SignInOverrides | undefined;
}

interface Discovered {
  readonly resource: ResourceMetadata;
  readonly as: oauth.AuthorizationServer;
}

/** How long a refresh may hold its claim; others wait for its result at most this long. */
const REFRESH_CLAIM_MS = 30_000;
/** How long a token request may take (see `#withinDeadline`); less than the claim it runs under. */
const TOKEN_REQUEST_MS = 25_000;
const REFRESH_POLL_MS = 100;

/** Gets the grants of one server: by discovery, then a person's sign-in, a refresh or a machine's token. */
export class GrantSource {
  readonly #options: UpstreamSignInOptions;
  readonly #serverUrl: URL;
  /**
   * Whose grants these are: the server id and its endpoint, so a token never reaches another endpoint
   * under the same server id (see `grantKey`).
   */
  readonly owner: GrantOwner;
  #discovered: Promise<Discovered> | undefined;
  /** Owns the shared discovery (see `sharedWork`), which ends when every waiting request has stopped. */
  readonly #owner = new AbortController();
  /** The sign-ins a person is making through this instance, by `state`: `complete` settles them. */
  readonly #waiters = new Map<string, { resolve: () => void; reject: (error: unknown) => void }>();

  /**
   * @throws {TypeError} When the redirect URI is not a URL, has a fragment, or is neither `https:`
   *   nor `http:` on loopback.
   */
  constructor(options: UpstreamSignInOptions) {
    this.#options = options;
    this.#serverUrl = new URL(options.transport.url);
    this.owner = { server: options.server, endpoint: options.transport.url };
    if (options.redirectUri !== undefined) checkRedirectUri(options.redirectUri);
  }

  /** Drops the discovered metadata: a server that refused a token may name a new authorization server. */
  forgetMetadata(): void {
    this.#discovered = undefined;
  }

  /** Starts a sign-in by the person: discovery, registration, a new flow in the store. */
  async begin(
    principal: string,
    ask: GrantAsk,
  ): Promise<Omit<SignInRequest, "server" | "principal" | "completed">> {
    const context = this.#codeContext(ask.overrides);
    const { fetch } = this.#options;
    const challenge = ask.challenge ?? await askForChallenge(this.#serverUrl, { fetch, signal: ask.signal });
    const { resource, as } = await this.#discover(challenge, ask.signal);
    const auth = this.#options.transport.auth;
    const wanted = chooseScopes(auth.scopes, challenge.scopes, resource.scopesSupported, ask.again);
    return await beginAuthorization(
      context,
      as,
      resource.resource,
      principal,
      wanted,
      bindsTokens(challenge, resource, as),
    );
  }

  /** A sign-in by the person: `authorize` shows the URL; the grant is read back from the store. */
  async signInByPerson(principal: string, ask: GrantAsk): Promise<Grant> {
    const { server, tokens } = this.#options;
    const overrides = ask.overrides ?? {};
    const authorize = overrides.authorize ?? this.#options.authorize;
    // No one to ask and nowhere to come back to: nothing is started (no registration, no flow).
    if (authorize === undefined && (overrides.redirectUri ?? this.#options.redirectUri) === undefined) {
      throw new SignInRequiredError({ server, principal, scopes: ask.again });
    }
    const started = await this.begin(principal, ask);
    const completed = new Promise<void>((resolve, reject) =>
      this.#waiters.set(started.state, { resolve, reject })
    );
    completed.catch(() => {});
    const request: SignInRequest = { server, principal, ...started, completed };
    try {
      if (authorize === undefined) throw new SignInRequiredError({ ...request, scopes: ask.again });
      await authorize(request, ask.signal);
    } finally {
      this.#waiters.delete(started.state);
    }
    const grant = await readGrant(tokens, grantKey(this.owner, principal));
    if (grant === undefined) {
      throw new UpstreamAuthError(`sign-in to "${server}" did not complete: no tokens were stored`);
    }
    return grant;
  }

  /**
   * `UpstreamSignIn.complete`, under {@linkcode TOKEN_REQUEST_MS}; settles this instance's waiting sign-in.
   *
   * @param flow The flow.
   * @param callbackUrl The callback URL.
   * @param options `signedIn`, run once the grant is stored, before the waiting sign-in goes on; the
   *   signal that ends the code exchange.
   * @returns When the grant is stored.
   * @throws {UpstreamAuthError} As `UpstreamSignIn.complete` does.
   */
  async complete(
    flow: PendingFlow,
    callbackUrl: URL,
    options: { readonly signedIn: () => void; readonly signal?: AbortSignal | undefined },
  ): Promise<void> {
    const waiter = this.#waiters.get(new URL(callbackUrl).searchParams.get("state") ?? "");
    try {
      const context = this.#codeContext({ redirectUri: flow.redirectUri });
      await this.#withinDeadline(
        (signal) => finishAuthorization(context, flow, { url: callbackUrl, signal }),
        options.signal,
      );
    } catch (error) {
      waiter?.reject(error);
      throw error;
    }
    options.signedIn();
    waiter?.resolve();
  }

  /**
   * Finds the server's metadata, once (see `#discover`), as a refresh needs.
   *
   * @param signal Aborts discovery.
   * @returns When it is found.
   * @throws {UpstreamAuthError} When it is not found, or is refused.
   */
  async discover(signal: AbortSignal | undefined): Promise<void> {
    await this.#discover(undefined, signal);
  }

  /**
   * A refresh, made once across everything that shares the store; the others wait for its result.
   *
   * @param principal Whose grant.
   * @param grant The grant to refresh.
   * @param ask The server's challenge that led to it (`undefined`: none), and the signal.
   * @returns The new grant, or `undefined` when there is none (refused, or from another issuer).
   * @throws {UpstreamAuthError} When the refresh failed otherwise, this one's or the one waited for.
   */
  async refresh(
    principal: string,
    grant: Grant,
    ask: Pick<GrantAsk, "challenge" | "signal">,
  ): Promise<Grant | undefined> {
    const { tokens } = this.#options;
    const context = this.#codeContext({ redirectUri: grant.redirectUri });
    const { resource, as } = await this.#discover(ask.challenge, ask.signal);
    if (as.issuer !== grant.issuer) return undefined;
    const key = grantKey(this.owner, principal);
    // One state of the grant, refreshed once: a server may keep the refresh token (RFC 6749 §6),
    // so the access token it replaces tells one refresh from the next.
    const digested = await digest(JSON.stringify([grant.refreshToken ?? "", grant.accessToken]));
    const state = `refresh|${key}|${digested}`;
    // Each failure numbers the next claim, so the next attempt never waits out a failed one's claim.
    const failures = await readFailures(tokens, state);
    const claim = `${state}|${failures.count}`;
    const request = () =>
      this.#withinDeadline(
        (signal) => refreshGrant(context, as, { resource: resource.resource, grant, signal }),
        ask.signal,
      );
    const attempt: RefreshAttempt = { key, grant, state, failures, request };
    if (await tokens.claim(claim, REFRESH_CLAIM_MS)) return await this.#refreshClaimed(attempt);
    const waited = await this.#awaitRefresh(attempt, ask.signal);
    if (waited !== "unfinished") return waited;
    // The refresh waited for never ended (its instance stopped): its claim has expired by now.
    if (await tokens.claim(claim, REFRESH_CLAIM_MS)) return await this.#refreshClaimed(attempt);
    throw new UpstreamAuthError(
      `refreshing the token failed: the refresh this request waited for did not end within ${REFRESH_CLAIM_MS} ms`,
    );
  }

  /**
   * Makes the refresh this request claimed, and stores its result.
   *
   * @param attempt The refresh.
   * @returns The new grant, or `undefined` when the refresh token was refused.
   * @throws {UpstreamAuthError} When the refresh failed otherwise (recorded for the requests waiting).
   */
  async #refreshClaimed(attempt: RefreshAttempt): Promise<Grant | undefined> {
    const { tokens } = this.#options;
    const { key, state, failures } = attempt;
    // The count outlives this attempt's claim (see `Failures`).
    if (failures.count > 0) await tokens.set(`${state}|failed`, JSON.stringify(failures), REFRESH_CLAIM_MS);
    let renewed: Grant | undefined;
    try {
      renewed = await attempt.request();
    } catch (error) {
      // The waiting requests stop waiting and fail with this; the claim itself holds until it expires.
      const failed: Failures = { count: failures.count + 1, error: errorText(error) };
      await tokens.set(`${state}|failed`, JSON.stringify(failed), REFRESH_CLAIM_MS).catch(() => {});
      throw error;
    }
    // A grant stored meanwhile (a step-up's, a sign-in's) is newer: it stays. Without compare-and-set
    // in the stores, this narrows the race to one read.
    const now = await readGrant(tokens, key);
    if (now !== undefined && now.accessToken !== attempt.grant.accessToken) return renewed ?? now;
    if (renewed === undefined) await tokens.delete(key);
    else await tokens.set(key, JSON.stringify(renewed));
    return renewed;
  }

  /**
   * Runs a token request under a deadline of {@linkcode TOKEN_REQUEST_MS}. A refresh must end within
   * its claim, or a waiting request would send the same refresh token, which a rotating server may
   * take for a stolen one (RFC 9700 §4.14.2); a code exchange must not hold its caller for good.
   *
   * @param work The token request, given the signal that ends it.
   * @param signal Ends it sooner.
   * @returns What it returned.
   */
  async #withinDeadline<T>(
    work: (signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const timers = this.#options.timers ?? systemTimers;
    const link = linkSignals([signal]);
    const deadline = timers.setTimeout(
      () => link.abort(new Error(`no answer within ${TOKEN_REQUEST_MS} ms`)),
      TOKEN_REQUEST_MS,
    );
    try {
      return await work(link.signal);
    } finally {
      timers.clearTimeout(deadline);
      link.dispose();
    }
  }

  /**
   * Waits for the refresh another request claimed, counted in polls, not by the clock (a test's
   * clock may stand still).
   *
   * @param attempt The refresh.
   * @param signal Aborts the wait.
   * @returns The new grant, `undefined` when the grant is gone (the refresh token refused, a
   *   sign-out), or `"unfinished"` when the store is unchanged after the claim's lifetime.
   * @throws {UpstreamAuthError} When that refresh failed.
   */
  async #awaitRefresh(
    attempt: RefreshAttempt,
    signal: AbortSignal | undefined,
  ): Promise<Grant | undefined | "unfinished"> {
    const { tokens } = this.#options;
    const { grant } = attempt;
    for (let poll = 0; poll < REFRESH_CLAIM_MS / REFRESH_POLL_MS; poll++) {
      await pause(
        REFRESH_POLL_MS,
        this.#options.timers ?? systemTimers,
        signal ?? new AbortController().signal,
      );
      signal?.throwIfAborted();
      const now = await readGrant(tokens, attempt.key);
      if (now === undefined) return undefined;
      if (now.refreshToken !== grant.refreshToken || now.accessToken !== grant.accessToken) return now;
      const after = await readFailures(tokens, attempt.state);
      // Not a refused refresh token (that deletes the grant): the next request tries again.
      if (after.count > attempt.failures.count) {
        throw new UpstreamAuthError(`the refresh this request waited for failed: ${after.error}`);
      }
    }
    return "unfinished";
  }

  /** A client credentials token, for the scopes `chooseScopes` picks. */
  async clientCredentials(ask: GrantAsk): Promise<Grant> {
    const auth = this.#options.transport.auth;
    if (auth.kind !== "client_credentials") throw new TypeError("not a client credentials sign-in");
    const { resource, as } = await this.#discover(ask.challenge, ask.signal);
    const wanted = chooseScopes(auth.scopes, ask.challenge?.scopes, resource.scopesSupported, ask.again);
    return await requestClientCredentialsToken(as, {
      ...this.#options,
      auth,
      resource: resource.resource,
      scopes: wanted,
      dpop: bindsTokens(ask.challenge, resource, as),
      signal: ask.signal,
    });
  }

  /**
   * The server's resource metadata and its authorization server's, found once and shared: at the
   * challenge's `resource_metadata`, else the well-known URLs; without a challenge, one is asked for.
   */
  #discover(challenge: Challenge | undefined, signal: AbortSignal | undefined): Promise<Discovered> {
    // Shared by every principal's requests: it runs under its own signal, each waits under theirs.
    const waiting = signal ?? new AbortController().signal;
    let discovered = joinable(this.#discovered);
    if (discovered === undefined) {
      if (waiting.aborted) return Promise.reject(abortedLikeFetch(waiting.reason));
      const { fetch } = this.#options;
      const work = sharedWork(this.#owner.signal);
      const attempt = work.share((async () => {
        const shared = work.signal;
        const { metadataUrl } = challenge ??
          await askForChallenge(this.#serverUrl, { fetch, signal: shared });
        const resource = await discoverResource(this.#serverUrl, { metadataUrl, fetch, signal: shared });
        const issuer = resource.authorizationServers[0] ?? "";
        const as = await discoverAuthorizationServer(issuer, {
          serverUrl: this.#serverUrl,
          fetch,
          signal: shared,
        });
        return { resource, as };
      })());
      this.#discovered = discovered = attempt;
      attempt.catch(() => {
        if (this.#discovered === attempt) this.#discovered = undefined;
      });
    }
    return awaitShared(discovered, { signal: waiting, cancelled: abortedLikeFetch });
  }

  #codeContext(overrides: SignInOverrides = {}): CodeGrantContext {
    const options = this.#options;
    const { auth } = options.transport;
    if (auth.kind !== "authorization_code") throw new TypeError("not an authorization code sign-in");
    const redirectUri = overrides.redirectUri ?? options.redirectUri;
    if (redirectUri === undefined) {
      throw new UpstreamAuthError(
        `sign-in needed, but no redirect URI is set for the authorization code grant (createClient's "signIn.redirectUri")`,
      );
    }
    return {
      ...options,
      endpoint: this.owner.endpoint,
      auth,
      redirectUri,
      clientMetadataUrl: auth.clientMetadataUrl ?? overrides.clientMetadataUrl ?? options.clientMetadataUrl,
    };
  }
}

/**
 * The scopes a token is asked for: the policy's, else the challenge's, else the metadata's
 * `scopes_supported`; a step-up's `again` scopes are added to the policy's.
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

/** One refresh of a grant: its key, its refresh claims and their failures, and the token request. */
interface RefreshAttempt {
  readonly key: string;
  /** The grant refreshed, as read from the store. */
  readonly grant: Grant;
  /** `refresh|<grant key>|<digest of the grant's state>`: its claims are numbered after it. */
  readonly state: string;
  readonly failures: Failures;
  readonly request: () => Promise<Grant | undefined>;
}

/**
 * How many attempts at refreshing one grant failed, and how the last did; it numbers the next claim.
 * Kept REFRESH_CLAIM_MS after the last attempt, so it outlives every claim it numbered and a count
 * restarting at 0 cannot let two attempts run at once.
 */
interface Failures {
  readonly count: number;
  readonly error: string;
}

/**
 * Reads a grant's failed refresh attempts from the store.
 *
 * @param tokens The store.
 * @param state The grant's refresh claims (see `RefreshAttempt`).
 * @returns The failures; none when absent, or unreadable.
 */
async function readFailures(tokens: TokenStore, state: string): Promise<Failures> {
  const stored = await tokens.get(`${state}|failed`);
  try {
    const { count, error } = JSON.parse(stored ?? "null") ?? {};
    if (Number.isSafeInteger(count) && count > 0 && typeof error === "string") return { count, error };
  } catch {
    // Not a failure record: as if none failed.
  }
  return { count: 0, error: "" };
}

/**
 * What a request that stopped waiting for shared work is rejected with: its signal's reason, as fetch.
 *
 * @param reason The signal's reason.
 * @returns The reason, or an `AbortError` when it is not an error.
 */
export function abortedLikeFetch(reason: unknown): Error {
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

/**
 * Whether to DPoP-bind tokens: required by metadata, or a `DPoP` challenge unless `Bearer` was offered
 * too and the authorization server cannot bind (a server offering both takes either, RFC 9449 §7.1).
 *
 * @param challenge The server's challenge, if any.
 * @param resource Its protected resource metadata.
 * @param as Its authorization server's metadata.
 * @returns Whether to bind the tokens.
 */
function bindsTokens(
  challenge: Challenge | undefined,
  resource: ResourceMetadata,
  as: oauth.AuthorizationServer,
): boolean {
  if (resource.dpopRequired) return true;
  if (challenge?.dpop !== true) return false;
  return challenge.bearer !== true || supportsDpop(as);
}

async function digest(text: string): Promise<string> {
  return codecs.toHex((await sha256(text)).subarray(0, 12));
}
