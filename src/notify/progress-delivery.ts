/**
 * How a call's `onProgress` hears the server's `notifications/progress`, in both eras.
 *
 * @example
 * ```ts
 * import { deliverProgress } from "./progress-delivery.ts";
 * deliverProgress("github", (params) => console.log(params.message), {
 *   progressToken: "sluice-1",
 *   progress: 1,
 *   message: "50%\u202E done\nFAKE LOG LINE",
 * });
 * await Promise.resolve();
 * // 50% doneFAKE LOG LINE
 * ```
 *
 * @module
 */
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { sanitizeParams } from "./notification-entry.ts";
import { reportToConsole, threwOn } from "./_thrown-report.ts";

/** The method whose params a call's `onProgress` receives. */
const PROGRESS_METHOD = "notifications/progress";

/**
 * Calls a call's progress listener with a notification's params, sanitized, in a microtask so a
 * throw never reaches the connection's read path (it would fail the call over HTTP and crash the
 * process over stdio). A throw or rejection is reported to `console.error`, sanitized, and the
 * call goes on. Progress of one call arrives in order.
 *
 * @param serverId The operator's id of the server, named in the report of a throw.
 * @param listener The call's `onProgress`.
 * @param params The notification's params, as received (not kept past the delivery).
 */
export function deliverProgress(
  serverId: string,
  listener: (params: JsonObject) => unknown,
  params: unknown,
): void {
  Promise.resolve()
    .then(() => listener(sanitizeParams(params)))
    .catch((error: unknown) => {
      try {
        reportToConsole(threwOn("A call's onProgress", error, { method: PROGRESS_METHOD, serverId }));
      } catch {
        // console.error itself threw: nothing more to tell.
      }
    });
}

/**
 * A test of which progress may be heard: `progress` MUST increase with each notification. One
 * serves a whole call, as a modern call's rounds each have a token a server may count from 0 again.
 *
 * @returns A test that takes a `progress` value and says whether it goes on from the last taken.
 * @example
 * ```ts
 * import { risingProgress } from "./progress-delivery.ts";
 * const rising = risingProgress();
 * console.log([1, 0.5, 1, 2, "3"].map(rising)); // [true, false, false, true, false]
 * ```
 */
export function risingProgress(): (progress: unknown) => boolean {
  let last = -Infinity;
  return (progress) => {
    if (typeof progress !== "number" || progress <= last) return false;
    last = progress;
    return true;
  };
}

/**
 * A call's `onProgress` hearing only a `progress` above the last one heard ({@linkcode risingProgress});
 * anything else is dropped, so a progress bar never moves back.
 *
 * @param listener The call's `onProgress`.
 * @returns The listener to hand to {@linkcode deliverProgress}.
 */
export function risingOnly(listener: (params: JsonObject) => unknown): (params: JsonObject) => unknown {
  const rising = risingProgress();
  return (params) => rising(params["progress"]) ? listener(params) : undefined;
}
