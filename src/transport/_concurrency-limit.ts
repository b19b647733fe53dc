/**
 * Runs at most a fixed number of tasks at once; the rest wait their turn in arrival order.
 *
 * @module
 */

/** A limit on tasks running at once. */
export class ConcurrencyLimit {
  readonly #max: number;
  /** Tasks waiting for a slot, oldest first. */
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  /**
   * @param max How many tasks may run at once (a positive integer).
   * @throws {RangeError} When `max` is not a positive integer.
   */
  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`ConcurrencyLimit: "max" must be a positive integer, received "${String(max)}"`);
    }
    this.#max = max;
  }

  /**
   * Runs `task` once a slot is free, and frees the slot when it settles.
   *
   * @param task The work; it starts only when a slot is free.
   * @returns What `task` resolves or rejects with.
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.#max) this.#running++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  /** Hands the slot to the oldest waiting task, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#running--;
    else next();
  }
}
