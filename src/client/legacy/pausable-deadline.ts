/**
 * A legacy call's deadline that stops counting while the server's requests tied to that call are being
 * answered (a person filling a form must not make the call time out) and resumes when the last one ends.
 * `maxTotalTimeout` is a separate, unpausable deadline.
 *
 * @module
 */
import type { Timers } from "../../_internal/timers.ts";

/** A deadline that can be paused (nested pauses count) and resumed. */
export class PausableDeadline {
  readonly #timers: Timers;
  readonly #now: () => number;
  readonly #onExpire: () => void;
  #remaining: number;
  #startedAt = 0;
  #handle: unknown;
  #pauses = 0;
  #done = false;

  /**
   * Starts counting at once.
   *
   * @param ms The deadline's length.
   * @param options Timers, a clock, and what to do when it expires.
   */
  constructor(
    ms: number,
    options: { readonly timers: Timers; readonly now: () => number; readonly onExpire: () => void },
  ) {
    this.#timers = options.timers;
    this.#now = options.now;
    this.#onExpire = options.onExpire;
    this.#remaining = ms;
    this.#arm();
  }

  /** Whether it is paused now. */
  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Stops counting; nested calls need as many `resume`s. */
  pause(): void {
    if (this.#done) return;
    if (this.#pauses++ === 0) {
      this.#timers.clearTimeout(this.#handle);
      this.#remaining -= this.#now() - this.#startedAt;
    }
  }

  /** Counts again once every pause has been resumed. */
  resume(): void {
    if (this.#done || this.#pauses === 0) return;
    if (--this.#pauses === 0) this.#arm();
  }

  /** Stops for good (the call ended). */
  clear(): void {
    this.#done = true;
    this.#timers.clearTimeout(this.#handle);
  }

  #arm(): void {
    this.#startedAt = this.#now();
    this.#handle = this.#timers.setTimeout(() => {
      if (this.#done || this.#pauses > 0) return;
      this.#done = true;
      this.#onExpire();
    }, Math.max(0, this.#remaining));
  }
}
