/**
 * Deferral: a handler that cannot answer an input request itself returns `ctx.defer()`, and the
 * gateway (the front) passes the request, as the checks left it, down to its own caller.
 * Outside the front, a deferral fails the request like a handler error.
 *
 * @module
 */

/** What `ctx.defer()` returns; a handler returns it as its answer. */
export interface Deferral {
  /** Always `true`. */
  readonly deferred: true;
}

const DEFERRAL: Deferral = Object.freeze({ deferred: true as const });

/**
 * The deferral value (the same frozen object every time).
 *
 * @returns The value a handler returns to defer.
 */
export function defer(): Deferral {
  return DEFERRAL;
}

/**
 * Tells whether a handler's answer is the deferral value (a look-alike object is not).
 *
 * @param value A handler's answer.
 * @returns `true` for `ctx.defer()`'s value.
 */
export function isDeferral(value: unknown): value is Deferral {
  return value === DEFERRAL;
}
