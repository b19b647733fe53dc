// Builders shared by the notification queue tests.
import type { JsonObject, JsonRpcNotification } from "../../src/protocol/jsonrpc.ts";
import type { Clock } from "../../src/_internal/clock.ts";

/** A clock a test sets by hand, synchronously (pushes read it on the read path). */
export class ManualClock implements Clock {
  at = 0;

  now(): number {
    return this.at;
  }
}

/** A notification of `method`. */
export function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/** A `notifications/message` log entry. */
export function logMessage(data: unknown, level = "info"): JsonRpcNotification {
  return notification("notifications/message", { level, data });
}

/** A `notifications/progress` notification numbered `progress`. */
export function progress(value: number): JsonRpcNotification {
  return notification("notifications/progress", { progressToken: "t", progress: value });
}

/** Collects the errors a queue reports. */
export function errorLog(): {
  readonly messages: string[];
  readonly causes: unknown[];
  onError(error: Error): void;
} {
  const messages: string[] = [];
  const causes: unknown[] = [];
  return {
    messages,
    causes,
    onError(error: Error) {
      messages.push(error.message);
      causes.push(error.cause);
    },
  };
}
