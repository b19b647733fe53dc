/**
 * A protected MCP server's challenge (the `WWW-Authenticate` of its 401 or 403, RFC 9728 §5.1,
 * RFC 6750 §3): where its protected resource metadata is, the scopes it wants, and the error. A
 * sign-in without a request in flight asks for it with a tokenless MCP request, as the spec's flow
 * begins, since a server may name its metadata only there.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { discardBody } from "../transport/body-reader.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { mcpRequestHeaders } from "../protocol/mcp-request-headers.ts";

/** What the server's challenge said. */
export interface Challenge {
  readonly metadataUrl: string | undefined;
  readonly scopes: readonly string[] | undefined;
  /** The server sent a `DPoP` challenge: it takes DPoP-bound tokens (RFC 9449 §7.1). */
  readonly dpop?: boolean;
  /** The server sent a `Bearer` challenge: it takes unbound tokens (beside DPoP ones, when both). */
  readonly bearer?: boolean;
}

/** A challenge naming nothing: the server gave none, so discovery goes to the well-known URLs. */
export const NO_CHALLENGE: Challenge = Object.freeze({ metadataUrl: undefined, scopes: undefined });

/**
 * The requests that ask for the challenge, in turn until one gets a 401: `server/discover`, then
 * `tools/list` for a server that leaves discovery open. Unlike `initialize`, they open no session
 * and change nothing on a server that answers them without a token.
 */
const ASKS = ["server/discover", "tools/list"].map((method) => ({
  method,
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method,
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }),
}));

/**
 * Asks the MCP server for its challenge: MCP requests without a token (see {@linkcode ASKS}), whose
 * 401 names the protected resource metadata. Redirects are not followed (a 3xx is no challenge).
 *
 * @param serverUrl The MCP endpoint.
 * @param options The server's fetch and the signal.
 * @returns The first 401's challenge, or {@linkcode NO_CHALLENGE} when the server answered every
 *   request with anything else.
 * @throws {TypeError} When a request cannot be sent (the fetch's own failure).
 */
export async function askForChallenge(
  serverUrl: URL,
  options: { readonly fetch: Fetcher; readonly signal?: AbortSignal | undefined },
): Promise<Challenge> {
  for (const { method, body } of ASKS) {
    const init: RequestInit = {
      method: "POST",
      headers: mcpRequestHeaders({ protocolVersion: MODERN_PROTOCOL_VERSION, method }),
      body,
      redirect: "manual",
    };
    if (options.signal !== undefined) init.signal = options.signal;
    const response = await options.fetch(serverUrl.href, init);
    const challenge = response.status === 401 ? await challengeOf(response) : undefined;
    await discardBody(response);
    if (challenge !== undefined) {
      const { error: _error, ...found } = challenge;
      return found;
    }
  }
  return NO_CHALLENGE;
}

/**
 * The server's `Bearer` and `DPoP` challenges, or `undefined` when it has neither (or an unparsable
 * one). A server may offer both (RFC 9449 §7.1): each parameter is read from `DPoP` first.
 *
 * @param response The server's 401 or 403.
 * @returns The challenge, or `undefined`.
 */
export async function challengeOf(
  response: Response,
): Promise<(Challenge & { error: string | undefined }) | undefined> {
  const challenges = await challengesOf(response);
  const dpop = challenges?.find((challenge) => challenge.scheme === "dpop");
  const bearer = challenges?.find((challenge) => challenge.scheme === "bearer");
  if (dpop === undefined && bearer === undefined) return undefined;
  const parameter = (name: "resource_metadata" | "scope" | "error") =>
    dpop?.parameters[name] ?? bearer?.parameters[name];
  return {
    metadataUrl: parameter("resource_metadata"),
    scopes: parameter("scope")?.split(" ").filter((value) => value !== ""),
    error: parameter("error"),
    dpop: dpop !== undefined,
    bearer: bearer !== undefined,
  };
}

/**
 * oauth4webapi's `WWW-Authenticate` parser (RFC 9110 §11.6.1), which 3.8.8 does not export, reached
 * through `protectedResourceRequest`; its fetch returns the response at hand, so nothing is sent.
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
