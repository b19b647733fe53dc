/**
 * Signing in to an OAuth-protected MCP server with the client credentials grant: a `Fetcher`
 * that wraps the server's own, so both protocol eras (every POST, GET stream and DELETE of
 * either) take the same path.
 *
 * On a 401 with a `Bearer` challenge from the server's origin, it discovers the protected
 * resource metadata and the authorization server's metadata, requests a token through
 * oauth4webapi (`resource` = the metadata's resource, RFC 8707; `scope` = the policy's, else the
 * challenge's, else `scopes_supported`, else none) and retries the request once with it. A 403
 * `insufficient_scope` asks for a token with the union of the scopes and retries once more.
 * Tokens are kept in memory per principal until shortly before they expire, and only ever sent
 * to the server's origin. Secrets are read from the environment when a token is needed.
 *
 * @module
 */
import { importPKCS8 } from "jose";
import * as oauth from "oauth4webapi";
import type { Clock } from "../chain/verdict.ts";
import type { CompiledHttpTransport, CompiledUpstreamAuth } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/_fetch-with-redirects.ts";
import {
  discoverAuthorizationServer,
  discoverResource,
  requestOptions,
  type ResourceMetadata,
} from "./_discovery.ts";
import { UpstreamAuthError } from "./upstream-auth-error.ts";

/** Reads an environment variable. */
export type EnvironmentReader = (name: string) => string | undefined;

/** What {@linkcode createUpstreamSignIn} needs. */
export interface UpstreamSignInOptions {
  /** The server's HTTP transport; its `auth` says how to sign in. */
  readonly transport: CompiledHttpTransport & { readonly auth: CompiledUpstreamAuth };
  /** The fetch the server's requests, discovery and token requests go through. */
  readonly fetch: Fetcher;
  /** Reads the variables `auth` names. */
  readonly environment: EnvironmentReader;
  /** The clock tokens expire by. */
  readonly clock: Clock;
}

/** Signs in to one server, for any number of principals. */
export interface UpstreamSignIn {
  /**
   * A fetch that signs in on the server's challenge and sends the token.
   *
   * @param principal Whose tokens: each principal has its own. @default ""
   */
  fetcher(principal?: string): Fetcher;
}

interface Token {
  readonly accessToken: string;
  /** When it stops being used (shortly before it expires), or `Infinity`. */
  readonly renewAt: number;
  /** The scopes it was asked for. */
  readonly scopes: readonly string[];
}

interface Discovered {
  readonly resource: ResourceMetadata;
  readonly as: oauth.AuthorizationServer;
}

/** How long before its expiry a token is replaced, at most. */
const RENEW_MARGIN_MS = 30_000;

/**
 * Creates the sign-in of one server.
 *
 * @param options The transport with its `auth`, the fetch, the environment and the clock.
 * @returns The sign-in; its fetchers share the discovered metadata and the tokens.
 * @example
 * ```ts
 * import { compilePolicy } from "../policy/compile-policy.ts";
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
 *     transport: { ...transport, auth: transport.auth },
 *     fetch: (url, init) => fetch(url, init),
 *     environment: () => undefined,
 *     clock: Date,
 *   });
 *   console.log(typeof signIn.fetcher()); // function
 * }
 * ```
 */
export function createUpstreamSignIn(options: UpstreamSignInOptions): UpstreamSignIn {
  const { transport, fetch, clock } = options;
  const serverUrl = new URL(transport.url);
  const tokens = new Map<string, Token>();
  const pending = new Map<string, Promise<Token>>();
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

  const obtain = (principal: string, request: TokenAsk): Promise<Token> => {
    const running = pending.get(principal);
    if (running !== undefined) return running;
    const attempt = (async () => {
      const { resource, as } = await discover(request.metadataUrl, request.signal);
      const scopes = chooseScopes(transport.auth.scopes, request.scopes, resource.scopesSupported);
      const token = await requestToken(as, resource.resource, scopes, options, request.signal);
      tokens.set(principal, token);
      return token;
    })().finally(() => pending.delete(principal));
    pending.set(principal, attempt);
    return attempt;
  };

  const fetcher = (principal = ""): Fetcher => async (url, init) => {
    // The token goes to the server's origin only (a redirect elsewhere gets none).
    if (new URL(url).origin !== transport.origin) return await fetch(url, init);
    const signal = init.signal ?? undefined;
    let token = tokens.get(principal);
    if (token !== undefined && clock.now() >= token.renewAt) {
      // The server wants a token (it had one): a new one first, not a round trip without.
      tokens.delete(principal);
      token = await obtain(principal, { metadataUrl: undefined, scopes: token.scopes, signal });
    }
    let response = await fetch(url, withBearer(init, token));
    if (response.status === 401) {
      const challenge = await bearerChallenge(response);
      if (challenge === undefined) return response;
      await response.body?.cancel().catch(() => {});
      if (token !== undefined) {
        // A token the server no longer takes: its metadata may have changed too.
        tokens.delete(principal);
        discovered = undefined;
      }
      token = await obtain(principal, { ...challenge, signal });
      response = await fetch(url, withBearer(init, token));
      if (response.status === 401) {
        tokens.delete(principal);
        await response.body?.cancel().catch(() => {});
        const error = (await bearerChallenge(response))?.error;
        throw new UpstreamAuthError(
          `sign-in failed: the server refused the access token it was just issued (HTTP 401${
            error === undefined ? "" : `, error "${error}"`
          })`,
        );
      }
    }
    if (response.status === 403 && token !== undefined) {
      const challenge = await bearerChallenge(response);
      const wanted = challenge?.error === "insufficient_scope" ? challenge.scopes ?? [] : [];
      const union = [...new Set([...token.scopes, ...wanted])];
      if (union.length === token.scopes.length) return response;
      await response.body?.cancel().catch(() => {});
      tokens.delete(principal);
      token = await obtain(principal, { metadataUrl: challenge?.metadataUrl, scopes: union, signal });
      response = await fetch(url, withBearer(init, token));
    }
    return response;
  };

  return Object.freeze({ fetcher });
}

/** What a token is asked for with. */
interface TokenAsk {
  readonly metadataUrl: string | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly signal: AbortSignal | undefined;
}

/** The policy's scopes, else the challenge's, else `scopes_supported`, else none; on step-up the union. */
function chooseScopes(
  policy: readonly string[],
  challenged: readonly string[] | undefined,
  supported: readonly string[],
): readonly string[] {
  if (challenged !== undefined && challenged.length > 0 && policy.length > 0) {
    return [...new Set([...policy, ...challenged])];
  }
  if (policy.length > 0) return policy;
  if (challenged !== undefined && challenged.length > 0) return challenged;
  return supported;
}

async function requestToken(
  as: oauth.AuthorizationServer,
  resource: string,
  scopes: readonly string[],
  options: UpstreamSignInOptions,
  signal: AbortSignal | undefined,
): Promise<Token> {
  const { auth } = options.transport;
  const endpoint = new URL(as.token_endpoint ?? as.issuer);
  const client: oauth.Client = { client_id: auth.clientId };
  const parameters = new URLSearchParams({ resource });
  if (scopes.length > 0) parameters.set("scope", scopes.join(" "));
  const authentication = await clientAuthentication(as, options);
  const http = requestOptions<"POST", URLSearchParams>(endpoint, options.fetch, signal);
  let result: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.clientCredentialsGrantRequest(as, client, authentication, parameters, http);
    result = await oauth.processClientCredentialsResponse(as, client, response);
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw new UpstreamAuthError(`sign-in failed: ${describeTokenFailure(as.issuer, error)}`);
  }
  if (result.token_type.toLowerCase() !== "bearer") {
    throw new UpstreamAuthError(
      `sign-in failed: the authorization server "${as.issuer}" issued a "${result.token_type}" token, expected "Bearer"`,
    );
  }
  const now = options.clock.now();
  const lifetime = result.expires_in === undefined ? Infinity : result.expires_in * 1000;
  return {
    accessToken: result.access_token,
    renewAt: now + lifetime - Math.min(RENEW_MARGIN_MS, lifetime / 2),
    scopes,
  };
}

/** `client_secret_basic` (or `client_secret_post` when that is all the server lists), or `private_key_jwt`. */
async function clientAuthentication(
  as: oauth.AuthorizationServer,
  options: UpstreamSignInOptions,
): Promise<oauth.ClientAuth> {
  const { credential } = options.transport.auth;
  const setting = credential.kind === "secret" ? "clientSecretEnv" : "privateKeyEnv";
  const value = options.environment(credential.env);
  if (value === undefined || value === "") {
    throw new UpstreamAuthError(
      `sign-in failed: the environment variable "${credential.env}" named by "transport.auth.clientCredentials.${setting}" is not set`,
    );
  }
  if (credential.kind === "private_key") {
    let key: CryptoKey;
    try {
      key = await importPKCS8(value, credential.algorithm);
    } catch {
      throw new UpstreamAuthError(
        `sign-in failed: the environment variable "${credential.env}" does not hold a PKCS#8 PEM private key for "${credential.algorithm}"`,
      );
    }
    return oauth.PrivateKeyJwt({ key });
  }
  const methods = as.token_endpoint_auth_methods_supported;
  const postOnly = methods !== undefined && methods.includes("client_secret_post") &&
    !methods.includes("client_secret_basic");
  return postOnly ? oauth.ClientSecretPost(value) : clientSecretBasic(value);
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then HTTP Basic. It is
 * oauth4webapi's `ClientSecretBasic` but for the encoding: oauth4webapi also percent-encodes
 * `-`, `.`, `_` and `*`, which the form encoding leaves as they are (WHATWG URL, what
 * `URLSearchParams` writes); an authorization server that compares the Basic credentials without
 * decoding them (the conformance suite's does) refuses a secret such as `my-secret` sent that way.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) => new URLSearchParams([["", value]]).toString().slice(1);
  return (_as, client, _body, headers) => {
    headers.set("authorization", `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}

function describeTokenFailure(issuer: string, error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) {
    const description = typeof error.error_description === "string"
      ? ` (${JSON.stringify(error.error_description.slice(0, 200))})`
      : "";
    return `the authorization server "${issuer}" refused the token request with HTTP ${error.status}, error "${error.error}"${description}`;
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    // A refused client authentication may come back as a challenge (RFC 6749 §5.2, HTTP Basic).
    const parameters = error.cause[0]?.parameters ?? {};
    const code = parameters.error ?? "invalid_client";
    const description = parameters.error_description === undefined
      ? ""
      : ` (${JSON.stringify(parameters.error_description.slice(0, 200))})`;
    return `the authorization server "${issuer}" refused the token request with HTTP ${error.status}, error "${code}"${description}`;
  }
  if (error instanceof UpstreamAuthError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `the token request to the authorization server "${issuer}" failed: ${message}`;
}

/** A Bearer challenge's parameters, or `undefined` when the response has none (or an unparsable one). */
async function bearerChallenge(
  response: Response,
): Promise<
  { metadataUrl: string | undefined; scopes: string[] | undefined; error: string | undefined } | undefined
> {
  const challenges = await challengesOf(response);
  const bearer = challenges?.find((challenge) => challenge.scheme === "bearer");
  if (bearer === undefined) return undefined;
  const { parameters } = bearer;
  const scope = parameters.scope?.split(" ").filter((value) => value !== "");
  return { metadataUrl: parameters.resource_metadata, scopes: scope, error: parameters.error };
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

function withBearer(init: RequestInit, token: Token | undefined): RequestInit {
  if (token === undefined) return init;
  // A fresh init each time: the caller's headers object is never changed.
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  headers.authorization = `Bearer ${token.accessToken}`;
  return { ...init, headers };
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
