/**
 * What a thrown value says, for a message: its `message`, and its cause's in brackets, because
 * a failed fetch says only "fetch failed" and keeps what went wrong (`ECONNREFUSED`, "other side
 * closed", a TLS error) in its cause.
 *
 * @module
 */

/**
 * The message of a thrown value, with its cause's message when the cause is an `Error`.
 *
 * @param error What was thrown.
 * @returns The text.
 * @example
 * ```ts
 * import { errorText } from "./error-text.ts";
 * const failed = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
 * console.log(errorText(failed)); // fetch failed (connect ECONNREFUSED 127.0.0.1:9)
 * console.log(errorText("a string")); // a string
 * ```
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  }
  return String(error);
}
