/**
 * The notification queue's implementation: the read path (`push`), the consumers it feeds and
 * the counters. See `notification-queue.ts` for the contract.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import type { Handler, NotificationContext } from "../handler/handler.ts";
import type { Rate } from "../limits/token-bucket.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { CallbackConsumer } from "./_callback-consumer.ts";
import { EntryStream } from "./_entry-stream.ts";
import { LogBudgets } from "./log-budget.ts";
import { DeliveryCounters, NotificationRecord, type NotificationStats } from "./_notification-record.ts";
import type { NotificationEntry } from "./notification-entry.ts";
import type { WaitingCapacity } from "./_waiting-list.ts";
import { sanitizeText } from "./sanitize-text.ts";

/** How much of a thrown message is reported. */
const REPORTED_LENGTH = 1024;

/** What the queue is made from, its options resolved. */
export interface ClientQueueParts {
  readonly client: string;
  readonly handler: Handler | undefined;
  readonly capacity: WaitingCapacity;
  readonly logRateLimit: (serverId: string) => Rate | undefined;
  readonly clock: Clock;
  readonly onError: (error: Error) => void;
}

type Listener = CallbackConsumer | EntryStream;

/**
 * A client's notification queue. `createNotificationQueue` returns it as a `NotificationQueue`,
 * which is where the compiler holds it to the contract.
 */
export class ClientQueue {
  readonly #parts: ClientQueueParts;
  readonly #budgets: LogBudgets;
  /** Servers whose log budget failed, reported once each. */
  readonly #brokenBudgets = new Set<string>();
  readonly #stats = new Map<string, DeliveryCounters>();
  readonly #handler: CallbackConsumer | undefined;
  readonly #handlerTakesLogs: boolean;
  readonly #handlerTakesOthers: boolean;
  /** Replaced, never mutated, so a push never sees a list change under it. */
  #listeners: readonly Listener[] = [];
  #closed = false;

  /**
   * Creates an open queue.
   *
   * @param parts The resolved options.
   */
  constructor(parts: ClientQueueParts) {
    this.#parts = parts;
    this.#budgets = new LogBudgets(parts.clock, parts.logRateLimit);
    const handler = parts.handler;
    this.#handlerTakesLogs = typeof handler?.log === "function";
    this.#handlerTakesOthers = typeof handler?.notification === "function";
    this.#handler = handler !== undefined && (this.#handlerTakesLogs || this.#handlerTakesOthers)
      ? new CallbackConsumer(
        parts.capacity,
        (record) => deliver(handler, parts.client, record),
        (e, r) => this.#report(`Handler "${r.isLog ? "log" : "notification"}"`, e, r),
      )
      : undefined;
  }

  get waiting(): number {
    return this.#handler?.waiting ?? 0;
  }

  push(
    serverId: string,
    era: "modern" | "legacy",
    notification: JsonRpcNotification,
    connection?: number,
  ): void {
    if (this.#closed) return;
    const isLog = notification.method === "notifications/message";
    const handler = isLog ? this.#handlerTakesLogs : this.#handlerTakesOthers;
    const listeners = this.#listeners;
    if (!handler && listeners.length === 0) return;
    const counters = this.#counters(serverId);
    if (isLog && !this.#withinBudget(serverId, connection)) {
      counters.rateLimited++;
      return;
    }
    const record = new NotificationRecord(serverId, era, notification, counters);
    if (handler) this.#handler?.offer(record);
    for (const listener of listeners) listener.offer(record);
  }

  subscribe(listener: (entry: NotificationEntry) => unknown): () => void {
    if (this.#closed) return () => {};
    const consumer = new CallbackConsumer(
      this.#parts.capacity,
      (record) => listener(record.entry),
      (error, record) => this.#report("A notification subscriber", error, record),
    );
    this.#listeners = [...this.#listeners, consumer];
    return () => {
      consumer.close();
      this.#detach(consumer);
    };
  }

  entries(): AsyncIterableIterator<NotificationEntry, undefined> {
    const stream = new EntryStream(this.#parts.capacity, (s) => this.#detach(s));
    if (this.#closed) stream.end();
    else this.#listeners = [...this.#listeners, stream];
    return stream;
  }

  stats(): Readonly<Record<string, NotificationStats>> {
    const out = Object.create(null) as Record<string, NotificationStats>;
    for (const [serverId, c] of this.#stats) {
      out[serverId] = Object.freeze({
        delivered: c.delivered,
        dropped: c.dropped,
        rateLimited: c.rateLimited,
      });
    }
    return Object.freeze(out);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#listeners) if (listener instanceof EntryStream) listener.end();
  }

  #counters(serverId: string): DeliveryCounters {
    let counters = this.#stats.get(serverId);
    if (counters === undefined) {
      counters = new DeliveryCounters();
      this.#stats.set(serverId, counters);
    }
    return counters;
  }

  #withinBudget(serverId: string, connection: number | undefined): boolean {
    try {
      return this.#budgets.take(serverId, connection);
    } catch (error) {
      // A log budget that is not a valid rate: refuse (fail closed), and say why once.
      if (!this.#brokenBudgets.has(serverId)) {
        this.#brokenBudgets.add(serverId);
        this.#notify(`The log budget of server "${serverId}" failed: "${thrownText(error)}"`, error);
      }
      return false;
    }
  }

  #detach(listener: Listener): void {
    this.#listeners = this.#listeners.filter((l) => l !== listener);
  }

  #report(who: string, error: unknown, record: NotificationRecord): void {
    const entry = record.entry;
    this.#notify(
      `${who} threw on "${entry.method}" from server "${record.serverId}": "${thrownText(error)}"`,
      error,
    );
  }

  #notify(message: string, cause: unknown): void {
    try {
      this.#parts.onError(new Error(message, { cause }));
    } catch {
      // The error listener itself threw: nothing more to tell.
    }
  }
}

function deliver(handler: Handler, client: string, record: NotificationRecord): unknown {
  const entry = record.entry;
  const ctx: NotificationContext = { client, serverId: entry.serverId, era: entry.era };
  return entry.kind === "log"
    ? handler.log?.(entry.log.level, entry.log, ctx)
    : handler.notification?.(entry.method, entry.params, ctx);
}

function thrownText(error: unknown): string {
  try {
    return sanitizeText(error instanceof Error ? error.message : error, REPORTED_LENGTH);
  } catch {
    return "";
  }
}
