/**
 * Timers behind the smallest interface the deadlines need, so tests drive them with a fake clock.
 *
 * @module
 */

/**
 * The longest delay a timer waits, 2³¹ − 1 ms (about 596 hours), on every runtime: `setTimeout`
 * takes a longer one as 1 ms, so a longer wait would end at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Schedules and cancels one-shot callbacks. */
export interface Timers {
  /** Runs `callback` once after `ms` milliseconds; returns a handle for {@linkcode Timers.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a scheduled callback; a handle that already ran is ignored. */
  clearTimeout(handle: unknown): void;
}

/** The runtime's own timers. */
export const systemTimers: Timers = Object.freeze({
  setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as ReturnType<typeof setTimeout>),
});
