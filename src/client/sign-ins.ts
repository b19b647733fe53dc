/**
 * The client's upstream sign-ins: one per server whose policy has `transport.auth`, sharing the
 * client's token store; the handler's `authorize` callback behind a URL check; and the methods
 * that start, finish and forget a sign-in.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import type { Timers } from "../_internal/timers.ts";
import { ClientError } from "../errors.ts";
import { signalOf } from "./client-methods.ts";
import type { AuthorizeAnswer, Handler } from "../handler/handler.ts";
import { type CompiledPolicy, createPolicyUrlCheck } from "../policy/compile-policy.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { hasLoopbackHost } from "../_internal/loopback-host.ts";
import { errorText } from "../_internal/error-text.ts";
import { thrownName } from "../_internal/quote.ts";
import { takeFlow } from "../auth/authorization-code.ts";
import type { TokenStore } from "../auth/token-store.ts";
import { UpstreamAuthError } from "../upstream-auth-error.ts";
import type { Client } from "./client-types.ts";
import {
  type Authorize,
  createUpstreamSignIn,
  type EnvironmentReader,
  type UpstreamSignIn,
} from "../auth/upstream-sign-in.ts";

/** What every sign-in of a client shares. */
export interface SignInParts {
  readonly fetch: Fetcher;
  readonly environment: EnvironmentReader;
  readonly clock: Clock;
  /** The timers a person's sign-in is given up by, at the flow's expiry. */
  readonly timers: Timers;
  readonly tokens: TokenStore;
  readonly redirectUri: string | undefined;
  readonly clientMetadataUrl: string | undefined;
  readonly clientName: string;
  readonly handler: Handler | undefined;
}

/**
 * The sign-in of one server, when its policy has `transport.auth`.
 *
 * @param policy The server's policy.
 * @param parts What the client's sign-ins share.
 * @returns The sign-in, or `undefined`.
 */
export function serverSignIn(policy: CompiledPolicy, parts: SignInParts): UpstreamSignIn | undefined {
  const { transport } = policy;
  if (transport.kind !== "http" || transport.auth === undefined) return undefined;
  return createUpstreamSignIn({
    ...parts,
    server: policy.server,
    transport: { ...transport, auth: transport.auth },
    authorize: parts.handler?.authorize === undefined ? undefined : handlerAuthorize(policy, parts),
  });
}

/** An authorization URL as a person is shown it. */
export interface ShownUrl {
  /** The URL, normalised. */
  readonly url: string;
  /** Its host, in A-label form. */
  readonly host: string;
  /** Whether a host label is an IDN. */
  readonly idn: boolean;
}

/**
 * Checks an authorization URL against the policy's URL rules, as a URL elicitation's (a loopback
 * authorization server, which discovery accepts only for development, is shown as it is). The library's
 * `authorize` and `sluice login` show what this lets through.
 *
 * @param policy The server's policy.
 * @param raw The authorization URL.
 * @returns What to show, or why it is refused.
 */
export function shownAuthorizationUrl(policy: CompiledPolicy, raw: string): ShownUrl | string {
  const url = new URL(raw);
  if (hasLoopbackHost(url)) return { url: url.href, host: url.hostname, idn: false };
  const verdict = createPolicyUrlCheck(policy).check({ url: raw }, undefined);
  if (!verdict.ok) {
    return `sign-in to "${policy.server}" refused: ${
      verdict.refusal.message.replace(/^Elicitation URL refused: /, "the authorization URL is refused: ")
    }`;
  }
  const { context } = verdict.value;
  return { url: context.url, host: context.host, idn: context.idn };
}

/**
 * The handler's `authorize` behind the policy's URL rules ({@linkcode shownAuthorizationUrl}).
 * After `"accept"` it waits for the flow to be completed (`completeAuthorization`) until the flow
 * expires or the request is abandoned.
 */
function handlerAuthorize(policy: CompiledPolicy, parts: SignInParts): Authorize {
  const authorize = parts.handler?.authorize;
  return async (request, signal) => {
    const shown = shownAuthorizationUrl(policy, request.url);
    if (typeof shown === "string") throw new UpstreamAuthError(shown);
    const abandoned = signal ?? new AbortController().signal;
    let answer: AuthorizeAnswer | undefined;
    try {
      answer = await authorize?.({ ...shown, expiresAt: request.expiresAt }, {
        client: parts.clientName,
        serverId: request.server,
        signal: abandoned,
      });
    } catch (error) {
      // A failed completeAuthorization inside the callback: its own words, once.
      if (error instanceof ClientError && error.cause instanceof UpstreamAuthError) throw error.cause;
      if (abandoned.aborted) throw abandoned.reason;
      const message = error instanceof Error ? `: ${error.message.slice(0, 300)}` : "";
      throw new UpstreamAuthError(
        `sign-in to "${request.server}" failed: the handler's authorize threw ${thrownName(error)}${message}`,
      );
    }
    if (answer?.action !== "accept") {
      throw new UpstreamAuthError(
        `sign-in to "${request.server}" was not made: the handler's authorize answered ${
          JSON.stringify(answer?.action ?? String(answer))
        }`,
      );
    }
    const ms = request.expiresAt - parts.clock.now();
    await waitFor(request.completed, { ms, timers: parts.timers }, abandoned, request.server);
  };
}

function waitFor(
  completed: Promise<void>,
  { ms, timers }: { readonly ms: number; readonly timers: Timers },
  signal: AbortSignal,
  server: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = timers.setTimeout(
      () => finish(new UpstreamAuthError(`sign-in to "${server}" was not completed in time`)),
      Math.max(0, ms),
    );
    const onAbort = () => finish(signal.reason);
    const finish = (error?: unknown) => {
      timers.clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    completed.then(() => finish(), (error: unknown) => finish(error ?? new Error("sign-in failed")));
  });
}

/**
 * The methods that start, finish and forget a sign-in, for the client's own principal.
 *
 * @param signIns The sign-in of each server that has one.
 * @param tokens The client's token store.
 * @param principal Whose tokens the client's calls use.
 * @param closed The error the methods fail with once the client is closed; `undefined` before.
 * @returns The methods.
 */
export function createSignInMethods(
  signIns: ReadonlyMap<string, UpstreamSignIn>,
  tokens: TokenStore,
  principal: string,
  closed: () => ClientError | undefined,
): Pick<Client, "beginAuthorization" | "completeAuthorization" | "signOut"> {
  const signInOf = (serverId: string): UpstreamSignIn => {
    // A closed client starts, completes and forgets no sign-in, as it makes no call.
    const refused = closed();
    if (refused !== undefined) throw refused;
    const signIn = signIns.get(serverId);
    if (signIn === undefined) {
      throw new ClientError("config", `Server "${serverId}" has no policy with "transport.auth.oauth"`, {
        serverId,
      });
    }
    return signIn;
  };
  // Only a person's sign-in (oauth) is begun and completed here: client credentials need none.
  const personSignInOf = (serverId: string): UpstreamSignIn => {
    const signIn = signInOf(serverId);
    if (signIn.kind === "authorization_code") return signIn;
    throw new ClientError(
      "config",
      `Server "${serverId}" has "transport.auth.clientCredentials", expected "transport.auth.oauth": ` +
        "the client signs in to it by itself, with no person",
      { serverId },
    );
  };
  const failed = (serverId: string, error: unknown): ClientError =>
    error instanceof ClientError ? error : new ClientError(
      "transport",
      `Server "${serverId}": ${errorText(error)}`,
      { serverId, cause: error },
    );
  return {
    beginAuthorization: async (serverId) => {
      const signIn = personSignInOf(serverId);
      try {
        const { url, expiresAt } = await signIn.begin(principal);
        return { url, expiresAt };
      } catch (error) {
        throw failed(serverId, error);
      }
    },
    completeAuthorization: async (serverId, callbackUrl, options = {}) => {
      const signIn = personSignInOf(serverId);
      const signal = signalOf(serverId, "completeAuthorization", options);
      // The caller's mistake: nothing was sent, and the URL is not quoted (it may carry the code).
      if (typeof callbackUrl !== "string" || !URL.canParse(callbackUrl)) {
        throw new ClientError(
          "config",
          `Sign-in to server "${serverId}": the callback URL is not a URL, expected the absolute URL ` +
            "the authorization server redirected to",
          { serverId, code: -32602 },
        );
      }
      try {
        // Before the callback is taken: it stays unused, for a retry.
        signal?.throwIfAborted();
        const url = new URL(callbackUrl);
        const flow = await takeFlow(tokens, url, serverId);
        await signIn.complete(flow, url, { signal });
      } catch (error) {
        if (signal?.aborted === true) {
          throw new ClientError("cancelled", `Sign-in to server "${serverId}" was cancelled`, {
            serverId,
            cause: signal.reason,
          });
        }
        throw failed(serverId, error);
      }
    },
    signOut: async (serverId) => {
      await signInOf(serverId).signOut(principal);
    },
  };
}
