/**
 * The notification queue of one client: what servers report reaches the handler's `notification`
 * and `log` callbacks and any subscribers off the connection, sanitized, one at a time in arrival
 * order, within a log budget per server and a bound on what waits.
 *
 * @example
 * ```ts
 * import { createNotificationQueue } from "./notification-queue.ts";
 * const queue = createNotificationQueue({
 *   client: "my-agent",
 *   handler: { log: (level, entry, ctx) => console.log(ctx.serverId, level, entry.data) },
 * });
 * queue.push("github", "modern", {
 *   jsonrpc: "2.0",
 *   method: "notifications/message",
 *   params: { level: "info", data: "indexing\u202E done" },
 * });
 * await Promise.resolve();
 * // github info indexing done
 * console.log(queue.stats().github); // { delivered: 1, dropped: 0, rateLimited: 0 }
 * ```
 *
 * @module
 */
import { type Clock, systemClock } from "../_internal/clock.ts";
import type { Handler, NotificationContext } from "../handler/handler.ts";
import type { Rate } from "../limits/token-bucket.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { CallbackConsumer } from "./_callback-consumer.ts";
import { EntryStream } from "./_entry-stream.ts";
import { LogBudgets } from "./log-budget.ts";
import { type DeliveryCounters, NotificationRecord, type NotificationStats } from "./_notification-record.ts";
import type { WaitingCapacity } from "./_waiting-list.ts";
import { POLICY_DEFAULTS } from "../policy/policy-defaults.ts";
import { compileRate } from "../policy/compile-policy.ts";
import type { NotificationEntry } from "./notification-entry.ts";
import { atOrAbove, isLoggingLevel, type LoggingLevel } from "../protocol/logging-level.ts";
import { reportToConsole, threwOn, thrownText } from "./_thrown-report.ts";

export type { NotificationStats } from "./_notification-record.ts";

/** Options of {@linkcode createNotificationQueue}. */
export interface NotificationQueueOptions {
  /** The client's name (`ctx.client`). */
  readonly client: string;
  /**
   * The handler whose `notification` and `log` callbacks hear the servers.
   *
   * @default no handler (only subscribers hear)
   */
  readonly handler?: Handler;
  /**
   * The most entries waiting for each consumer (the handler, each subscriber, each iterator);
   * past it newer entries are dropped and counted.
   *
   * @default 1000 (`POLICY_DEFAULTS.maxWaitingNotifications`)
   */
  readonly maxWaiting?: number;
  /**
   * The most entries of one server waiting for each consumer (its policy's
   * `maxWaitingNotifications`), read on each entry; a value that is not a positive safe integer,
   * or a throw, lets none wait (fail closed).
   *
   * @default () => maxWaiting (no share smaller than the whole)
   */
  readonly maxWaitingPerServer?: (serverId: string) => number;
  /**
   * The log budget of a server (its policy's `logRateLimit`), read at its first log entry (per
   * connection in the legacy era). `undefined` (an unknown server) refuses its log entries, counted
   * as rate-limited; so does an invalid rate, reported once to `onError`.
   *
   * @default every server the default `logRateLimit` (`POLICY_DEFAULTS`: 50 per second, bursts of 100)
   */
  readonly logRateLimit?: (serverId: string) => Rate | undefined;
  /**
   * The lowest log level passed on from a server (its policy's `logLevel`); an entry below it is
   * dropped before the log budget and not counted (an unknown level counts as `info`).
   *
   * @default every level
   */
  readonly logLevel?: (serverId: string) => LoggingLevel | undefined;
  /**
   * The clock the log budgets refill by.
   *
   * @default systemClock
   */
  readonly clock?: Clock;
  /**
   * Hears a callback's throw or rejection (and a log budget that cannot be made), as an `Error`
   * whose message is sanitized and safe to log; the thrown value is its `cause`, as thrown (not
   * sanitized: it may carry server text). The entry is skipped and delivery goes on.
   *
   * @default logs the message (only) with `console.error`
   */
  readonly onError?: (error: Error) => void;
}

/** A client's notification queue. */
export interface NotificationQueue {
  /**
   * Takes one notification from a connection's read path, cheaply and synchronously; sanitizing
   * and delivery happen later, in a microtask. One that nobody would hear is ignored, not counted.
   *
   * @param serverId The operator's id of the server.
   * @param era The protocol era of the connection.
   * @param notification The notification as received.
   * @param connection The legacy era's connection number, whose log budget is its own; omitted,
   *   the budget is the server's.
   */
  push(
    serverId: string,
    era: "modern" | "legacy",
    notification: JsonRpcNotification,
    connection?: number,
  ): void;
  /**
   * Calls `listener` with every entry that passes the log budget, sanitized, one call at a time
   * in arrival order (a returned promise is awaited first), with its own `maxWaiting` bound.
   *
   * @param listener The subscriber; a throw or rejection goes to `onError`.
   * @returns Unsubscribes: waiting entries are let go and no call follows the current one.
   */
  subscribe(listener: (entry: NotificationEntry) => unknown): () => void;
  /**
   * An async iterator of the same entries, with its own `maxWaiting` bound; leaving the loop
   * unsubscribes it. It ends once the queue is closed and its waiting entries are read.
   *
   * @returns The iterator.
   */
  entries(): AsyncIterableIterator<NotificationEntry, undefined>;
  /**
   * The counters of every server seen.
   *
   * @returns A prototype-free map from server id to its counters, a snapshot.
   */
  stats(): Readonly<Record<string, NotificationStats>>;
  /** How many entries wait for the handler (the one being delivered is not counted). */
  readonly waiting: number;
  /**
   * Takes no more notifications; what already waits is still delivered, then iterators end.
   *
   * @returns Resolves once the handler and every subscriber have been called with what waited
   * (their returned promises settled); an iterator's entries wait for its reader.
   */
  close(): Promise<void>;
}

/**
 * Creates a client's notification queue.
 *
 * @param options The handler, the client's name, the bounds, the clock and the error listener.
 * @returns The queue.
 * @throws {RangeError} When `maxWaiting` is not a positive safe integer.
 * @example
 * ```ts
 * import { createNotificationQueue } from "./notification-queue.ts";
 * const queue = createNotificationQueue({ client: "my-agent", maxWaiting: 2 });
 * const heard: string[] = [];
 * queue.subscribe((entry) => void heard.push(entry.method));
 * for (const progress of [1, 2, 3]) {
 *   queue.push("github", "legacy", { jsonrpc: "2.0", method: "notifications/progress", params: { progress } });
 * }
 * await Promise.resolve();
 * console.log(heard, queue.stats().github); // [ "notifications/progress", "notifications/progress" ] { delivered: 2, dropped: 1, rateLimited: 0 }
 * ```
 */
export function createNotificationQueue(options: NotificationQueueOptions): NotificationQueue {
  return new ClientQueue(options);
}

type Listener = CallbackConsumer | EntryStream;

/** The queue behind {@linkcode createNotificationQueue}, held to the contract by its return type. */
class ClientQueue {
  readonly #capacity: WaitingCapacity;
  readonly #onError: (error: Error) => void;
  readonly #budgets: LogBudgets;
  readonly #logLevel: ((serverId: string) => LoggingLevel | undefined) | undefined;
  /** Servers whose log budget failed, reported once each. */
  readonly #brokenBudgets = new Set<string>();
  readonly #stats = new Map<string, DeliveryCounters>();
  readonly #handler: CallbackConsumer | undefined;
  readonly #handlerTakesLogs: boolean;
  readonly #handlerTakesOthers: boolean;
  /** Replaced, never mutated, so a push never sees a list change under it. */
  #listeners: readonly Listener[] = [];
  #closed = false;

  constructor(options: NotificationQueueOptions) {
    const maxWaiting = options.maxWaiting ?? POLICY_DEFAULTS.maxWaitingNotifications;
    if (!Number.isSafeInteger(maxWaiting) || maxWaiting <= 0) {
      throw new RangeError(
        `createNotificationQueue(): "maxWaiting" must be a positive safe integer, received "${
          String(maxWaiting)
        }"`,
      );
    }
    const perServer = options.maxWaitingPerServer;
    const shareOf = perServer === undefined ? () => maxWaiting : (serverId: string): number => {
      try {
        const share = perServer(serverId);
        return Number.isSafeInteger(share) && share > 0 ? share : 0;
      } catch {
        return 0;
      }
    };
    this.#capacity = { total: maxWaiting, shareOf };
    this.#onError = options.onError ?? reportToConsole;
    this.#logLevel = options.logLevel;
    this.#budgets = new LogBudgets(
      options.clock ?? systemClock,
      options.logRateLimit ?? (() => compileRate(POLICY_DEFAULTS.logRateLimit)),
    );
    const { client, handler } = options;
    this.#handlerTakesLogs = typeof handler?.log === "function";
    this.#handlerTakesOthers = typeof handler?.notification === "function";
    this.#handler = handler !== undefined && (this.#handlerTakesLogs || this.#handlerTakesOthers)
      ? new CallbackConsumer(
        this.#capacity,
        (record) => deliver(handler, client, record),
        (e, r) => this.#report(`Handler "${r.entry.kind}"`, e, r),
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
    if (isLog && this.#belowFloor(serverId, notification)) return;
    const counters = this.#counters(serverId);
    if (isLog && !this.#withinBudget(serverId, connection)) {
      counters.rateLimited++;
      return;
    }
    const record = new NotificationRecord(serverId, era, notification, counters);
    if (handler) this.#handler?.offer(record);
    for (const listener of listeners) listener.offer(record);
    // Sanitized once this read is done, not when a consumer gets to it: a slow or unread consumer
    // would otherwise keep every raw message waiting for it (up to maxEventBytes each).
    queueMicrotask(() => void record.entry);
  }

  subscribe(listener: (entry: NotificationEntry) => unknown): () => void {
    if (this.#closed) return () => {};
    const consumer = new CallbackConsumer(
      this.#capacity,
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
    const stream = new EntryStream(this.#capacity, (s) => this.#detach(s));
    if (this.#closed) stream.end();
    else this.#listeners = [...this.#listeners, stream];
    return stream;
  }

  stats(): Readonly<Record<string, NotificationStats>> {
    const out = Object.create(null) as Record<string, NotificationStats>;
    for (const [serverId, c] of this.#stats) {
      out[serverId] = Object.freeze({ ...c });
    }
    return Object.freeze(out);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const delivered: Promise<void>[] = [];
    if (this.#handler !== undefined) delivered.push(this.#handler.idle());
    for (const listener of this.#listeners) {
      if (listener instanceof EntryStream) listener.end();
      else delivered.push(listener.idle());
    }
    await Promise.all(delivered);
  }

  #counters(serverId: string): DeliveryCounters {
    let counters = this.#stats.get(serverId);
    if (counters === undefined) {
      counters = { delivered: 0, dropped: 0, rateLimited: 0 };
      this.#stats.set(serverId, counters);
    }
    return counters;
  }

  #belowFloor(serverId: string, notification: JsonRpcNotification): boolean {
    const floor = this.#logLevel?.(serverId);
    if (floor === undefined) return false;
    const level = (notification.params as { level?: unknown } | undefined)?.level;
    return !atOrAbove(isLoggingLevel(level) ? level : "info", floor);
  }

  #withinBudget(serverId: string, connection: number | undefined): boolean {
    try {
      return this.#budgets.take(serverId, connection);
    } catch (error) {
      // A log budget that is not a valid rate: refuse (fail closed), and say why once.
      if (!this.#brokenBudgets.has(serverId)) {
        this.#brokenBudgets.add(serverId);
        this.#notify(
          new Error(`The log budget of server "${serverId}" failed: "${thrownText(error)}"`, {
            cause: error,
          }),
        );
      }
      return false;
    }
  }

  #detach(listener: Listener): void {
    this.#listeners = this.#listeners.filter((l) => l !== listener);
  }

  #report(who: string, error: unknown, record: NotificationRecord): void {
    this.#notify(threwOn(who, error, { method: record.entry.method, serverId: record.serverId }));
  }

  #notify(error: Error): void {
    try {
      this.#onError(error);
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
