/**
 * Delivers the server notifications the client does not consume itself to the handler's
 * `notification` callback (and `notifications/message` to `log`), one at a time in arrival order,
 * off the connection: a slow or throwing callback never blocks or breaks a request.
 *
 * @module
 */
import type { Handler, LogEntry } from "../handler/handler.ts";
import type { LogLevel } from "../policy/policy.ts";
import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";

/** Takes one notification of one server. */
export type NotificationSink = (
  serverId: string,
  era: "modern" | "legacy",
  notification: JsonRpcNotification,
) => void;

const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/**
 * Builds the sink of one client.
 *
 * @param handler The client's handler, if any.
 * @param client The client's name (`ctx.client`).
 * @returns The sink.
 */
export function createNotificationSink(handler: Handler | undefined, client: string): NotificationSink {
  let queue: Promise<void> = Promise.resolve();
  return (serverId, era, notification) => {
    const ctx = { client, serverId, era };
    const params = notification.params ?? {};
    const deliver = notification.method === "notifications/message"
      ? handler?.log === undefined ? undefined : () => {
        const level = (LEVELS.has(params.level as string) ? params.level : "info") as LogLevel;
        const entry: LogEntry = typeof params.logger === "string"
          ? { level, logger: params.logger, data: params.data }
          : { level, data: params.data };
        return handler.log?.(level, entry, ctx);
      }
      : handler?.notification === undefined
      ? undefined
      : () => handler.notification?.(notification.method, params, ctx);
    if (deliver === undefined) return;
    queue = queue.then(deliver).then(() => {}, () => {});
  };
}
