/**
 * What the client's methods need from a server, whichever era it speaks: requests, calls that
 * may ask for input (answered through the chain) or become tasks, and tasks.
 *
 * @module
 */
import type { Principal } from "../handler/handler.ts";
import { type ChainResult, HANDLER_THREW } from "../chain/chain.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { CallToolResult } from "../protocol/call-tool-result.ts";
import type { CompleteResultOf, MrtrMethod } from "../protocol/input-required.ts";
import type { JsonObject, JsonRpcNotification } from "../protocol/jsonrpc.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { LoggingLevel } from "../protocol/logging-level.ts";
import type { DeclaredCapabilities } from "../handler/capabilities.ts";
import type { LegacyCreateTaskResult } from "../protocol/legacy-tasks.ts";
import type { CreateTaskResult } from "../protocol/tasks.ts";
import type { Tool } from "../protocol/tools.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";

/** What one call carries besides its params. */
export interface CallContext {
  /** The flow's signal: the caller's, the client's close and `maxTotalTimeout` linked. */
  readonly signal: AbortSignal;
  /** The call's assigns, for the handlers of the input it causes. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The front only: its caller, for the handlers of the input the call causes (`ctx.principal`). */
  readonly principal?: Principal | undefined;
  /** The front only, modern era: sends the call's requests with its caller's sign-in. */
  readonly fetch?: Fetcher | undefined;
  /** Progress notifications for this call: the sessions deliver them by `deliverProgress` (sanitized, off the connection). */
  readonly onProgress?: ((params: JsonObject) => void) | undefined;
  /** Asks a legacy server to run the call as a task (2025-11-25). */
  readonly asTask?: boolean;
  /**
   * `awaitTask` only: the task is the call's own (its id never handed out), so a wait that ends before the
   * task does sends `tasks/cancel` and fails with `data.taskId`. A task whose id its caller holds is left
   * running.
   */
  readonly cancelIfAbandoned?: boolean;
  /**
   * `awaitTask` only: the method of the call that waits for the task (`"tools/call"` for a tool
   * call's own task), named when the call gives up. @default "tasks/get" (modern), "tasks/result" (legacy)
   */
  readonly awaitingMethod?: string;
  /**
   * The front only: answers an input request the handler deferred (`ctx.defer()`) by asking the front's
   * caller, while the call waits (a legacy call's deadline paused). Without it a deferral fails the request.
   */
  readonly onDeferred?: DeferredAnswerer | undefined;
  /** The front only: also takes the call's other notifications (log entries), to relay them to its caller. */
  readonly onNotification?: ((notification: JsonRpcNotification) => void) | undefined;
  /**
   * The front only, modern era: the capabilities to declare for this call instead of the chain's (what its
   * caller can answer). A legacy session declared its own at `initialize`.
   */
  readonly capabilities?: ClientCapabilities | undefined;
  /**
   * The front only, modern era: the log level to ask for with this call, or `undefined` for none. Read only
   * when `onNotification` is given.
   */
  readonly logLevel?: LoggingLevel | undefined;
}

/**
 * Answers a deferred server request later, resolving with the answer as the chain would give it or a failure.
 * `signal` fires when the server cancels the request or the connection ends (then nothing is sent). `tie`
 * says how a legacy request was tied to its call, and what the server asked (none for a modern round's
 * entries).
 */
export type DeferredAnswerer = (
  request: InputRequest,
  signal: AbortSignal,
  tie?: DeferredTie,
) => Promise<ChainResult>;

/** How a legacy server's request was tied to the call whose `onDeferred` answers it, and what it asked. */
export interface DeferredTie {
  /** The request as the server sent it, before the checks: what they changed is the difference. */
  readonly asked: InputRequest;
  /**
   * The request named no call and was tied to the one call in flight only because it was the one (stdio, or a
   * pooled session): the server may have asked on its own, for no call at all.
   */
  readonly guessed: boolean;
}

/**
 * A chain result the handler deferred, answered by `onDeferred` when there is one (its rejection
 * becomes the handler's failure); any other result as it is.
 *
 * @param result The chain's result.
 * @param onDeferred Who answers deferrals here, if anyone.
 * @param signal The request's signal.
 * @returns The final result; never rejects.
 */
export async function answerDeferral(
  result: ChainResult,
  onDeferred: DeferredAnswerer | undefined,
  signal: AbortSignal,
): Promise<ChainResult> {
  if (result.ok || result.stage !== "deferred" || result.request === undefined || onDeferred === undefined) {
    return result;
  }
  return await onDeferred(result.request, signal).catch((cause): ChainResult => ({
    ok: false,
    stage: "handler",
    refusal: { code: -32603, message: HANDLER_THREW },
    cause,
  }));
}

/**
 * The front's hooks on a legacy session it opens for one of its callers: what to declare, where
 * the server's messages tied to no call go, and the log level asked for.
 */
export interface CallerHooks {
  /** What to declare at `initialize` (the front's kinds that this caller can answer). */
  readonly declared: DeclaredCapabilities;
  /** Also takes the server's notifications tied to no call (logs, list changes), besides the client's queue. */
  readonly onNotification: (notification: JsonRpcNotification) => void;
  /** Answers the server's requests tied to no call that the handler deferred. */
  readonly onDeferred: DeferredAnswerer;
  /** The log level to ask for once connected (`logging/setLevel`). */
  readonly logLevel: LoggingLevel;
}

/** What a server offers, whichever era it speaks. */
export interface ServerOffer {
  /** Its capabilities, as it sent them. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** Its guidance for the model, when it gave some. */
  readonly instructions?: string;
}

/** How a call ended: its complete result, or a task the server created. */
export type CallOutcome<M extends MrtrMethod> =
  | {
    readonly kind: "complete";
    readonly result: CompleteResultOf[M];
    /** How many requests the call took (modern era; a legacy call is one request). */
    readonly rounds?: number;
  }
  | {
    readonly kind: "task";
    readonly task: CreateTaskResult | LegacyCreateTaskResult;
    readonly rounds?: number;
  };

/** One server, modern or legacy. */
export interface ServerSession {
  /** The server's id. */
  readonly serverId: string;
  /** The era it speaks. */
  readonly era: "modern" | "legacy";
  /**
   * What the server offers: its capabilities and instructions (legacy: from `initialize`,
   * connecting first if needed; modern: `server/discover`).
   */
  offer(signal: AbortSignal, fetch?: Fetcher): Promise<ServerOffer>;
  /**
   * Sends a request that cannot ask for input (lists, `server/discover`); `fetch` (modern era,
   * the front's caller's sign-in) sends it with another fetch than the session's.
   */
  request(
    method: string,
    params: JsonObject,
    options: { readonly signal: AbortSignal; readonly fetch?: Fetcher | undefined },
  ): Promise<JsonObject>;
  /** Runs `tools/call`, `resources/read` or `prompts/get`, answering whatever input it needs. */
  call<M extends MrtrMethod>(method: M, params: JsonObject, context: CallContext): Promise<CallOutcome<M>>;
  /** Waits for a task to end, answering its input. */
  awaitTask(taskId: string, context: CallContext): Promise<CallToolResult>;
  /** Asks the server to cancel a task. */
  cancelTask(taskId: string, signal: AbortSignal): Promise<void>;
  /**
   * Starts a listing of the tools (the caller's `tools/list`): what it returns records the listed
   * tools (their `x-mcp-header` rules, their task support), not over a listing started later.
   */
  startToolsListing(): (tools: readonly Tool[]) => void;
  /** Tells the server its roots changed, where the era has a way to, under `signal` if given. */
  rootsChanged(signal?: AbortSignal): Promise<void>;
  /**
   * Asks for the server's logs at this level from now on: `logging/setLevel` in the legacy era (when the
   * server offers logging); nothing in the modern era, where the level travels with each request.
   */
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** Ends the session's connections. */
  close(): Promise<void>;
}
