/**
 * Tasks of the `io.modelcontextprotocol/tasks` extension: poll `tasks/get` at the server's
 * `pollIntervalMs`, answer `input_required` entries through the chain and handler (each key once)
 * with `tasks/update`, and end at a terminal status.
 *
 * @module
 */
import type { Fetcher } from "../../transport/fetch-with-redirects.ts";
import type { Principal } from "../../handler/handler.ts";
import type { Timers } from "../../_internal/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CallToolResult } from "../../protocol/call-tool-result.ts";
import { decodeCallToolResult } from "../../protocol/call-tool-result.ts";
import type { InputRequest } from "../../protocol/input-request.ts";
import { decodeGetTaskResult } from "../../protocol/tasks.ts";
import { quote } from "../../_internal/quote.ts";
import { pause } from "../../_internal/signals.ts";
import { abortError, invalidResult, serverError } from "./failure-errors.ts";
import { answerInputRequests } from "./input-round.ts";
import type { ModernSession } from "./modern-session.ts";

/** Options of {@linkcode awaitModernTask}. */
export interface AwaitTaskOptions {
  /** The flow's signal. */
  readonly signal: AbortSignal;
  /** Assigns handed to input handlers. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The front's caller, handed to input handlers. @default none */
  readonly principal?: Principal | undefined;
  /** Sends the task's requests with another fetch (the front's caller's sign-in). @default the session's */
  readonly fetch?: Fetcher | undefined;
  /** Timers for polling. */
  readonly timers: Timers;
}

const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
/** The poll interval when the server suggests none. */
const DEFAULT_POLL_MS = 1000;

/**
 * Waits for a task to end.
 *
 * @param session The server's session.
 * @param taskId The task.
 * @param options Signal, assigns and timers.
 * @returns The task's `CallToolResult` when it completes.
 * @throws {ClientError} `"server"` when it fails (with its error), `"cancelled"` when it is
 *   cancelled, and whatever a request or an input request fails with.
 */
export async function awaitModernTask(
  session: ModernSession,
  taskId: string,
  options: AwaitTaskOptions,
): Promise<CallToolResult> {
  const serverId = session.serverId;
  const answered = new Set<string>();
  for (;;) {
    const raw = await session.request("tasks/get", { taskId }, {
      signal: options.signal,
      fetch: options.fetch,
    });
    const decoded = decodeGetTaskResult(raw);
    if (!decoded.ok) throw invalidResult(serverId, "tasks/get", decoded.message);
    const task = decoded.value;
    switch (task.status) {
      case "completed": {
        const result = decodeCallToolResult(task.result);
        if (result.ok) return result.value;
        throw new ClientError(
          "protocol",
          `Server "${serverId}" completed task ${quote(taskId)} with an invalid result: ${result.message}`,
          {
            serverId,
          },
        );
      }
      case "failed":
        throw serverError(serverId, `task ${quote(taskId)}`, task.error);
      case "cancelled":
        throw new ClientError("cancelled", `Task ${quote(taskId)} of server "${serverId}" was cancelled`, {
          serverId,
        });
      case "input_required": {
        const pending: Record<string, InputRequest> = Object.create(null);
        for (const key of Object.keys(task.inputRequests)) {
          if (!answered.has(key)) pending[key] = task.inputRequests[key] as InputRequest;
        }
        if (Object.keys(pending).length > 0) {
          const inputResponses = await answerInputRequests(pending, session, options);
          for (const key of Object.keys(pending)) answered.add(key);
          await session.request("tasks/update", { taskId, inputResponses }, {
            signal: options.signal,
            fetch: options.fetch,
          });
          continue;
        }
        break;
      }
      case "working":
        break;
    }
    const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs ?? DEFAULT_POLL_MS));
    if (!await pause(interval, options.timers, options.signal)) {
      throw abortError(serverId, "tasks/get", options.signal.reason);
    }
  }
}
