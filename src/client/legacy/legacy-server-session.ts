/**
 * The legacy era behind the client's `ServerSession`: a call is one request whose deadline pauses while the
 * server's requests tied to it are answered; a `-32042` error (2025-11-25) runs its URL elicitations through
 * the chain and retries the call once they are accepted; tasks (2025-11-25) are awaited with `tasks/result`,
 * and a call's own task is cancelled when its wait fails first or the session closes. Before the first
 * `tools/call` the tools are listed once, when the server declared `tools`, to learn which must run as tasks.
 *
 * @module
 */
import type { Timers } from "../../_internal/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CompiledPolicy } from "../../policy/compile-policy.ts";
import { type CallToolResult, decodeCallToolResult } from "../../protocol/call-tool-result.ts";
import type { Decoded } from "../../protocol/decode.ts";
import { decodeUrlElicitationRequiredData } from "../../protocol/error-data.ts";
import type { CompleteResultOf, MrtrMethod } from "../../protocol/input-required.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { LoggingLevel } from "../../protocol/logging-level.ts";
import { decodeLegacyCreateTaskResult } from "../../protocol/legacy-tasks.ts";
import { decodeGetPromptResult } from "../../protocol/prompts.ts";
import { decodeReadResourceResult } from "../../protocol/resources.ts";
import { decodeListToolsResult, type Tool } from "../../protocol/tools.ts";
import {
  awaitShared,
  DeadlineReached,
  joinable,
  linkSignals,
  openLeg,
  sharedWork,
} from "../../_internal/signals.ts";
import { abortError, inputError, invalidResult, taskCancelled } from "../modern/failure-errors.ts";
import { cancelAbandonedTask } from "../modern/await-task.ts";
import { tooManyInputRequests } from "../modern/input-round.ts";
import {
  answerDeferral,
  type CallContext,
  type CallOutcome,
  type ServerOffer,
  type ServerSession,
} from "../server-session.ts";
import type { LegacySession } from "./legacy-session.ts";
import { PausableDeadline } from "./pausable-deadline.ts";

const DECODERS: { readonly [M in MrtrMethod]: (value: unknown) => Decoded<unknown> } = {
  "tools/call": decodeCallToolResult,
  "resources/read": decodeReadResourceResult,
  "prompts/get": decodeGetPromptResult,
};

/** A legacy session as the client's methods see it. */
export class LegacyServerSession implements ServerSession {
  readonly era = "legacy" as const;
  readonly #session: LegacySession;
  readonly #policy: CompiledPolicy;
  readonly #timers: Timers;
  readonly #now: () => number;
  readonly #taskTools = new Set<string>();
  #toolsListed: Promise<void> | undefined;
  /** The listing's signal: shared by the calls waiting for it, so owned by none of them. */
  readonly #lifetime = new AbortController();
  /** The tasks calls await as their own, with the `tasks/cancel` once sent: `close()` cancels them too. */
  readonly #ownTasks = new Map<string, Promise<unknown> | undefined>();

  /**
   * @param session The legacy session.
   * @param options The policy, timers and clock.
   */
  constructor(
    session: LegacySession,
    options: { readonly policy: CompiledPolicy; readonly timers: Timers; readonly now: () => number },
  ) {
    this.#session = session;
    this.#policy = options.policy;
    this.#timers = options.timers;
    this.#now = options.now;
  }

  /** The server's id. */
  get serverId(): string {
    return this.#session.serverId;
  }

  /** @inheritdoc */
  async request(
    method: string,
    params: JsonObject,
    options: { readonly signal: AbortSignal },
  ): Promise<JsonObject> {
    // A leg of its own, not the flow's: a request that times out must leave the signal it was given going.
    const leg = linkSignals([options.signal], {
      ms: this.#policy.callTimeoutMs,
      which: "leg",
      timers: this.#timers,
    });
    try {
      return await this.#session.request(method, params, { signal: leg.signal });
    } finally {
      leg.dispose();
    }
  }

  /** @inheritdoc */
  async call<M extends MrtrMethod>(
    method: M,
    params: JsonObject,
    context: CallContext,
  ): Promise<CallOutcome<M>> {
    if (method === "tools/call") await this.#listToolsOnce(context.signal);
    const asTask = method === "tools/call" && await this.#takesToolTasks(context.signal) &&
      (context.asTask === true || this.#taskTools.has(String(params.name)));
    // The caller's own task metadata (its ttl) is kept; else an empty one asks for a task.
    const task = typeof params.task === "object" && params.task !== null ? params.task : {};
    const sent = asTask ? Object.assign({}, params, { task }) : withoutTask(params);
    let raw: JsonObject;
    try {
      raw = await this.#once(method, sent, context);
    } catch (error) {
      if (!(error instanceof ClientError && error.code === -32042)) throw error;
      await this.#elicitUrls(error.data, context);
      raw = await this.#once(method, sent, context);
    }
    if (asTask && typeof raw.task === "object" && raw.task !== null) {
      const task = decodeLegacyCreateTaskResult(raw);
      if (task.ok) return { kind: "task", task: task.value };
    }
    const decoded = DECODERS[method](raw);
    if (!decoded.ok) throw invalidResult(this.serverId, method, decoded.message);
    return { kind: "complete", result: decoded.value as CompleteResultOf[M] };
  }

  /** The error of a task whose status is `cancelled` (`tasks/get`), if it is; else none. */
  async #cancelledTask(taskId: string, signal: AbortSignal): Promise<ClientError | undefined> {
    const status = await this.#session.request("tasks/get", { taskId }, { signal })
      .then((task) => task.status, () => undefined);
    return status === "cancelled" ? taskCancelled(this.serverId, taskId) : undefined;
  }

  /** @inheritdoc */
  async awaitTask(taskId: string, context: CallContext): Promise<CallToolResult> {
    // tasks/result blocks until the task ends; the task's input requests arrive meanwhile and the supervisor
    // answers them.
    let raw: JsonObject;
    const own = context.cancelIfAbandoned === true;
    if (own) this.#ownTasks.set(taskId, undefined);
    try {
      raw = await this.#session.request("tasks/result", { taskId }, {
        signal: context.signal,
        call: {
          assigns: context.assigns,
          principal: context.principal,
          signal: context.signal,
          onDeferred: context.onDeferred,
          onNotification: context.onNotification,
        },
      });
    } catch (caught) {
      // A call that gives up is told of its own call (`awaitingMethod`), as in the modern era.
      const error = caught instanceof ClientError && caught.kind === "cancelled" && context.signal.aborted
        ? abortError(this.serverId, context.awaitingMethod ?? "tasks/result", context.signal.reason)
        : caught;
      // An error tasks/result answers is what the call would have answered; a cancelled task has no result
      // and is told as cancelled, as in the modern era.
      if (error instanceof ClientError && error.kind === "server") {
        throw await this.#cancelledTask(taskId, context.signal) ?? error;
      }
      if (!own) throw error;
      throw await this.#cancelOwn(taskId, error);
    } finally {
      if (own) this.#ownTasks.delete(taskId);
    }
    const result = decodeCallToolResult(raw);
    if (result.ok) return result.value;
    throw new ClientError(
      "protocol",
      `Server "${this.serverId}" sent an invalid tasks/result: ${result.message}`,
      { serverId: this.serverId },
    );
  }

  /** @inheritdoc */
  async cancelTask(taskId: string, signal: AbortSignal): Promise<void> {
    await this.request("tasks/cancel", { taskId }, { signal });
  }

  /** @inheritdoc */
  startToolsListing(): (tools: readonly Tool[]) => void {
    // The tools learned only add up, so answers in any order teach the same.
    return (tools) => this.#learnTools(tools);
  }

  /**
   * Whether the server takes `tools/call` as a task: 2025-11-25, with `tasks.requests.tools.call`
   * declared. Without it a client "MUST NOT attempt to use task augmentation on that server's
   * tools, regardless of the `execution.taskSupport` value"; 2025-06-18 has no tasks.
   */
  async #takesToolTasks(signal: AbortSignal): Promise<boolean> {
    const { version, capabilities } = await this.#session.handshake(signal, "tools/call");
    const call = (capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests
      ?.tools?.call;
    return version === "2025-11-25" && typeof call === "object" && call !== null;
  }

  /** Remembers the tools that must run as tasks (`execution.taskSupport: "required"`). */
  #learnTools(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if ((tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport === "required") {
        this.#taskTools.add(tool.name);
      }
    }
  }

  /** @inheritdoc */
  offer(signal: AbortSignal): Promise<ServerOffer> {
    return this.#session.handshake(signal);
  }

  /** @inheritdoc */
  setLogLevel(level: LoggingLevel): Promise<void> {
    return this.#session.setLogLevel(level);
  }

  /** @inheritdoc */
  rootsChanged(signal?: AbortSignal): Promise<void> {
    return this.#session.rootsChanged(signal);
  }

  /**
   * Cancels the tasks calls await as their own first (a closed session can send nothing, and the task would
   * run on), then ends the session.
   */
  async close(): Promise<void> {
    this.#lifetime.abort(new ClientError("cancelled", `Server "${this.serverId}": the session is closed`));
    await Promise.all([...this.#ownTasks.keys()].map((taskId) => this.#cancelOwn(taskId, undefined)));
    return this.#session.close();
  }

  /**
   * {@linkcode cancelAbandonedTask} for a call's own task, its `tasks/cancel` sent once: the call's
   * failed wait and `close()` may both give it up (a front's caller ending its session does both).
   */
  #cancelOwn(taskId: string, error: unknown): Promise<unknown> {
    return cancelAbandonedTask(taskId, error, {
      cancel: (signal) => {
        const sent = this.#ownTasks.get(taskId) ?? this.cancelTask(taskId, signal);
        this.#ownTasks.set(taskId, sent);
        return sent;
      },
      timers: this.#timers,
    });
  }

  /**
   * Lists the tools before the first call (a server refuses a task-only tool called plainly). The handshake
   * runs under the call's signal, so its failure is the call's; the shared listing runs under the session's,
   * and its failure is not. Its outcome, even silence for a whole `callTimeout`, is kept (asking again would
   * cost every call the same), except a transport failure.
   */
  async #listToolsOnce(signal: AbortSignal): Promise<void> {
    const { capabilities } = await this.#session.handshake(signal, "tools/call");
    if (capabilities.tools === undefined) return;
    let listing = joinable(this.#toolsListed);
    if (listing === undefined) {
      // A call cancelled already starts nothing: it fails with its own cancellation.
      if (signal.aborted) return;
      const work = sharedWork(this.#lifetime.signal);
      const started = work.share(
        this.#listTools(work.signal).catch((error: unknown) => {
          const kept = error instanceof ClientError && !["transport", "cancelled"].includes(error.kind);
          if (!kept && this.#toolsListed === started) this.#toolsListed = undefined;
        }),
      );
      listing = this.#toolsListed = started;
    }
    // A call that gives up is told of its own tools/call, not of the listing it shares.
    const cancelled = (reason: unknown) => abortError(this.serverId, "tools/call", reason);
    await awaitShared(listing, { signal, cancelled });
  }

  /** Lists every page of the server's tools (at most 100), learning which must run as tasks. */
  async #listTools(signal: AbortSignal): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const listed = decodeListToolsResult(
        await this.request("tools/list", cursor === undefined ? {} : { cursor }, { signal }),
      );
      if (!listed.ok) return;
      this.#learnTools(listed.value.tools);
      cursor = listed.value.nextCursor;
      if (cursor === undefined) return;
    }
  }

  /** One attempt of a call, under its pausable `callTimeout`. */
  async #once(method: string, params: JsonObject, context: CallContext): Promise<JsonObject> {
    const leg = openLeg(context.signal);
    const deadline = new PausableDeadline(this.#policy.callTimeoutMs, {
      timers: this.#timers,
      now: this.#now,
      onExpire: () => leg.abort(new DeadlineReached("leg", this.#policy.callTimeoutMs)),
    });
    try {
      return await this.#session.request(method, params, {
        signal: leg.signal,
        call: {
          assigns: context.assigns,
          principal: context.principal,
          deadline,
          signal: leg.signal,
          onDeferred: context.onDeferred,
          onNotification: context.onNotification,
        },
        onProgress: context.onProgress,
      });
    } finally {
      deadline.clear();
      leg.dispose();
    }
  }

  /**
   * Runs every URL elicitation of a `-32042` through the chain; all must be accepted. More than
   * `maxInputRequests` of them fail the call before any runs.
   */
  async #elicitUrls(data: unknown, context: CallContext): Promise<void> {
    const decoded = decodeUrlElicitationRequiredData(data);
    if (!decoded.ok) {
      throw new ClientError(
        "protocol",
        `Server "${this.serverId}" sent -32042 with invalid data: ${decoded.message}`,
        { serverId: this.serverId },
      );
    }
    const { elicitations } = decoded.value;
    const tooMany = tooManyInputRequests(elicitations.length, this.#policy);
    if (tooMany !== undefined) {
      throw new ClientError("protocol", tooMany, { serverId: this.serverId, code: -32042 });
    }
    for (const [index, params] of elicitations.entries()) {
      const checked = await this.#session.chain.run({ method: "elicitation/create", params }, {
        version: "2025-11-25",
        assigns: context.assigns,
        principal: context.principal,
        relatedRequestId: null,
        callInFlight: true,
        signal: context.signal,
      });
      // One the handler defers goes to the call's caller (the front's), as a request would.
      const result = await answerDeferral(checked, context.onDeferred, context.signal);
      if (!result.ok && result.stage === "capability") {
        // The server answered with an error, as it may: the call needs what this client does not do.
        throw new ClientError(
          "input_handler",
          `Server "${this.serverId}" requires a URL elicitation first, which this client did not declare`,
          { serverId: this.serverId, code: -32603 },
        );
      }
      if (!result.ok) throw inputError(this.serverId, `elicitations[${index}]`, "elicitation/create", result);
      const action = (result.answer as { action?: unknown }).action;
      if (action !== "accept") {
        // -32603, as any input left unanswered: the -32042 was answered (a gateway's caller told it again
        // would be sent to open a URL without the URL).
        throw new ClientError(
          "input_handler",
          `Server "${this.serverId}" requires a URL elicitation first, and the user answered "${
            String(action)
          }"`,
          { serverId: this.serverId, code: -32603 },
        );
      }
    }
  }
}

/** Params not asked as a task: a caller's own `task` (a gateway's 2025 host's) is left out too. */
function withoutTask(params: JsonObject): JsonObject {
  if (!Object.hasOwn(params, "task")) return params;
  const { task: _task, ...plain } = params;
  return plain;
}
