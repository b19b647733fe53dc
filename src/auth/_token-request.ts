/**
 * What the token requests of both grants share: reading secrets from the environment,
 * `client_secret_basic` as the form encoding has it, and failures described without secrets.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { UpstreamAuthError } from "../upstream-auth-error.ts";

/** Reads an environment variable. */
export type EnvironmentReader = (name: string) => string | undefined;

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then HTTP Basic. It is
 * oauth4webapi's `ClientSecretBasic` but for the encoding: oauth4webapi also percent-encodes
 * `-`, `.`, `_` and `*`, which the form encoding leaves as they are (WHATWG URL, what
 * `URLSearchParams` writes); an authorization server that compares the Basic credentials without
 * decoding them (the conformance suite's does) refuses a secret such as `my-secret` sent that way.
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

/**
 * Says why a token (or registration) request failed: the server's error code and description,
 * never the request's secrets.
 *
 * @param issuer The authorization server.
 * @param error What was thrown.
 * @returns The description.
 */
export function describeTokenFailure(issuer: string, error: unknown): string {
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
