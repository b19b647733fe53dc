/**
 * What the client's methods need from a server, whichever era it speaks: requests, calls that
 * may ask for input (answered through the chain) or become tasks, and tasks.
 *
 * @module
 */
import type { ChainResult } from "../chain/chain.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { CallToolResult } from "../protocol/call-tool-result.ts";
import type { CompleteResultOf, MrtrMethod } from "../protocol/input-required.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { LegacyCreateTaskResult } from "../protocol/legacy-tasks.ts";
import type { CreateTaskResult } from "../protocol/tasks.ts";
import type { Tool } from "../protocol/tools.ts";

/** What one call carries besides its params. */
export interface CallContext {
  /** The flow's signal: the caller's, the client's close and `maxTotalTimeout` linked. */
  readonly signal: AbortSignal;
  /** The call's assigns, for the handlers of the input it causes. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** Progress notifications for this call. */
  readonly onProgress?: ((params: JsonObject) => void) | undefined;
  /** Asks a legacy server to run the call as a task (2025-11-25). */
  readonly asTask?: boolean;
  /**
   * Legacy era, the front only: answers a server request the handler deferred (`ctx.defer()`),
   * while the call waits (its deadline paused). Without it a deferral fails the request.
   */
  readonly onDeferred?: DeferredAnswerer | undefined;
}

/**
 * Answers a deferred server request later: resolves with the answer as the chain would give it,
 * or a failure (`"cancelled"` sends nothing). `signal` fires when the server cancels the request
 * or the connection ends.
 */
export type DeferredAnswerer = (request: InputRequest, signal: AbortSignal) => Promise<ChainResult>;

/** How a call ended: its complete result, or a task the server created. */
export type CallOutcome<M extends MrtrMethod> =
  | { readonly kind: "complete"; readonly result: CompleteResultOf[M] }
  | { readonly kind: "task"; readonly task: CreateTaskResult | LegacyCreateTaskResult };

/** One server, modern or legacy. */
export interface ServerSession {
  /** The server's id. */
  readonly serverId: string;
  /** The era it speaks. */
  readonly era: "modern" | "legacy";
  /** Sends a request that cannot ask for input (lists, `server/discover`). */
  request(method: string, params: JsonObject, options: { readonly signal: AbortSignal }): Promise<JsonObject>;
  /** Runs `tools/call`, `resources/read` or `prompts/get`, answering whatever input it needs. */
  call<M extends MrtrMethod>(method: M, params: JsonObject, context: CallContext): Promise<CallOutcome<M>>;
  /** Waits for a task to end, answering its input. */
  awaitTask(taskId: string, context: CallContext): Promise<CallToolResult>;
  /** Asks the server to cancel a task. */
  cancelTask(taskId: string, signal: AbortSignal): Promise<void>;
  /** Records listed tools (their `x-mcp-header` rules, their task support). */
  learnTools(tools: readonly Tool[]): void;
  /** Tells the server its roots changed, where the era has a way to. */
  rootsChanged(): Promise<void>;
  /** Ends the session's connections. */
  close(): Promise<void>;
}
