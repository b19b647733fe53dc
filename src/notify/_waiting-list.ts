/**
 * The entries waiting for one consumer, first in, first out, at most `capacity` in all and each
 * server's own share, so a server that floods fills only its share.
 *
 * @module
 */
import { BoundedFifo } from "./_bounded-fifo.ts";
import type { NotificationRecord } from "./_notification-record.ts";

/** How many entries may wait for a consumer: in all, and of one server. */
export interface WaitingCapacity {
  /** The most entries waiting in all. */
  readonly total: number;
  /** The most entries of one server waiting. */
  readonly shareOf: (serverId: string) => number;
}

/** A consumer's waiting entries. */
export class WaitingList {
  readonly #fifo: BoundedFifo<NotificationRecord>;
  readonly #shareOf: (serverId: string) => number;
  /** Entries waiting per server; a server leaves the map when none of its entries wait. */
  readonly #perServer = new Map<string, number>();

  /**
   * Creates an empty list.
   *
   * @param capacity The most entries waiting in all, and each server's share of them (its
   *   policy's `maxWaitingNotifications`, read on each push).
   */
  constructor(capacity: WaitingCapacity) {
    this.#fifo = new BoundedFifo(capacity.total);
    this.#shareOf = capacity.shareOf;
  }

  /** How many entries wait. */
  get size(): number {
    return this.#fifo.size;
  }

  /**
   * Appends a record, or drops and counts it when the list, or its server's share, is full.
   *
   * @param record The record.
   * @returns Whether it was appended.
   */
  push(record: NotificationRecord): boolean {
    const waiting = this.#perServer.get(record.serverId) ?? 0;
    if (waiting >= this.#shareOf(record.serverId) || !this.#fifo.push(record)) {
      record.counters.dropped++;
      return false;
    }
    this.#perServer.set(record.serverId, waiting + 1);
    return true;
  }

  /**
   * Takes the oldest record.
   *
   * @returns It, or `undefined` when none waits.
   */
  shift(): NotificationRecord | undefined {
    const record = this.#fifo.shift();
    if (record === undefined) return undefined;
    const left = (this.#perServer.get(record.serverId) ?? 1) - 1;
    if (left === 0) this.#perServer.delete(record.serverId);
    else this.#perServer.set(record.serverId, left);
    return record;
  }

  /** Drops every record. */
  clear(): void {
    this.#fifo.clear();
    this.#perServer.clear();
  }
}
