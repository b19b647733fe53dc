/**
 * The heartbeat: an SSE comment the front writes to an open stream every so often, on a modern
 * call's answer and on a legacy caller's streams. Readers skip a comment (WHATWG HTML §9.2.6);
 * the connection carries it, so proxies see no idle connection to close, and a write to a caller
 * that left can fail. Its rule serves `createFront`'s `heartbeat` option and
 * `sluice serve --heartbeat` alike.
 *
 * @module
 */
import { type Duration, parseDuration } from "../policy/duration.ts";
import type { Timers } from "../_internal/timers.ts";

/** How often a stream carries the comment, and the timers that count it. */
export interface Heartbeat {
  /** Milliseconds between two comments. */
  readonly ms: number;
  readonly timers: Timers;
}

/** The comment's bytes. */
export const HEARTBEAT_COMMENT: Uint8Array = new TextEncoder().encode(": heartbeat\n\n");

/** The heartbeat when none is given. */
export const DEFAULT_HEARTBEAT: Duration = "15s";

/** The shortest heartbeat: it checks a connection without flooding it. */
const MIN_MS = 100;

/** What a heartbeat must be, as errors say it. */
export const HEARTBEAT_RULE: string =
  `a duration from "${MIN_MS}ms" to "596h" (such as "${DEFAULT_HEARTBEAT}")`;

/**
 * A heartbeat's milliseconds.
 *
 * @param text A duration such as `"15s"`.
 * @returns Its milliseconds, or `undefined` when it is not a duration from 100 ms to 596 h.
 * @example
 * ```ts
 * import { heartbeatMsOf } from "./heartbeat.ts";
 * console.log(heartbeatMsOf("15s"), heartbeatMsOf("99ms"), heartbeatMsOf("soon")); // 15000 undefined undefined
 * ```
 */
export function heartbeatMsOf(text: string): number | undefined {
  const ms = parseDuration(text);
  return ms !== undefined && ms >= MIN_MS ? ms : undefined;
}
