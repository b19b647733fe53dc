/**
 * The current time behind the smallest interface the code needs, so tests use a fake clock.
 *
 * @module
 */

/** Milliseconds since the epoch. */
export interface Clock {
  /** The current time in milliseconds. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({ now: (): number => Date.now() });
