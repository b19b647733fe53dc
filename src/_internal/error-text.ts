/**
 * What a thrown value says, for a message: its `message`, and its cause's in brackets, because a
 * failed fetch says only "fetch failed" and keeps what went wrong in its cause.
 *
 * @module
 */

/**
 * The message of a thrown value, with its cause's message when the cause is an `Error`. A cause
 * without a message says what it holds (Node's failed connection to every address of a host is an
 * `AggregateError` with an empty message).
 *
 * @param error What was thrown.
 * @returns The text.
 * @example
 * ```ts
 * import { errorText } from "./error-text.ts";
 * const failed = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
 * console.log(errorText(failed)); // fetch failed (connect ECONNREFUSED 127.0.0.1:9)
 * const timedOut = new AggregateError([new Error("connect ETIMEDOUT ::1:80"), new Error("connect ETIMEDOUT 127.0.0.1:80")]);
 * console.log(errorText(new TypeError("fetch failed", { cause: timedOut })));
 * // fetch failed (connect ETIMEDOUT ::1:80; connect ETIMEDOUT 127.0.0.1:80)
 * console.log(errorText("a string")); // a string
 * ```
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${causeText(error.cause)})` : error.message;
}

function causeText(cause: Error): string {
  if (cause.message !== "") return cause.message;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return cause.errors.map((one) => one instanceof Error ? one.message : String(one)).join("; ");
  }
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" ? code : cause.name;
}
