/**
 * A consumer read by `for await`: entries wait in a bounded list until the reader asks for them, so
 * a reader that stops reading holds a bounded amount of memory. Leaving the loop (`break`,
 * `return`, a throw) unsubscribes.
 *
 * @module
 */
import { type WaitingCapacity, WaitingList } from "./_waiting-list.ts";
import type { NotificationRecord } from "./_notification-record.ts";
import type { NotificationEntry } from "./notification-entry.ts";

type Result = IteratorResult<NotificationEntry, undefined>;
type Waiter = (result: Result) => void;

const DONE: Result = Object.freeze({ value: undefined, done: true });

/** The async iterator of `queue.entries()`. */
export class EntryStream implements AsyncIterableIterator<NotificationEntry, undefined> {
  readonly #fifo: WaitingList;
  readonly #detach: (stream: EntryStream) => void;
  readonly #waiters: Waiter[] = [];
  /** `open`, then `ending` (the queue closed: waiting entries are still read), then `closed`. */
  #state: "open" | "ending" | "closed" = "open";
  #flushQueued = false;

  /**
   * Creates an open stream.
   *
   * @param capacity The most entries waiting, and each server's share of them.
   * @param detach Called once when the reader leaves, to unsubscribe.
   */
  constructor(capacity: WaitingCapacity, detach: (stream: EntryStream) => void) {
    this.#fifo = new WaitingList(capacity);
    this.#detach = detach;
  }

  /**
   * Queues a record, or drops and counts it when `capacity` entries, or its server's share,
   * already wait.
   *
   * @param record The record.
   */
  offer(record: NotificationRecord): void {
    if (this.#state !== "open") return;
    if (!this.#fifo.push(record)) return;
    this.#queueFlush();
  }

  /** Ends the stream once the entries already waiting are read (the queue closed). */
  end(): void {
    if (this.#state !== "open") return;
    this.#state = "ending";
    this.#queueFlush();
  }

  /**
   * The next entry, once there is one.
   *
   * @returns The entry, or done once the stream ended.
   */
  next(): Promise<Result> {
    if (this.#waiters.length === 0) {
      const record = this.#fifo.shift();
      if (record !== undefined) return Promise.resolve(this.#yield(record));
      if (this.#state !== "open") return Promise.resolve(DONE);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Leaves: unsubscribes, lets waiting entries go and ends pending reads.
   *
   * @returns Done.
   */
  return(): Promise<Result> {
    if (this.#state !== "closed") {
      this.#state = "closed";
      this.#fifo.clear();
      this.#detach(this);
      for (const waiter of this.#waiters.splice(0)) waiter(DONE);
    }
    return Promise.resolve(DONE);
  }

  /**
   * Itself.
   *
   * @returns This stream.
   */
  [Symbol.asyncIterator](): EntryStream {
    return this;
  }

  #yield(record: NotificationRecord): Result {
    record.counters.delivered++;
    return { value: record.entry, done: false };
  }

  #queueFlush(): void {
    if (this.#flushQueued || this.#waiters.length === 0) return;
    this.#flushQueued = true;
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#flushQueued = false;
    while (this.#waiters.length > 0) {
      const record = this.#fifo.shift();
      if (record === undefined) break;
      (this.#waiters.shift() as Waiter)(this.#yield(record));
    }
    if (this.#state !== "open" && this.#fifo.size === 0) {
      for (const waiter of this.#waiters.splice(0)) waiter(DONE);
    }
  }
}
