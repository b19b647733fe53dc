/**
 * What the token requests of both grants share: reading secrets from the environment, the
 * client authentication a server prefers, `client_secret_basic` as the form encoding has it, the
 * token endpoint's request options, and failures described without secrets.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import { oauthErrorText, requestOptions } from "./_discovery.ts";

/** Reads an environment variable. */
export type EnvironmentReader = (name: string) => string | undefined;

/**
 * Reads the secret in the environment variable `name`, which the policy's `option` names.
 *
 * @throws {UpstreamAuthError} When it is not set, or empty.
 */
export function readSecret(environment: EnvironmentReader, name: string, option: string): string {
  const value = environment(name);
  if (value === undefined || value === "") {
    throw new UpstreamAuthError(
      `sign-in failed: the environment variable "${name}" named by "${option}" is not set`,
    );
  }
  return value;
}

/** Whether a secret goes as `client_secret_post`: only when that is all `as` lists (else `client_secret_basic`). */
export function prefersSecretPost(as: oauth.AuthorizationServer): boolean {
  const methods = as.token_endpoint_auth_methods_supported;
  return methods !== undefined && methods.includes("client_secret_post") &&
    !methods.includes("client_secret_basic");
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then HTTP Basic. Not
 * oauth4webapi's, which also percent-encodes `-`, `.`, `_` and `*`: a server comparing without
 * decoding (the conformance suite's) would refuse a secret such as `my-secret`.
 *
 * @param secret The client secret.
 * @returns The client authentication.
 */
export function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) => new URLSearchParams([["", value]]).toString().slice(1);
  return (_as, client, _body, headers) => {
    headers.set("authorization", `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}

/** The HTTP options of a request to `as`'s token endpoint (see `requestOptions`). */
export function tokenRequestOptions(
  as: oauth.AuthorizationServer,
  fetch: Fetcher,
  signal: AbortSignal | undefined,
): oauth.HttpRequestOptions<"POST", URLSearchParams> {
  return requestOptions(new URL(as.token_endpoint ?? as.issuer), fetch, signal);
}

/** An OAuth `error_description` as a message appends it: ` ("…")`, at most 200 characters; or nothing. */
export function quotedDescription(description: unknown): string {
  return typeof description === "string" ? ` (${JSON.stringify(description.slice(0, 200))})` : "";
}

/**
 * Says why a token (or registration) request failed: the server's error code and description,
 * never the request's secrets.
 *
 * @param issuer The authorization server.
 * @param error What was thrown.
 * @returns The description.
 */
export function describeTokenFailure(issuer: string, error: unknown): string {
  const refusal = tokenRefusal(error);
  if (refusal !== undefined) {
    return `the authorization server "${issuer}" refused the token request with HTTP ${refusal.status}, error "${refusal.code}"${
      quotedDescription(refusal.description)
    }`;
  }
  if (error instanceof UpstreamAuthError) return error.message;
  return `the token request to the authorization server "${issuer}" failed: ${oauthErrorText(error)}`;
}

/**
 * The authorization server's refusal a token request failed with: an error response, or a challenge
 * (RFC 6749 §5.2), `invalid_client` when it names no error.
 *
 * @param error What the token request threw.
 * @returns Its status, error code and description, or `undefined` when it is no refusal.
 */
export function tokenRefusal(
  error: unknown,
): { status: number; code: string; description: unknown } | undefined {
  if (error instanceof oauth.ResponseBodyError) {
    return { status: error.status, code: error.error, description: error.error_description };
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const parameters = error.cause[0]?.parameters ?? {};
    return {
      status: error.status,
      code: parameters.error ?? "invalid_client",
      description: parameters.error_description,
    };
  }
  return undefined;
}
