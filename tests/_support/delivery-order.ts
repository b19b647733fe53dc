// A call's progress and log entries sent together (one SSE read, stdio lines read at once): what
// the server sends, and the order the client's listeners must hear it in, as the server sent it.
import type { Handler } from "../../src/handler/handler.ts";
import type { NotificationEntry } from "../../src/notify/notification-entry.ts";
import type { JsonObject } from "../../src/protocol/jsonrpc.ts";

/**
 * Progress 1 for `progressToken`, an `info` log entry `"one"`, progress 2, a log entry `"two"`.
 *
 * @param progressToken The call's token.
 * @returns The four notifications, in the order to send them.
 */
export function progressAndLogs(progressToken: unknown): Record<string, unknown>[] {
  const progress = (n: number) => ({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken, progress: n },
  });
  const log = (data: string) => ({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data },
  });
  return [progress(1), log("one"), progress(2), log("two")];
}

/** What {@linkcode orderRecorder}'s listeners hear of {@linkcode progressAndLogs}, then the call's result. */
export const HEARD_IN_ORDER: readonly string[] = [
  "onProgress 1",
  "handler.log one",
  "subscriber one",
  "onProgress 2",
  "handler.log two",
  "subscriber two",
  "result",
];

/**
 * Listeners that record what they hear, one line each, in `heard`: a handler's `log`, a
 * subscriber and a call's `onProgress`.
 *
 * @returns The lines heard and the three listeners.
 */
export function orderRecorder(): {
  readonly heard: string[];
  readonly handler: Handler;
  readonly subscriber: (entry: NotificationEntry) => void;
  readonly onProgress: (params: JsonObject) => void;
} {
  const heard: string[] = [];
  return {
    heard,
    handler: { log: (_level, entry) => void heard.push(`handler.log ${entry.data}`) },
    subscriber: (entry) =>
      void heard.push(`subscriber ${entry.kind === "log" ? entry.log.data : entry.method}`),
    onProgress: (params) => void heard.push(`onProgress ${params.progress}`),
  };
}
