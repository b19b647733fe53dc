/**
 * Signing in to an OAuth-protected MCP server: a `Fetcher` wrapping the server's own, so every
 * request of both protocol eras takes the same path. On a 401 from the server's origin it gets a
 * token for the principal (client credentials; or authorization code: a refresh, else the person's
 * sign-in through `authorize`) and retries once; a 403 `insufficient_scope` asks for the union of
 * the scopes, at most {@linkcode MAX_STEP_UPS} times in a row.
 *
 * Tokens are kept per server, endpoint and principal (see `grantKey`), sent only to the server's
 * origin, and never appear in errors. `_kept-grants.ts` keeps grants fresh, `_grant-source.ts` gets
 * them; this file sends requests and answers challenges.
 *
 * @module
 */
import type { CompiledUpstreamAuth } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { resourceProof } from "./_dpop.ts";
import type { EnvironmentReader } from "./_token-request.ts";
import type { Grant, PendingFlow } from "./authorization-code.ts";
import { type Challenge, challengeOf, NO_CHALLENGE } from "./_challenge.ts";
import {
  type Authorize,
  type GrantAsk,
  GrantSource,
  type SignInOverrides,
  type SignInRequest,
  type UpstreamSignInOptions,
} from "./_grant-source.ts";
import { KeptGrants } from "./_kept-grants.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import { discardBody } from "../transport/body-reader.ts";

export type { Authorize, EnvironmentReader, SignInOverrides, SignInRequest, UpstreamSignInOptions };

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
   * Starts a sign-in by the person without a request (`sluice login`); the server is asked for its
   * challenge first.
   *
   * @param principal Whose sign-in. @default ""
   * @param signal Aborts discovery and registration.
   * @returns The authorization URL and its flow.
   */
  begin(principal?: string, signal?: AbortSignal): Promise<Omit<SignInRequest, "completed">>;
  /**
   * Finishes a flow taken from the store (see `takeFlow`): checks the callback, exchanges the code
   * (within 25 s), stores the grant. The flow is spent either way.
   *
   * @param flow The flow.
   * @param callbackUrl The URL the authorization server sent the person back to.
   * @param options `signal` ends the code exchange.
   * @returns Whose grant it is.
   * @throws {UpstreamAuthError} When the callback or the token request fails a check, the token
   *   request got no answer in time, or `signal` ended it.
   */
  complete(
    flow: PendingFlow,
    callbackUrl: URL,
    options?: { readonly signal?: AbortSignal | undefined },
  ): Promise<{ readonly principal: string }>;
  /**
   * Forgets a principal's tokens for this server.
   *
   * @param principal Whose. @default ""
   */
  signOut(principal?: string): Promise<void>;
}

/** How many step-up sign-ins (403 `insufficient_scope`) in a row, before the 403 is the answer. */
export const MAX_STEP_UPS = 2;

/**
 * Creates the sign-in of one server.
 *
 * @param options The transport with its `auth`, the fetch, the environment, the clock and the store.
 * @returns The sign-in; its fetchers share the discovered metadata.
 * @throws {TypeError} When the redirect URI is not a URL, has a fragment, or is neither `https:` nor
 *   `http:` on loopback.
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
  const source = new GrantSource(options);
  const grants = new KeptGrants(source, options);
  const requests = new SignedRequests(grants, options);
  return Object.freeze({
    kind: options.transport.auth.kind,
    fetcher: (principal = "", overrides: SignInOverrides = {}) => requests.fetcher(principal, overrides),
    begin: async (principal = "", signal?: AbortSignal) => {
      const started = await source.begin(principal, { challenge: undefined, signal });
      return { server: options.server, principal, ...started };
    },
    complete: async (
      flow: PendingFlow,
      callbackUrl: URL,
      completing: { readonly signal?: AbortSignal | undefined } = {},
    ) => {
      await source.complete(flow, callbackUrl, {
        signal: completing.signal,
        signedIn: () => grants.drop(flow.principal),
      });
      return { principal: flow.principal };
    },
    signOut: (principal = "") => grants.forget(principal),
  });
}

/**
 * The failure of a request still refused for `insufficient_scope` after a step-up sign-in, or once
 * the step-ups in a row are used up.
 */
function scopesNotGot(grant: Grant, challenge: Challenge, after: string): UpstreamAuthError {
  const missing = (challenge.scopes ?? []).filter((scope) => !grant.scopes.includes(scope));
  const named = missing.length === 0 ? "" : ` ${missing.map((scope) => JSON.stringify(scope)).join(", ")}`;
  return new UpstreamAuthError(
    `the server still refuses this request for want of the scope${named} ${after} (the token has ${
      JSON.stringify(grant.scopes.join(" "))
    })`,
  );
}

/** Sends a principal's requests with its token, and answers the server's 401 and 403 challenges. */
class SignedRequests {
  readonly #grants: KeptGrants;
  readonly #options: UpstreamSignInOptions;
  /** Step-up sign-ins in a row, per principal, until a response is neither 403 nor 401. */
  readonly #stepUps = new Map<string, number>();
  /** The MCP server's last DPoP nonce (RFC 9449 §9), sent in the next proofs. */
  #resourceNonce: string | undefined;

  constructor(grants: KeptGrants, options: UpstreamSignInOptions) {
    this.#grants = grants;
    this.#options = options;
  }

  /** A fetch for the principal's requests: see {@linkcode UpstreamSignIn.fetcher}. */
  fetcher(principal: string, overrides: SignInOverrides): Fetcher {
    return async (url, init) => {
      // The token goes to the server's origin only (a redirect elsewhere gets none).
      if (new URL(url).origin !== this.#options.transport.origin) return await this.#options.fetch(url, init);
      const signal = init.signal ?? undefined;
      const { grant: sendable, unrefreshed } = await this.#grants.current(principal, signal);
      let grant = sendable;
      let response = await this.#send(url, init, grant);
      if (response.status === 401) {
        const challenge = await challengeOf(response);
        await discardBody(response);
        if (challenge === undefined && unrefreshed !== undefined) throw unrefreshed;
        // Without a challenge, discovery goes to the well-known URLs, as the spec says a client MUST.
        grant = await this.#grants.renew(principal, grant, {
          challenge: challenge ?? NO_CHALLENGE,
          signal,
          overrides,
        });
        response = await this.#send(url, init, grant);
        if (response.status === 401) await this.#refusedNewToken(principal, response);
      }
      if (response.status === 403 && grant !== undefined) {
        const challenge = await challengeOf(response);
        const stepUp = this.#stepUp(principal, grant, challenge, { signal, overrides });
        if (stepUp !== undefined) {
          stepUp.catch(() => {});
          await discardBody(response);
          grant = await stepUp;
          response = await this.#send(url, init, grant);
          if (response.status === 401) await this.#refusedNewToken(principal, response);
          // Still lacking a scope after the sign-in: asking again would ask the person the same.
          const again = response.status === 403 ? await challengeOf(response) : undefined;
          if (again?.error === "insufficient_scope") {
            await discardBody(response);
            throw scopesNotGot(grant, again, "after a sign-in for it");
          }
        }
      }
      if (response.status !== 403 && response.status !== 401) this.#stepUps.delete(principal);
      return response;
    };
  }

  /** A token just issued that the server refuses: forgotten, and the request fails. */
  async #refusedNewToken(principal: string, response: Response): Promise<never> {
    await this.#grants.forget(principal);
    await discardBody(response);
    const error = (await challengeOf(response))?.error;
    throw new UpstreamAuthError(
      `sign-in failed: the server refused the access token it was just issued (HTTP 401${
        error === undefined ? "" : `, error "${error}"`
      })`,
    );
  }

  /**
   * The step-up a 403 `insufficient_scope` asks for, at most {@linkcode MAX_STEP_UPS} in a row;
   * `undefined` when the 403 is the answer. Decided and started with no wait between, so requests
   * refused together count one sign-in.
   *
   * @returns The step-up's grant, coming.
   * @throws {UpstreamAuthError} When the step-ups in a row are used up.
   */
  #stepUp(
    principal: string,
    grant: Grant,
    challenge: (Challenge & { error: string | undefined }) | undefined,
    ask: Pick<GrantAsk, "signal" | "overrides">,
  ): Promise<Grant> | undefined {
    if (challenge?.error !== "insufficient_scope") return undefined;
    const again = [...new Set([...grant.scopes, ...challenge.scopes ?? []])];
    const renew = () => this.#grants.renew(principal, undefined, { ...ask, challenge, again });
    // A step-up the person is asked for now is joined, and counts once.
    if (this.#grants.steppingUp(principal)) return renew();
    const tries = this.#stepUps.get(principal) ?? 0;
    if (tries >= MAX_STEP_UPS) {
      throw scopesNotGot(grant, challenge, `after ${MAX_STEP_UPS} sign-ins for more in a row`);
    }
    // A client credentials token with every scope asked for already cannot get more.
    if (this.#options.transport.auth.kind === "client_credentials" && again.length === grant.scopes.length) {
      return undefined;
    }
    this.#stepUps.set(principal, tries + 1);
    return renew();
  }

  /** Sends `init` with the grant's token; a DPoP nonce the server asks for is sent once more. */
  async #send(url: string, init: RequestInit, grant: Grant | undefined): Promise<Response> {
    const { fetch } = this.#options;
    let response = await fetch(url, await withToken(init, grant, url, this.#resourceNonce));
    const nonce = response.headers.get("dpop-nonce");
    if (nonce === null || grant?.dpop === undefined) return response;
    const fresh = nonce !== this.#resourceNonce;
    this.#resourceNonce = nonce;
    if (response.status === 401 && fresh && (await challengeOf(response))?.error === "use_dpop_nonce") {
      await discardBody(response);
      response = await fetch(url, await withToken(init, grant, url, this.#resourceNonce));
    }
    return response;
  }
}

/** A fresh init with the grant's token: `Bearer`, or `DPoP` with a proof for this request. */
async function withToken(
  init: RequestInit,
  grant: Grant | undefined,
  url: string,
  nonce: string | undefined,
): Promise<RequestInit> {
  if (grant === undefined) return init;
  // The caller's headers object is never changed.
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  if (grant.dpop === undefined) {
    headers.authorization = `Bearer ${grant.accessToken}`;
  } else {
    headers.authorization = `DPoP ${grant.accessToken}`;
    headers.dpop = await resourceProof(grant.dpop, init.method ?? "GET", url, grant.accessToken, nonce);
  }
  return { ...init, headers };
}
