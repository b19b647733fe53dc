/**
 * The current time behind the smallest interface the code needs, so tests use a fake clock. It
 * lives below every layer: the chain, the stores, the notification queue, sign-in and the front
 * all take one.
 *
 * @module
 */

/** Milliseconds since the epoch; injected so tests use a fake clock. */
export interface Clock {
  /** The current time in milliseconds. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({ now: (): number => Date.now() });
