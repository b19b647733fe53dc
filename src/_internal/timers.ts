/**
 * Timers behind the smallest interface the deadlines need, so tests drive them with a fake clock.
 *
 * @module
 */

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
