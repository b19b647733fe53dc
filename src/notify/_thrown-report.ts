/**
 * How a callback's throw on a server notification is reported (the queue's consumers and a
 * call's `onProgress` alike): an `Error` whose message is sanitized and safe to log, the thrown
 * value as its `cause`.
 *
 * @module
 */
import { sanitizeText } from "./sanitize-text.ts";

/** How much of a thrown message is reported. */
const REPORTED_LENGTH = 1024;

/**
 * The report of a callback that threw while hearing one notification.
 *
 * @param who The callback, as the message names it (`A notification subscriber`, …).
 * @param error What it threw or rejected with: the report's `cause`, as thrown.
 * @param heard The notification's method and the server it came from.
 * @returns The report, its message sanitized.
 */
export function threwOn(
  who: string,
  error: unknown,
  heard: { readonly method: string; readonly serverId: string },
): Error {
  return new Error(
    `${who} threw on "${heard.method}" from server "${heard.serverId}": "${thrownText(error)}"`,
    { cause: error },
  );
}

/**
 * The text of a thrown value: its message when it is an `Error`, sanitized and clamped. Never
 * throws.
 *
 * @param error What was thrown.
 * @returns One line of visible text, `""` when even reading it throws.
 */
export function thrownText(error: unknown): string {
  try {
    return sanitizeText(error instanceof Error ? error.message : error, REPORTED_LENGTH);
  } catch {
    return "";
  }
}

/**
 * The reporter when nobody gave one: the message (only) to `console.error`.
 *
 * @param error The report.
 */
export function reportToConsole(error: Error): void {
  console.error(error.message);
}
