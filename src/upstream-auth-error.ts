/**
 * The error an upstream sign-in fails with: its message says what went wrong and never carries
 * a secret or a token. The HTTP send turns it into the call's `"transport"` failure.
 *
 * @module
 */

/**
 * A failed sign-in to an upstream MCP server (discovery, token request, or a refused token).
 *
 * @example
 * ```ts
 * import { UpstreamAuthError } from "./upstream-auth-error.ts";
 * const error = new UpstreamAuthError("sign-in failed: no token");
 * console.log(error.name, error.message); // UpstreamAuthError sign-in failed: no token
 * ```
 */
export class UpstreamAuthError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed, without secrets or tokens.
   */
  constructor(message: string) {
    super(message);
    this.name = "UpstreamAuthError";
  }
}

/**
 * A request that needs the person to sign in first, where no one can be asked now (no `authorize`
 * callback, or the gateway asks its caller). A started sign-in's authorization URL is on `url`,
 * never in the message, since messages get logged.
 *
 * @example
 * ```ts
 * import { SignInRequiredError } from "./upstream-auth-error.ts";
 * const error = new SignInRequiredError({ server: "github", principal: "" });
 * console.log(error.message); // server "github" needs a sign-in (give the handler an `authorize` callback, or run `sluice login github`)
 * ```
 */
export class SignInRequiredError extends UpstreamAuthError {
  /** The server's id. */
  readonly server: string;
  /** Whose sign-in (`""`: the client's own). */
  readonly principal: string;
  /** The authorization URL to open, when a sign-in was started. */
  readonly url: string | undefined;
  /** The started flow's `state`. */
  readonly state: string | undefined;
  /** When the started flow stops being accepted (ms since the epoch). */
  readonly expiresAt: number | undefined;
  /** The scopes a step-up sign-in asks for, after a 403 `insufficient_scope`. */
  readonly scopes: readonly string[] | undefined;

  /**
   * Creates the error.
   *
   * @param request The server and principal, the sign-in when one was started, and a step-up's scopes.
   */
  constructor(
    request: {
      readonly server: string;
      readonly principal: string;
      readonly url?: string | undefined;
      readonly state?: string | undefined;
      readonly expiresAt?: number | undefined;
      readonly scopes?: readonly string[] | undefined;
    },
  ) {
    super(
      request.principal === ""
        ? `server "${request.server}" needs a sign-in (give the handler an \`authorize\` callback, or run \`sluice login ${request.server}\`)`
        : `server "${request.server}" needs caller ${
          JSON.stringify(request.principal.slice(0, 64))
        } to sign in, at the gateway's sign-in page (offered to a caller that declares URL elicitation)`,
    );
    this.name = "SignInRequiredError";
    this.server = request.server;
    this.principal = request.principal;
    this.url = request.url;
    this.state = request.state;
    this.expiresAt = request.expiresAt;
    this.scopes = request.scopes;
  }
}

/**
 * The sign-in a failure needs, if any: a {@linkcode SignInRequiredError} somewhere on its
 * `cause` chain.
 *
 * @param error A failure, e.g. a `ClientError`.
 * @returns The sign-in error, or `undefined`.
 */
export function signInRequiredBy(error: unknown): SignInRequiredError | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof SignInRequiredError) return at;
  }
  return undefined;
}
