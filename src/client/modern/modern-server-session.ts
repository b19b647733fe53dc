/**
 * The modern era behind the client's `ServerSession`: calls run the multi round-trip loop, tasks
 * are polled with `tasks/get`.
 *
 * @module
 */
import type { Fetcher } from "../../transport/fetch-with-redirects.ts";
import type { Timers } from "../../_internal/timers.ts";
import type { CallToolResult } from "../../protocol/call-tool-result.ts";
import type { MrtrMethod } from "../../protocol/input-required.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Tool } from "../../protocol/tools.ts";
import { TASKS_EXTENSION } from "../../protocol/tasks.ts";
import { ClientError } from "../../errors.ts";
import type { CallContext, CallOutcome, ServerOffer, ServerSession } from "../server-session.ts";
import { awaitModernTask } from "./await-task.ts";
import type { ModernSession } from "./modern-session.ts";
import { answerInputRequests } from "./input-round.ts";
import { runRounds } from "./multi-round.ts";

/** A modern session as the client's methods see it. */
export class ModernServerSession implements ServerSession {
  readonly era = "modern" as const;
  readonly #session: ModernSession;
  readonly #maxRounds: number;
  readonly #tasks: boolean;
  readonly #timers: Timers;

  /**
   * @param session The modern session.
   * @param options The policy's `maxRounds`, whether tasks are declared, and timers.
   */
  constructor(
    session: ModernSession,
    options: { readonly maxRounds: number; readonly tasks: boolean; readonly timers: Timers },
  ) {
    this.#session = session;
    this.#maxRounds = options.maxRounds;
    this.#tasks = options.tasks;
    this.#timers = options.timers;
  }

  /** The server's id. */
  get serverId(): string {
    return this.#session.serverId;
  }

  /** The modern session itself (the front steps its rounds one at a time). */
  get session(): ModernSession {
    return this.#session;
  }

  /** @inheritdoc */
  async offer(signal: AbortSignal, fetch?: Fetcher): Promise<ServerOffer> {
    const discovered = await this.#session.request("server/discover", {}, { signal, fetch });
    const capabilities = typeof discovered.capabilities === "object" && discovered.capabilities !== null
      ? discovered.capabilities as Record<string, unknown>
      : {};
    return typeof discovered.instructions === "string"
      ? { capabilities, instructions: discovered.instructions }
      : { capabilities };
  }

  /** @inheritdoc */
  request(
    method: string,
    params: JsonObject,
    options: { readonly signal: AbortSignal; readonly fetch?: Fetcher | undefined },
  ): Promise<JsonObject> {
    return this.#session.request(method, params, options);
  }

  /** @inheritdoc */
  async call<M extends MrtrMethod>(
    method: M,
    params: JsonObject,
    context: CallContext,
  ): Promise<CallOutcome<M>> {
    const session = this.#session;
    const { signal } = context;
    const outcome = await runRounds<M, never>(method, params, {
      serverId: session.serverId,
      // Each leg with the call's signal, progress, notifications, capabilities, log level and fetch.
      send: (retry) => session.request(method, retry, context),
      answer: async (requests) => ({
        responses: await answerInputRequests(requests, session, {
          assigns: context.assigns,
          principal: context.principal,
          signal,
          method,
          onDeferred: context.onDeferred,
        }),
      }),
      signal,
      maxRounds: this.#maxRounds,
      // A task is acceptable where the request declared the extension: the client's own, or the
      // capabilities a gateway declared for its caller.
      tasks: method === "tools/call" &&
        (context.capabilities === undefined
          ? this.#tasks
          : context.capabilities.extensions?.[TASKS_EXTENSION] !== undefined),
      timers: this.#timers,
    });
    if (outcome.kind === "stopped") throw new TypeError("unreachable: the client's rounds never stop");
    return outcome.kind === "complete"
      ? { kind: "complete", result: outcome.result, rounds: outcome.rounds }
      : { kind: "task", task: outcome.task, rounds: outcome.rounds };
  }

  /** @inheritdoc */
  awaitTask(taskId: string, context: CallContext): Promise<CallToolResult> {
    const method = context.awaitingMethod ?? "tasks/get";
    // The client's own: a gateway's request declares its caller's capabilities.
    if (context.capabilities === undefined && !this.#tasks) return Promise.reject(this.#noTasks("tasks/get"));
    return awaitModernTask(this.#session, taskId, { ...context, timers: this.#timers, method });
  }

  /** @inheritdoc */
  async cancelTask(taskId: string, signal: AbortSignal): Promise<void> {
    if (!this.#tasks) throw this.#noTasks("tasks/cancel");
    await this.#session.request("tasks/cancel", { taskId }, { signal });
  }

  /**
   * The error of a task request from a client that does not declare the tasks extension: a
   * server refuses `tasks/*` from a client that does not (`-32021`), so it is not sent.
   */
  #noTasks(method: string): ClientError {
    return new ClientError(
      "config",
      `Server "${this.serverId}": ${method} needs the tasks extension, which this client does not declare: create it with tasks: true`,
      { serverId: this.serverId },
    );
  }

  /** @inheritdoc */
  startToolsListing(): (tools: readonly Tool[]) => void {
    return this.#session.tools.startListing();
  }

  /** The modern era asks for logs per request. */
  setLogLevel(): Promise<void> {
    return Promise.resolve();
  }

  /** The modern era has no roots notification (removed in 2026-07-28). */
  rootsChanged(): Promise<void> {
    return Promise.resolve();
  }

  /** The modern era keeps no connection: stops only the work the session's calls share. */
  close(): Promise<void> {
    this.#session.close();
    return Promise.resolve();
  }
}
