/**
 * A consumer that calls a function for each entry (the handler's callbacks, or a subscriber): one
 * call at a time, in arrival order, awaiting a returned promise before the next. Each entry gets a
 * microtask of its own as it arrives, as `deliverProgress` does, so consumers that return at once
 * and a call's `onProgress` interleave in the order the server sent them.
 *
 * @module
 */
import { type WaitingCapacity, WaitingList } from "./_waiting-list.ts";
import type { NotificationRecord } from "./_notification-record.ts";

/** Calls `deliver` for each record, in order. */
export class CallbackConsumer {
  readonly #fifo: WaitingList;
  readonly #deliver: (record: NotificationRecord) => unknown;
  readonly #report: (error: unknown, record: NotificationRecord) => void;
  #running = false;
  #closed = false;
  /** Who waits for {@linkcode CallbackConsumer.idle}. */
  #idlers: (() => void)[] = [];

  /**
   * Creates an idle consumer.
   *
   * @param capacity The most entries waiting, and each server's share of them.
   * @param deliver Delivers one record; may return a promise, awaited before the next.
   * @param report Hears what `deliver` threw or rejected with.
   */
  constructor(
    capacity: WaitingCapacity,
    deliver: (record: NotificationRecord) => unknown,
    report: (error: unknown, record: NotificationRecord) => void,
  ) {
    this.#fifo = new WaitingList(capacity);
    this.#deliver = deliver;
    this.#report = report;
  }

  /** How many entries wait (the one being delivered is not counted). */
  get waiting(): number {
    return this.#fifo.size;
  }

  /**
   * Queues a record, or drops and counts it when `capacity` entries, or its server's share,
   * already wait.
   *
   * @param record The record.
   */
  offer(record: NotificationRecord): void {
    if (this.#closed) return;
    if (!this.#fifo.push(record)) return;
    queueMicrotask(() => void this.#pump());
  }

  /** Stops: waiting entries are let go, and no call is made after the current one. */
  close(): void {
    this.#closed = true;
    this.#fifo.clear();
    this.#settle();
  }

  /**
   * Waits until no entry waits and none is being delivered (a returned promise settled).
   *
   * @returns Resolves then; at once when idle already.
   */
  idle(): Promise<void> {
    if (!this.#running && this.#fifo.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idlers.push(resolve));
  }

  /**
   * Delivers the next entry, in its own microtask. Once a call's promise was awaited, the
   * microtasks of the entries waiting have run meanwhile (finding it running), so it goes on with
   * all of them.
   */
  async #pump(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    let awaited = false;
    do {
      const record = this.#closed ? undefined : this.#fifo.shift();
      if (record === undefined) break;
      record.counters.delivered++;
      try {
        const result = this.#deliver(record);
        if (isThenable(result)) {
          awaited = true;
          await result;
        }
      } catch (error) {
        this.#report(error, record);
      }
    } while (awaited);
    this.#running = false;
    this.#settle();
  }

  #settle(): void {
    if (this.#running || this.#fifo.size > 0 || this.#idlers.length === 0) return;
    const idlers = this.#idlers;
    this.#idlers = [];
    for (const resolve of idlers) resolve();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" && value !== null || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function";
}
