/**
 * One accepted notification on its way to the queue's consumers, with its server's counters,
 * sanitized once, when first read.
 *
 * @module
 */
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { type NotificationEntry, toNotificationEntry } from "./notification-entry.ts";

/** What one server's notifications came to. */
export interface NotificationStats {
  /** Deliveries made: one per entry per consumer (handler callback, subscriber, iterator). */
  readonly delivered: number;
  /** Deliveries given up because that consumer already had `maxWaiting` entries waiting. */
  readonly dropped: number;
  /** Log entries over the server's log budget, refused before reaching any consumer. */
  readonly rateLimited: number;
}

/** The delivery counters of one server, counted as they happen. */
export type DeliveryCounters = { -readonly [K in keyof NotificationStats]: number };

/** A notification waiting for delivery. */
export class NotificationRecord {
  /** The operator's id of the server. */
  readonly serverId: string;
  /** The protocol era. */
  readonly era: "modern" | "legacy";
  /** The server's counters. */
  readonly counters: DeliveryCounters;
  #notification: JsonRpcNotification | undefined;
  #entry: NotificationEntry | undefined;

  /**
   * Wraps a notification.
   *
   * @param serverId The operator's id of the server.
   * @param era The protocol era.
   * @param notification The notification as received.
   * @param counters The server's counters.
   */
  constructor(
    serverId: string,
    era: "modern" | "legacy",
    notification: JsonRpcNotification,
    counters: DeliveryCounters,
  ) {
    this.serverId = serverId;
    this.era = era;
    this.counters = counters;
    this.#notification = notification;
  }

  /** The sanitized entry, made on first read; the raw notification is let go then. */
  get entry(): NotificationEntry {
    if (this.#entry === undefined) {
      this.#entry = toNotificationEntry(this.serverId, this.era, this.#notification as JsonRpcNotification);
      this.#notification = undefined;
    }
    return this.#entry;
  }
}
