// A fake clock and timers for tests: time moves only when a test calls `advance`, and due
// callbacks run in order of their due time (then of scheduling). `settle` lets promise chains
// started by those callbacks run before the test looks at the outcome.
import type { Clock } from "../../src/_internal/clock.ts";
import type { Timers } from "../../src/_internal/timers.ts";

interface Scheduled {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

export class FakeTime implements Clock, Timers {
  #now: number;
  #next = 1;
  #queue: Scheduled[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const entry = { id: this.#next++, due: this.#now + Math.max(0, ms), callback };
    this.#queue.push(entry);
    return entry.id;
  }

  clearTimeout(handle: unknown): void {
    this.#queue = this.#queue.filter((entry) => entry.id !== handle);
  }

  /** When the earliest waiting callback is due, if any. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const entry of this.#queue) if (next === undefined || entry.due < next) next = entry.due;
    return next;
  }

  /** How many callbacks are waiting. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Moves time forward by `ms`, running every callback that falls due, then settles promises. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#queue.filter((entry) =>
        entry.due <= target
      ).sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (due === undefined) break;
      this.#queue = this.#queue.filter((entry) => entry !== due);
      this.#now = due.due;
      due.callback();
    }
    this.#now = target;
    await settle();
  }
}

export interface DriveOptions {
  /** Never move time past this many ms from now (so a far deadline is not reached by accident). */
  readonly untilMs?: number;
  /** Real event-loop turns to wait between steps, so I/O (stream reads) can progress. @default 3 */
  readonly turns?: number;
  /** Real milliseconds to wait at most for I/O when no fake timer is due. @default 10000 */
  readonly realMs?: number;
}

/**
 * Runs `promise` to its end under fake time: lets real I/O progress for a few event-loop turns,
 * then moves time to the next due callback, and repeats. Runtimes differ in how many turns a
 * `Response` body read needs (workerd needs real macrotasks), which is why this does not rely on
 * microtasks alone.
 */
export async function drive<T>(time: FakeTime, promise: Promise<T>, options: DriveOptions = {}): Promise<T> {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  const limit = time.now() + (options.untilMs ?? 60_000);
  const started = performance.now();
  while (!done) {
    for (let i = 0; i < (options.turns ?? 3) && !done; i++) await new Promise((r) => setTimeout(r, 0));
    if (done) break;
    const next = time.nextDue();
    if (next === undefined || next > limit) {
      // Nothing due within reach: real I/O is still under way; give it real time, bounded.
      if (performance.now() - started > (options.realMs ?? 10_000)) break;
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    await time.advance(next - time.now());
  }
  return await promise;
}

/** Lets pending promise callbacks run (a bounded number of microtask turns). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}
