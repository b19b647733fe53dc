/**
 * The client credentials grant (machine to machine, no person takes part): a pre-registered
 * confidential client authenticates with a secret (`client_secret_basic`, or
 * `client_secret_post` when that is all the server lists) or a private key (`private_key_jwt`).
 *
 * @module
 */
import { importPKCS8 } from "jose";
import * as oauth from "oauth4webapi";
import type { Clock } from "../_internal/clock.ts";
import type { CompiledClientCredentials } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import {
  clientSecretBasic,
  describeTokenFailure,
  type EnvironmentReader,
  prefersSecretPost,
  readSecret,
  tokenRequestOptions,
} from "./_token-request.ts";
import { dpopUnsupported, type Grant, grantOf } from "./authorization-code.ts";
import { newDpopKey, supportsDpop, withDpop } from "./_dpop.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";

/** What a client credentials token request needs. */
export interface ClientCredentialsRequest {
  /** The resource (RFC 8707). */
  readonly resource: string;
  /** The scopes, or none. */
  readonly scopes: readonly string[];
  /** Whether the token is to be bound to a new DPoP key. */
  readonly dpop: boolean;
  /** Aborts the request. */
  readonly signal: AbortSignal | undefined;
  /** The policy's client. */
  readonly auth: CompiledClientCredentials;
  readonly fetch: Fetcher;
  readonly environment: EnvironmentReader;
  readonly clock: Clock;
}

/**
 * Asks for a token with the client credentials grant.
 *
 * @param as The authorization server's metadata.
 * @param request The resource, scopes, DPoP, signal, the policy's client, the fetch, the environment and the clock.
 * @returns The tokens (never a refresh token: none is needed).
 * @throws {UpstreamAuthError} When a secret is missing or the server refuses.
 */
export async function requestClientCredentialsToken(
  as: oauth.AuthorizationServer,
  request: ClientCredentialsRequest,
): Promise<Grant> {
  const { auth, resource, scopes, dpop, signal } = request;
  if (dpop && !supportsDpop(as)) throw dpopUnsupported(as);
  const client: oauth.Client = { client_id: auth.clientId };
  const parameters = new URLSearchParams({ resource });
  if (scopes.length > 0) parameters.set("scope", scopes.join(" "));
  const authentication = await clientAuthentication(as, request);
  const key = dpop ? await newDpopKey() : undefined;
  const http = tokenRequestOptions(as, request.fetch, signal);
  let result: oauth.TokenEndpointResponse;
  try {
    result = await withDpop(client, key, async (dpop) => {
      const response = await oauth.clientCredentialsGrantRequest(as, client, authentication, parameters, {
        ...http,
        ...dpop,
      });
      return await oauth.processClientCredentialsResponse(as, client, response);
    });
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw new UpstreamAuthError(`sign-in failed: ${describeTokenFailure(as.issuer, error)}`);
  }
  return grantOf(result, {
    asked: scopes,
    issuer: as.issuer,
    clientId: auth.clientId,
    clock: request.clock,
    dpop: key,
  });
}

/** `client_secret_basic` (or `client_secret_post` when that is all the server lists), or `private_key_jwt`. */
async function clientAuthentication(
  as: oauth.AuthorizationServer,
  request: ClientCredentialsRequest,
): Promise<oauth.ClientAuth> {
  const { credential } = request.auth;
  const setting = credential.kind === "secret" ? "clientSecretEnv" : "privateKeyEnv";
  const value = readSecret(
    request.environment,
    credential.env,
    `transport.auth.clientCredentials.${setting}`,
  );
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
  return prefersSecretPost(as) ? oauth.ClientSecretPost(value) : clientSecretBasic(value);
}
