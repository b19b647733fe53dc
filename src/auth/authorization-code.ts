/**
 * The authorization code grant of the MCP authorization spec, through oauth4webapi: client identity
 * (pre-registered, Client ID Metadata Document, Dynamic Client Registration, in that order), the
 * authorization request (PKCE S256, `state`, RFC 8707 `resource`), the callback (single-use `state`,
 * RFC 9207 `iss`), code exchange and refresh. Registrations, flows and tokens live in the
 * {@linkcode TokenStore}, not in memory, so any instance can take a callback.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import type { Clock } from "../_internal/clock.ts";
import type { CompiledOAuthSignIn } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { requestOptions } from "./_discovery.ts";
import {
  clientSecretBasic,
  describeTokenFailure,
  type EnvironmentReader,
  prefersSecretPost,
  quotedDescription,
  readSecret,
  tokenRefusal,
  tokenRequestOptions,
} from "./_token-request.ts";
import type { TokenStore } from "./token-store.ts";
import { type DpopKey, newDpopKey, supportsDpop, withDpop } from "./_dpop.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";

/** How long a started sign-in may take before its callback is refused. */
export const FLOW_TTL_MS: number = 10 * 60_000;

/** Tokens of one server for one principal, as kept in the store. */
export interface Grant {
  readonly accessToken: string;
  readonly refreshToken?: string | undefined;
  /** When the access token expires (ms since the epoch), or `null` when the server did not say. */
  readonly expiresAt: number | null;
  /** The scopes asked for (or granted, when the server said). */
  readonly scopes: readonly string[];
  /** The authorization server that issued them. */
  readonly issuer: string;
  /** The client id they were issued to. */
  readonly clientId: string;
  /**
   * How that client was identified (see {@linkcode Registration.source}): a Client ID Metadata
   * Document's grant is refreshed without a stored registration. Absent in older grants.
   */
  readonly clientSource?: Registration["source"] | undefined;
  /** The redirect URI of the sign-in that got them (its client registration is kept under it). */
  readonly redirectUri?: string | undefined;
  /** The key the tokens are bound to (DPoP, RFC 9449), when the server issued `DPoP` tokens. */
  readonly dpop?: DpopKey | undefined;
}

/** Who sluice is at one authorization server. */
export interface Registration {
  readonly issuer: string;
  readonly clientId: string;
  /** A registered secret (Dynamic Client Registration only; the policy's is read from the environment). */
  readonly clientSecret?: string | undefined;
  readonly method: "none" | "client_secret_basic" | "client_secret_post";
  /** Where the client id came from. */
  readonly source: "policy" | "metadata-document" | "registration";
}

/** A sign-in in progress, kept under its `state` until the callback (at most {@linkcode FLOW_TTL_MS}). */
export interface PendingFlow {
  readonly server: string;
  /** The origin and path of the MCP endpoint the sign-in is for: its grant is kept under it. */
  readonly endpoint: string;
  readonly principal: string;
  /** The authorization URL the person is sent to. */
  readonly authorizationUrl: string;
  /** The validated metadata of the authorization server the user was sent to (its `issuer` recorded). */
  readonly as: oauth.AuthorizationServer;
  readonly resource: string;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly registration: Registration;
  readonly expiresAt: number;
  /** The key the tokens are to be bound to, when the server asks for DPoP. */
  readonly dpop?: DpopKey | undefined;
}

/** What the grant needs from the sign-in of one server. */
export interface CodeGrantContext {
  readonly server: string;
  /** The server's MCP endpoint URL (the policy's `transport.url`): what its tokens are issued for. */
  readonly endpoint: string;
  readonly auth: CompiledOAuthSignIn;
  readonly fetch: Fetcher;
  readonly environment: EnvironmentReader;
  readonly clock: Clock;
  readonly tokens: TokenStore;
  /** Where the authorization server sends the user back. */
  readonly redirectUri: string;
  /** The client id to use where the server supports Client ID Metadata Documents (an https URL). */
  readonly clientMetadataUrl: string | undefined;
  /** The client name sent with Dynamic Client Registration. */
  readonly clientName: string;
}

/** Which upstream a grant is for: the server id and its MCP endpoint. */
export interface GrantOwner {
  /** The server's id. */
  readonly server: string;
  /** The server's MCP endpoint URL; only its origin and path count. */
  readonly endpoint: string;
}

/**
 * The part of an MCP endpoint URL a grant is bound to: its origin and path. Not the query: it may hold
 * a key, and store keys are not encrypted.
 *
 * @param url The endpoint URL.
 * @returns Its origin and path, e.g. `https://mcp.example.com/mcp`.
 * @throws {TypeError} When `url` is not a URL.
 */
function grantEndpoint(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}

/**
 * The store key of a principal's grant: server id, endpoint and principal, encoded and joined with
 * `|`. The endpoint is in it so tokens are never sent to another upstream under the same server id
 * (a shared token file, an edited `transport.url`).
 *
 * @param owner The server id and its endpoint.
 * @param principal Whose grant.
 * @returns The key.
 * @throws {TypeError} When the endpoint is not a URL.
 */
export function grantKey(owner: GrantOwner, principal: string): string {
  return `grant|${encodeURIComponent(owner.server)}|${encodeURIComponent(grantEndpoint(owner.endpoint))}|${
    encodeURIComponent(principal)
  }`;
}
function registrationKey(context: CodeGrantContext, issuer: string): string {
  return `client|${encodeURIComponent(context.server)}|${encodeURIComponent(issuer)}|${
    encodeURIComponent(context.redirectUri)
  }`;
}
/** The store key of a flow in progress. */
export function flowKey(state: string): string {
  return `flow|${state}`;
}

/**
 * Reads a grant from the store.
 *
 * @param tokens The store.
 * @param key Its key.
 * @returns The grant, or `undefined` when absent or unreadable.
 */
export async function readGrant(tokens: TokenStore, key: string): Promise<Grant | undefined> {
  const text = await tokens.get(key);
  if (text === undefined) return undefined;
  try {
    const grant = JSON.parse(text) as Grant;
    return typeof grant.accessToken === "string" ? grant : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a sign-in: identifies the client, records the flow under a fresh `state` and builds the
 * authorization URL.
 *
 * @param context The server's sign-in.
 * @param as The authorization server's validated metadata.
 * @param resource The protected resource metadata's `resource` (RFC 8707).
 * @param principal Whose sign-in.
 * @param scopes The scopes to ask for.
 * @returns The URL to send the user to, its `state` and when it expires.
 * @throws {UpstreamAuthError} When the server does not support PKCE S256, or no client id can be had.
 */
export async function beginAuthorization(
  context: CodeGrantContext,
  as: oauth.AuthorizationServer,
  resource: string,
  principal: string,
  scopes: readonly string[],
  dpop = false,
): Promise<{ url: string; state: string; expiresAt: number }> {
  const methods = as.code_challenge_methods_supported;
  if (methods === undefined || !methods.includes("S256")) {
    throw new UpstreamAuthError(
      `sign-in refused: the authorization server "${as.issuer}" does not list "S256" in code_challenge_methods_supported (${
        methods === undefined ? "absent" : JSON.stringify(methods)
      }); PKCE with S256 is required`,
    );
  }
  if (as.authorization_endpoint === undefined) {
    throw new UpstreamAuthError(
      `sign-in failed: the authorization server "${as.issuer}" has no authorization_endpoint`,
    );
  }
  if (dpop && !supportsDpop(as)) throw dpopUnsupported(as);
  const registration = await identifyClient(context, as);
  // A client secret missing from the environment is told now, not once the person has signed in.
  clientAuthentication(context, registration);
  const wanted = [...scopes];
  // Refresh tokens where the server offers them (SEP-2207): only when it lists offline_access.
  if (as.scopes_supported?.includes("offline_access") === true && !wanted.includes("offline_access")) {
    wanted.push("offline_access");
  }
  const state = oauth.generateRandomState();
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", registration.clientId);
  url.searchParams.set("redirect_uri", context.redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  if (wanted.length > 0) url.searchParams.set("scope", wanted.join(" "));
  url.searchParams.set("resource", resource);
  const expiresAt = context.clock.now() + FLOW_TTL_MS;
  const flow: PendingFlow = {
    server: context.server,
    endpoint: grantEndpoint(context.endpoint),
    principal,
    authorizationUrl: url.href,
    as,
    resource,
    verifier,
    redirectUri: context.redirectUri,
    scopes: wanted,
    registration,
    expiresAt,
    ...(dpop ? { dpop: await newDpopKey() } : {}),
  };
  await context.tokens.set(flowKey(state), JSON.stringify(flow), FLOW_TTL_MS);
  return { url: url.href, state, expiresAt };
}

/**
 * Reads the flow a callback belongs to, and spends its `state` so a second callback is refused.
 *
 * @param tokens The store.
 * @param callbackUrl The URL the authorization server sent the user back to.
 * @param server When given, the server the flow must be for: another's is refused before its
 *   `state` is spent, so its own server can still finish it.
 * @returns The flow.
 * @throws {UpstreamAuthError} When the URL has no `state`, the flow is unknown, expired, another
 *   server's, or used.
 */
export async function takeFlow(tokens: TokenStore, callbackUrl: URL, server?: string): Promise<PendingFlow> {
  const state = callbackUrl.searchParams.get("state");
  if (state === null || state === "") {
    throw new UpstreamAuthError("sign-in failed: the callback has no state parameter");
  }
  const text = await tokens.get(flowKey(state));
  if (text === undefined) {
    throw new UpstreamAuthError(
      "sign-in failed: the callback's state names no sign-in in progress (unknown or expired)",
    );
  }
  const flow = JSON.parse(text) as PendingFlow;
  if (server !== undefined && flow.server !== server) {
    throw new UpstreamAuthError(`the callback belongs to a sign-in to "${flow.server}", not "${server}"`);
  }
  if (!(await tokens.claim(flowKey(state), FLOW_TTL_MS))) {
    throw new UpstreamAuthError("sign-in failed: this callback was already used");
  }
  await tokens.delete(flowKey(state));
  return flow;
}

/**
 * Finishes a sign-in: checks the callback (its address, `state`, RFC 9207 `iss`, an error from
 * the server), exchanges the code with the PKCE verifier and `resource`, and stores the grant.
 *
 * @param context The server's sign-in.
 * @param flow The flow, from {@linkcode takeFlow}.
 * @param callback The URL the authorization server sent the user back to, and the signal that
 *   ends the token request (its reason is what the token request failed with).
 * @returns The stored grant.
 * @throws {UpstreamAuthError} When the callback or the token request fails a check, or the
 *   signal ended the token request.
 */
export async function finishAuthorization(
  context: CodeGrantContext,
  flow: PendingFlow,
  callback: { readonly url: URL; readonly signal: AbortSignal },
): Promise<Grant> {
  const { url: callbackUrl, signal } = callback;
  const expected = new URL(flow.redirectUri);
  if (callbackUrl.origin !== expected.origin || callbackUrl.pathname !== expected.pathname) {
    throw new UpstreamAuthError(
      `sign-in failed: the callback came to "${callbackUrl.origin}${callbackUrl.pathname}", expected the redirect URI "${expected.origin}${expected.pathname}"`,
    );
  }
  if (context.clock.now() >= flow.expiresAt) {
    throw new UpstreamAuthError("sign-in failed: the sign-in took longer than 10 minutes; start it again");
  }
  // A flow started for another endpoint (a shared store, an edited URL) would get that one's tokens.
  const endpoint = grantEndpoint(context.endpoint);
  if (flow.endpoint !== endpoint) {
    throw new UpstreamAuthError(
      `sign-in refused: the sign-in was not started for "${endpoint}", the endpoint of "${context.server}"; start it again`,
    );
  }
  const client: oauth.Client = { client_id: flow.registration.clientId };
  let parameters: URLSearchParams;
  try {
    // Checks `iss` first (RFC 9207 §2.4: before anything else of the response is used), then `state`.
    parameters = oauth.validateAuthResponse(
      flow.as,
      client,
      callbackUrl.searchParams,
      callbackUrl.searchParams.get("state") ?? "",
    );
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new UpstreamAuthError(
        `sign-in failed: the authorization server "${flow.as.issuer}" answered error "${error.error}"${
          quotedDescription(error.error_description)
        }`,
      );
    }
    throw new UpstreamAuthError(
      `sign-in refused: the callback ${issProblem(callbackUrl, flow.as)}; the code was not used`,
    );
  }
  // Read first, so a missing secret is told as the operator's problem, not the server's.
  const authentication = clientAuthentication(context, flow.registration);
  let result: oauth.TokenEndpointResponse;
  try {
    const http = tokenRequestOptions(flow.as, context.fetch, signal);
    result = await withDpop(client, flow.dpop, async (dpop) => {
      const response = await oauth.authorizationCodeGrantRequest(
        flow.as,
        client,
        authentication,
        parameters,
        flow.redirectUri,
        flow.verifier,
        { ...http, ...dpop, additionalParameters: { resource: flow.resource } },
      );
      return await oauth.processAuthorizationCodeResponse(flow.as, client, response);
    });
  } catch (error) {
    throw await tokenRequestError(context, {
      failed: "sign-in failed",
      issuer: flow.as.issuer,
      registration: flow.registration,
      error,
    });
  }
  const grant: Grant = {
    ...grantOf(result, {
      asked: flow.scopes,
      issuer: flow.as.issuer,
      clientId: flow.registration.clientId,
      clock: context.clock,
      dpop: flow.dpop,
    }),
    clientSource: flow.registration.source,
    redirectUri: flow.redirectUri,
  };
  await context.tokens.set(
    grantKey({ server: flow.server, endpoint }, flow.principal),
    JSON.stringify(grant),
  );
  return grant;
}

/**
 * Trades a grant's refresh token for new tokens (rotated when the server sends a new refresh
 * token), with `resource`.
 *
 * @param context The server's sign-in.
 * @param as The issuer's metadata.
 * @param refresh The resource, the grant to refresh (it has a refresh token), and the signal that
 *   ends the token request.
 * @returns The new grant (not stored: the caller stores it), or `undefined` when the server refused the refresh token.
 * @throws {UpstreamAuthError} When the refresh could not be sent or answered otherwise.
 */
export async function refreshGrant(
  context: CodeGrantContext,
  as: oauth.AuthorizationServer,
  refresh: { readonly resource: string; readonly grant: Grant; readonly signal: AbortSignal },
): Promise<Grant | undefined> {
  const { resource, grant, signal } = refresh;
  const registration = await grantRegistration(context, as, grant);
  if (registration === undefined || grant.refreshToken === undefined) return undefined;
  const client: oauth.Client = { client_id: grant.clientId };
  const refreshToken = grant.refreshToken;
  const authentication = clientAuthentication(context, registration);
  try {
    const http = tokenRequestOptions(as, context.fetch, signal);
    const result = await withDpop(client, grant.dpop, async (dpop) => {
      const response = await oauth.refreshTokenGrantRequest(
        as,
        client,
        authentication,
        refreshToken,
        { ...http, ...dpop, additionalParameters: { resource } },
      );
      return await oauth.processRefreshTokenResponse(as, client, response);
    });
    return {
      ...grantOf(result, {
        asked: grant.scopes,
        issuer: as.issuer,
        clientId: grant.clientId,
        clock: context.clock,
        previousRefresh: refreshToken,
        dpop: grant.dpop,
      }),
      clientSource: registration.source,
      redirectUri: grant.redirectUri,
    };
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") return undefined;
    throw await tokenRequestError(context, {
      failed: "refreshing the token failed",
      issuer: as.issuer,
      registration,
      error,
    });
  }
}

/**
 * The error of a failed token request. On `invalid_client` (RFC 6749 §5.2) a client of sluice's own
 * registration, which the server may have forgotten (RFC 7591 §3.2.1), is dropped so the next
 * sign-in registers anew; the policy's client is the operator's to check, and is kept.
 *
 * @param context The server's sign-in.
 * @param failure What failed (the message's start: `sign-in failed`, `refreshing the token
 *   failed`), the authorization server, the client the request was sent as, and what it threw.
 * @returns The error to throw.
 * @throws {Error} When the store fails while the refused registration is dropped.
 */
async function tokenRequestError(
  context: CodeGrantContext,
  failure: {
    readonly failed: string;
    readonly issuer: string;
    readonly registration: Registration;
    readonly error: unknown;
  },
): Promise<UpstreamAuthError> {
  const { failed, issuer, registration, error } = failure;
  const described = `${failed}: ${describeTokenFailure(issuer, error)}`;
  if (tokenRefusal(error)?.code !== "invalid_client") return new UpstreamAuthError(described);
  if (registration.source === "registration") {
    await forgetRegistration(context, registration);
    return new UpstreamAuthError(
      `${described}; it no longer knows the client "${registration.clientId}" that sluice registered with it, so the next sign-in registers anew`,
    );
  }
  if (registration.source === "policy") {
    return new UpstreamAuthError(
      `${described}; check that the policy's client "${registration.clientId}" (transport.auth.oauth.clientId, and its secret in clientSecretEnv if it has one) is registered with "${issuer}"`,
    );
  }
  return new UpstreamAuthError(described);
}

/**
 * Drops a client of sluice's own registration from the store, unless another sign-in has meanwhile
 * registered anew.
 *
 * @param context The server's sign-in (its redirect URI is the registration's).
 * @param registration The refused client.
 * @returns When it is dropped.
 * @throws {Error} When the store fails, or holds no JSON under the registration's key.
 */
async function forgetRegistration(context: CodeGrantContext, registration: Registration): Promise<void> {
  const key = registrationKey(context, registration.issuer);
  const text = await context.tokens.get(key);
  if (text !== undefined && (JSON.parse(text) as Registration).clientId === registration.clientId) {
    await context.tokens.delete(key);
  }
}

/**
 * The grant a token response makes: `Bearer`, or `DPoP` when a key was sent (a `Bearer` answer to
 * a DPoP request is an unbound token, sent as such).
 *
 * @param result The token response.
 * @param request The scopes asked for, the authorization server, the client, the clock, the
 *   refresh token to keep when the response has none (a refresh), and the key the request was
 *   bound to, if any.
 * @returns The grant.
 * @throws {UpstreamAuthError} For another token type.
 */
export function grantOf(
  result: oauth.TokenEndpointResponse,
  request: {
    readonly asked: readonly string[];
    readonly issuer: string;
    readonly clientId: string;
    readonly clock: Clock;
    readonly previousRefresh?: string | undefined;
    readonly dpop?: DpopKey | undefined;
  },
): Grant {
  const { asked, issuer, clientId, clock, previousRefresh, dpop } = request;
  const type = result.token_type.toLowerCase();
  if (type !== "bearer" && !(type === "dpop" && dpop !== undefined)) {
    throw new UpstreamAuthError(
      `sign-in failed: the authorization server "${issuer}" issued a "${result.token_type}" token, expected "${
        dpop === undefined ? "Bearer" : "DPoP"
      }"`,
    );
  }
  return {
    ...(type === "dpop" ? { dpop } : {}),
    accessToken: result.access_token,
    refreshToken: result.refresh_token ?? previousRefresh,
    expiresAt: result.expires_in === undefined ? null : clock.now() + result.expires_in * 1000,
    scopes: typeof result.scope === "string" ? result.scope.split(" ").filter((s) => s !== "") : [...asked],
    issuer,
    clientId,
  };
}

/** The error for a server that wants DPoP-bound tokens from an authorization server that cannot bind them. */
export function dpopUnsupported(as: oauth.AuthorizationServer): UpstreamAuthError {
  return new UpstreamAuthError(
    `sign-in refused: the server asks for DPoP-bound tokens, but its authorization server "${as.issuer}" does not list "ES256" in dpop_signing_alg_values_supported`,
  );
}

/** Says how the callback's `iss` failed RFC 9207 §2.4 (never its `error`: an unverified response is not acted on). */
function issProblem(callbackUrl: URL, as: oauth.AuthorizationServer): string {
  const iss = callbackUrl.searchParams.get("iss");
  if (iss === null) {
    return as.authorization_response_iss_parameter_supported === true
      ? `has no "iss" although the authorization server "${as.issuer}" declares authorization_response_iss_parameter_supported`
      : "does not match the sign-in that was started";
  }
  if (iss !== as.issuer) {
    return `names the issuer ${JSON.stringify(iss.slice(0, 200))}, expected exactly "${as.issuer}"`;
  }
  return "does not match the sign-in that was started (state)";
}

/**
 * Who sluice is at `as`: the policy's pre-registered client (bound to its issuer), else the
 * Client ID Metadata Document URL where the server supports it, else a registration made with
 * Dynamic Client Registration (kept in the store per server, issuer and redirect URI).
 */
async function identifyClient(
  context: CodeGrantContext,
  as: oauth.AuthorizationServer,
): Promise<Registration> {
  const { client } = context.auth;
  if (client !== undefined) {
    if (client.issuer !== as.issuer) {
      const head =
        `sign-in refused: the policy's client "${client.clientId}" is registered with "${client.issuer}" (transport.auth.oauth.issuer)`;
      throw new UpstreamAuthError(
        client.issuer.replace(/\/$/, "") === as.issuer.replace(/\/$/, "")
          ? `${head}, but the authorization server's issuer is "${as.issuer}": issuers are compared as written, so write it so in the policy`
          : `${head}, but the server now names the authorization server "${as.issuer}"; register a client there and update the policy`,
      );
    }
    return policyRegistration(client, as);
  }
  if (context.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
    return metadataDocumentClient(as, context.clientMetadataUrl);
  }
  const stored = await keptRegistration(context, as.issuer);
  if (stored !== undefined) return stored;
  if (as.registration_endpoint === undefined) {
    throw new UpstreamAuthError(
      `sign-in failed: the authorization server "${as.issuer}" offers neither Client ID Metadata Documents nor Dynamic Client Registration; register a client there and set transport.auth.oauth.clientId and issuer`,
    );
  }
  return await register(context, as);
}

/**
 * The client a grant is refreshed as: a Client ID Metadata Document's grant as its client id without
 * authentication (nothing is stored for it); any other as the policy's client or its stored
 * registration.
 *
 * @param context The server's sign-in.
 * @param as The issuer's metadata.
 * @param grant The grant to refresh.
 * @returns The registration, or `undefined` when its client is no longer known.
 */
async function grantRegistration(
  context: CodeGrantContext,
  as: oauth.AuthorizationServer,
  grant: Grant,
): Promise<Registration | undefined> {
  if (grant.clientSource === "metadata-document") return metadataDocumentClient(as, grant.clientId);
  const { client } = context.auth;
  if (client !== undefined) {
    return client.issuer === as.issuer && grant.clientId === client.clientId
      ? policyRegistration(client, as)
      : undefined;
  }
  if (grant.clientId === context.clientMetadataUrl) return metadataDocumentClient(as, grant.clientId);
  const stored = await keptRegistration(context, as.issuer);
  return stored?.clientId === grant.clientId ? stored : undefined;
}

/** The client sluice registered with `issuer`, as kept in the store, if any. */
async function keptRegistration(
  context: CodeGrantContext,
  issuer: string,
): Promise<Registration | undefined> {
  const text = await context.tokens.get(registrationKey(context, issuer));
  if (text === undefined) return undefined;
  const registration = JSON.parse(text) as Registration;
  return registration.issuer === issuer ? registration : undefined;
}

function policyRegistration(
  client: NonNullable<CompiledOAuthSignIn["client"]>,
  as: oauth.AuthorizationServer,
): Registration {
  return { issuer: as.issuer, clientId: client.clientId, method: policyMethod(client, as), source: "policy" };
}

function metadataDocumentClient(as: oauth.AuthorizationServer, clientId: string): Registration {
  return { issuer: as.issuer, clientId, method: "none", source: "metadata-document" };
}

/** The methods sluice can use, in its order of preference for a client of its own registration. */
const REGISTRATION_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

async function register(context: CodeGrantContext, as: oauth.AuthorizationServer): Promise<Registration> {
  const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  const method = REGISTRATION_METHODS.find((candidate) => supported.includes(candidate)) ?? "none";
  const metadata = {
    client_name: context.clientName,
    redirect_uris: [context.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    // SEP-837: a callback on this machine is a native client's; any other is a web client's.
    application_type: hasLoopbackHost(new URL(context.redirectUri)) ? "native" : "web",
  };
  const endpoint = new URL(as.registration_endpoint ?? as.issuer);
  let result: { client_id: string; client_secret?: unknown; token_endpoint_auth_method?: unknown };
  try {
    const response = await oauth.dynamicClientRegistrationRequest(as, metadata, {
      ...requestOptions<"POST", string>(endpoint, context.fetch, undefined),
    });
    result = await registrationResponse(response, as.issuer);
  } catch (error) {
    throw new UpstreamAuthError(`client registration failed: ${describeTokenFailure(as.issuer, error)}`);
  }
  const returned = typeof result.token_endpoint_auth_method === "string"
    ? result.token_endpoint_auth_method
    : method;
  if (!(REGISTRATION_METHODS as readonly string[]).includes(returned)) {
    throw new UpstreamAuthError(
      `client registration failed: the authorization server "${as.issuer}" registered the token endpoint auth method "${returned}", expected one of ${
        REGISTRATION_METHODS.map((m) => `"${m}"`).join(", ")
      }`,
    );
  }
  const registration: Registration = {
    issuer: as.issuer,
    clientId: result.client_id,
    clientSecret: typeof result.client_secret === "string" ? result.client_secret : undefined,
    method: returned as Registration["method"],
    source: "registration",
  };
  await context.tokens.set(registrationKey(context, as.issuer), JSON.stringify(registration));
  return registration;
}

/**
 * Reads a registration response (RFC 7591 §3.2.1). Not oauth4webapi's, which refuses a
 * `client_secret` without `client_secret_expires_at`, as servers in use (and the conformance suite's)
 * send.
 */
async function registrationResponse(
  response: Response,
  issuer: string,
): Promise<{ client_id: string; client_secret?: unknown; token_endpoint_auth_method?: unknown }> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const fields = typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
  if (response.status !== 201 && response.status !== 200) {
    const error = typeof fields.error === "string" ? `, error "${fields.error.slice(0, 100)}"` : "";
    throw new UpstreamAuthError(
      `the authorization server "${issuer}" refused the registration with HTTP ${response.status}${error}${
        quotedDescription(fields.error_description)
      }`,
    );
  }
  if (typeof fields.client_id !== "string" || fields.client_id === "") {
    throw new UpstreamAuthError(
      `the authorization server "${issuer}" answered the registration without a client_id`,
    );
  }
  return fields as { client_id: string };
}

/** The policy's method, else `client_secret_basic` with a secret (or `client_secret_post` when that is all the server lists), else `none`. */
function policyMethod(
  client: NonNullable<CompiledOAuthSignIn["client"]>,
  as: oauth.AuthorizationServer,
): Registration["method"] {
  if (client.method !== undefined) return client.method;
  if (client.secretEnv === undefined) return "none";
  return prefersSecretPost(as) ? "client_secret_post" : "client_secret_basic";
}

function clientAuthentication(context: CodeGrantContext, registration: Registration): oauth.ClientAuth {
  if (registration.method === "none") return oauth.None();
  const env = context.auth.client?.secretEnv;
  const secret = registration.source === "policy" && env !== undefined
    ? readSecret(context.environment, env, "transport.auth.oauth.clientSecretEnv")
    : registration.clientSecret;
  if (secret === undefined) {
    throw new UpstreamAuthError(
      `sign-in failed: the client "${registration.clientId}" uses "${registration.method}" but has no secret`,
    );
  }
  return registration.method === "client_secret_post"
    ? oauth.ClientSecretPost(secret)
    : clientSecretBasic(secret);
}
