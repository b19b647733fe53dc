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
