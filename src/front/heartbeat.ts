/**
 * The heartbeat's rule, for `createFront`'s `heartbeat` option and `sluice serve --heartbeat`
 * alike: how often a long modern call's SSE answer carries a comment.
 *
 * @module
 */
import { type Duration, parseDuration } from "../policy/duration.ts";

/** The heartbeat when none is given. */
export const DEFAULT_HEARTBEAT: Duration = "15s";

/** What a heartbeat must be, as errors say it. The floor checks a connection without flooding it. */
export const HEARTBEAT_RULE = 'a duration of at least "100ms" (such as "15s")';

/**
 * A heartbeat's milliseconds.
 *
 * @param text A duration such as `"15s"`.
 * @returns Its milliseconds, or `undefined` when it is not a duration of at least 100 ms.
 * @example
 * ```ts
 * import { heartbeatMsOf } from "./heartbeat.ts";
 * console.log(heartbeatMsOf("15s"), heartbeatMsOf("99ms"), heartbeatMsOf("soon")); // 15000 undefined undefined
 * ```
 */
export function heartbeatMsOf(text: string): number | undefined {
  const ms = parseDuration(text);
  return ms !== undefined && ms >= 100 ? ms : undefined;
}
