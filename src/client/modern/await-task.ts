/**
 * Tasks of the `io.modelcontextprotocol/tasks` extension: poll `tasks/get` at the server's `pollIntervalMs`,
 * answer `input_required` entries through the chain and handler (each key once) with `tasks/update`, and end
 * at a terminal status. A client keeps polling until the task ends or it sends `tasks/cancel` (digest §8.2),
 * so a call's own task whose wait ends first is cancelled, as the front does for the upstream task of a round
 * it refuses (front-tasks.ts).
 *
 * @module
 */
import type { Timers } from "../../_internal/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CallToolResult } from "../../protocol/call-tool-result.ts";
import { decodeCallToolResult } from "../../protocol/call-tool-result.ts";
import type { InputRequest } from "../../protocol/input-request.ts";
import { decodeGetTaskResult, type EndedTask } from "../../protocol/tasks.ts";
import { quote } from "../../_internal/quote.ts";
import { isObject } from "../../_internal/is-object.ts";
import { linkSignals, pause } from "../../_internal/signals.ts";
import { abortError, invalidResult, serverError, taskCancelled } from "./failure-errors.ts";
import { answerInputRequests, type RoundContext } from "./input-round.ts";
import type { ModernSession } from "./modern-session.ts";
import type { CallContext } from "../server-session.ts";

/**
 * Options of {@linkcode awaitModernTask}: the waiting call's, for its rounds (`method` is `"tools/call"` or
 * `"tasks/get"`), and the fetch and capabilities of the task's requests (as the call that made the task had).
 */
export interface AwaitTaskOptions extends RoundContext, Pick<CallContext, "fetch" | "capabilities"> {
  /** Timers for polling. */
  readonly timers: Timers;
  /**
   * The task is the call's own (its id never handed out): a wait that ends before the task does cancels it
   * and names it in the error's `data.taskId`. @default false
   */
  readonly cancelIfAbandoned?: boolean | undefined;
}

/** How a task's requests are sent: with the waiting call's fetch and capabilities. */
function sent(options: AwaitTaskOptions): Pick<CallContext, "fetch" | "capabilities"> {
  return { fetch: options.fetch, capabilities: options.capabilities };
}

const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
/** The poll interval when the server suggests none. */
const DEFAULT_POLL_MS = 1000;
/**
 * How long the `tasks/cancel` of an abandoned task may take: its call has already failed and waits only for
 * this courtesy, so a server that no longer answers holds the caller a few seconds, not a whole
 * `callTimeout`.
 */
const CANCEL_MS = 5000;

/**
 * Waits for a task to end.
 *
 * @param session The server's session.
 * @param taskId The task.
 * @param options Signal, assigns, timers, the waiting call's method, and whether the task is the call's own.
 * @returns The task's `CallToolResult` when it completes.
 * @throws {ClientError} `"server"` when it fails (with its error), `"cancelled"` when it is cancelled, and
 *   whatever a request or an input request fails with (with `cancelIfAbandoned`, after `tasks/cancel` and
 *   with `data.taskId`).
 */
export async function awaitModernTask(
  session: ModernSession,
  taskId: string,
  options: AwaitTaskOptions,
): Promise<CallToolResult> {
  const serverId = session.serverId;
  let task: EndedTask;
  try {
    task = await pollUntilEnded(session, taskId, options);
  } catch (caught) {
    // A request the caller's signal stopped names its own method: the call is told of its own.
    const error = caught instanceof ClientError && caught.kind === "cancelled" && options.signal.aborted
      ? abortError(serverId, options.method, options.signal.reason)
      : caught;
    if (options.cancelIfAbandoned !== true) throw error;
    throw await cancelAbandonedTask(taskId, error, {
      cancel: (signal) => session.request("tasks/cancel", { taskId }, { signal, ...sent(options) }),
      timers: options.timers,
    });
  }
  switch (task.status) {
    case "completed": {
      const result = decodeCallToolResult(task.result);
      if (result.ok) return result.value;
      throw new ClientError(
        "protocol",
        `Server "${serverId}" completed task ${quote(taskId)} with an invalid result: ${result.message}`,
        { serverId },
      );
    }
    case "failed":
      throw serverError(serverId, `task ${quote(taskId)}`, task.error);
    case "cancelled":
      throw taskCancelled(serverId, taskId);
  }
}

/**
 * Polls a task until it reaches a terminal status, answering its input requests meanwhile.
 *
 * @param session The server's session.
 * @param taskId The task.
 * @param options Signal, assigns and timers.
 * @returns The task, in its terminal status.
 * @throws {ClientError} Whatever a request or an input request fails with; `"cancelled"` or
 *   `"timeout"` when the signal fires between polls.
 */
async function pollUntilEnded(
  session: ModernSession,
  taskId: string,
  options: AwaitTaskOptions,
): Promise<EndedTask> {
  const serverId = session.serverId;
  const answered = new Set<string>();
  for (;;) {
    const raw = await session.request("tasks/get", { taskId }, { signal: options.signal, ...sent(options) });
    const decoded = decodeGetTaskResult(raw);
    if (!decoded.ok) throw invalidResult(serverId, "tasks/get", decoded.message);
    const task = decoded.value;
    switch (task.status) {
      case "completed":
      case "failed":
      case "cancelled":
        return task;
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
            ...sent(options),
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
      throw abortError(serverId, options.method, options.signal.reason);
    }
  }
}

/**
 * Cancels a task the call's own wait gave up on, in either era, and names it in the error. The cancel runs
 * under a deadline of its own (the call's signal may have fired), and its failure is ignored.
 *
 * @param taskId The task.
 * @param error What the wait failed with.
 * @param options Sends `tasks/cancel` under the signal given, and the timers of its deadline.
 * @returns The error the call fails with: a `ClientError` with `data.taskId`, anything else as it is.
 */
export async function cancelAbandonedTask(
  taskId: string,
  error: unknown,
  options: { readonly cancel: (signal: AbortSignal) => Promise<unknown>; readonly timers: Timers },
): Promise<unknown> {
  const deadline = linkSignals([], { ms: CANCEL_MS, which: "leg", timers: options.timers });
  await options.cancel(deadline.signal).catch(() => {}).finally(() => deadline.dispose());
  return error instanceof ClientError ? withTaskId(error, taskId) : error;
}

/**
 * The error with the task's id as `data.taskId`, beside its data when that is an object; data of another
 * shape is kept as `data.data` (`{ taskId, data: "overloaded" }`), so the id always reaches the caller.
 *
 * @param error What the wait failed with.
 * @param taskId The task.
 * @returns The error with `data.taskId`.
 */
function withTaskId(error: ClientError, taskId: string): ClientError {
  const { data } = error;
  const beside = data === undefined || isObject(data);
  return new ClientError(error.kind, error.message, {
    data: beside ? { ...(data as object | undefined), taskId } : { taskId, data },
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.serverId === undefined ? {} : { serverId: error.serverId }),
    ...(error.cause === undefined ? {} : { cause: error.cause }),
  });
}
