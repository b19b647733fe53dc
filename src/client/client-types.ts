/**
 * The client's public types: its options, the options of each call, and its methods.
 *
 * @module
 */
import type { Clock } from "../_internal/clock.ts";
import type { Timers } from "../_internal/timers.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { Policy } from "../policy/policy.ts";
import type { Handler } from "../handler/handler.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import type { TokenStore } from "../auth/token-store.ts";
import type { DecisionListener } from "../chain/decision.ts";
import type { CallToolResult } from "../protocol/call-tool-result.ts";
import type { DiscoverResult } from "../protocol/discover.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { GetPromptResult, ListPromptsResult } from "../protocol/prompts.ts";
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from "../protocol/resources.ts";
import type { CreateTaskResult } from "../protocol/tasks.ts";
import type { LegacyCreateTaskResult } from "../protocol/legacy-tasks.ts";
import type { ListToolsResult } from "../protocol/tools.ts";
import type { NotificationEntry } from "../notify/notification-entry.ts";
import type { NotificationStats } from "../notify/notification-queue.ts";

/** Options of `createClient`. */
export interface ClientOptions {
  /** The client's name: `clientInfo.name` and `ctx.client`. */
  readonly name: string;
  /** `clientInfo.version`. @default sluice's version */
  readonly version?: string | undefined;
  /** `clientInfo.title`. */
  readonly title?: string | undefined;
  /** The callbacks that answer servers; without one the client declares nothing. */
  readonly handler?: Handler | undefined;
  /** One policy per server: plain, or compiled (as `loadPolicies` of `@sluice/mcp/cli` returns them). */
  readonly policies: readonly (Policy | CompiledPolicy)[];
  /** Assigns handed to callbacks when a call gives none. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>> | undefined;
  /** Declares the tasks extension (`io.modelcontextprotocol/tasks`). @default false */
  readonly tasks?: boolean | undefined;
  /** Where input budgets live. @default an in-memory store (per process or isolate) */
  readonly store?: RateLimitStore | undefined;
  /** The fetch to use (a Workers service binding's, a test's), called as `fetch(url, init)`. @default globalThis.fetch */
  readonly fetch?: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  /**
   * Reads an environment variable: the secrets a policy's `transport.auth` names, read when a token is first
   * needed. On Workers, pass `(name) => env[name]`.
   * @default the process environment with `@sluice/mcp/legacy` (self-hosted); none with the edge entry
   */
  readonly environment?: ((name: string) => string | undefined) | undefined;
  /** Signing in to servers whose policy has `transport.auth` (tokens, where people come back). */
  readonly signIn?: SignInOptions | undefined;
  /** Timers for deadlines and polling. @default the runtime's */
  readonly timers?: Timers | undefined;
  /** The clock of the default store. @default Date.now */
  readonly clock?: Clock | undefined;
}

/** How the client signs in to OAuth-protected servers (`ClientOptions.signIn`). */
export interface SignInOptions {
  /**
   * Where tokens, client registrations and sign-ins in progress are kept (values hold tokens).
   * @default an in-memory store (per process or isolate)
   */
  readonly tokens?: TokenStore | undefined;
  /**
   * Where the authorization server sends the person back after a sign-in (`transport.auth.oauth`):
   * `https:`, or `http:` on loopback. Pass what arrives there to `completeAuthorization`.
   */
  readonly redirectUri?: string | undefined;
  /** The client's metadata document URL (an `https:` URL with a path), used as the client id where supported. */
  readonly clientMetadataUrl?: string | undefined;
  /** Whose tokens the client's own calls use. @default "" */
  readonly principal?: string | undefined;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * Assigns for the callbacks this call causes (`ctx.assigns`). A legacy stdio server's request that comes
   * while several calls are in flight gets the client's.
   * @default the client's
   */
  readonly assigns?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Cancels the call: the request is aborted and running handlers are signalled (a legacy stdio
   * server's request that came while other calls were in flight, once they have ended too).
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Receives this call's `notifications/progress` params whose `progress` is above the last one heard (the
   * spec's "MUST increase"; the rest are dropped), in arrival order (a callback that returns a promise holds
   * back only its own later entries), in a microtask, sanitized like a notification subscriber's params
   * (strings cleaned by `sanitizeText`; prototype-free, frozen). A throw or rejection is logged and skipped.
   * A call that became a task of a 2025-11-25 server hears the task's progress until it ends, also after
   * `detachTask` returned it (the 1024 latest such tasks per server).
   */
  readonly onProgress?: ((progress: JsonObject) => void) | undefined;
}

/** Options of `callTool`. */
export interface ToolCallOptions extends CallOptions {
  /** Returns a task the server creates instead of awaiting it (see `awaitTask`). @default false */
  readonly detachTask?: boolean | undefined;
}

/** Options of the list methods. */
export interface ListOptions {
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/** A client of many MCP servers. Every failure rejects with a `ClientError`. */
export interface Client {
  /** The client's name. */
  readonly name: string;
  /** The server ids it has policies for. */
  servers(): string[];
  /**
   * Starts a sign-in to a server with `transport.auth.oauth` before any call needs one (what `sluice login`
   * does): open `url`, then pass the callback to `completeAuthorization`. Any other server is refused as
   * `"config"`.
   */
  beginAuthorization(serverId: string): Promise<{ readonly url: string; readonly expiresAt: number }>;
  /**
   * Finishes a sign-in: `callbackUrl` is where the authorization server sent the person back (the
   * `signIn.redirectUri` with `code`, `state`, `iss`). Checks it, exchanges the code (within 25 s, else
   * `"transport"`) and stores the tokens; a call waiting on the sign-in goes on. A `callbackUrl` that is not
   * a URL is refused as `"config"`.
   *
   * `options.signal` rejects it with a `"cancelled"` `ClientError` (its `cause` the signal's reason). Aborted
   * already, nothing is done and the callback can be passed again. Aborted later, no tokens are stored and
   * the callback is spent (its `state` used; the single-use code is never sent again): a call waiting on the
   * sign-in fails; start over with `beginAuthorization`. An abort after the tokens are stored changes
   * nothing.
   */
  completeAuthorization(
    serverId: string,
    callbackUrl: string,
    options?: { readonly signal?: AbortSignal | undefined },
  ): Promise<void>;
  /** Forgets the client's tokens for a server (the next call signs in again). */
  signOut(serverId: string): Promise<void>;
  /**
   * Hears one decision event per input request a server sends and per tool call, read or prompt, the
   * gateway's included (with their caller), from when it is added; with no listener, no event is built. An
   * event carries what a caller or server chose as they sent it: pass it through `sanitizeText` before a
   * terminal or log shows it.
   *
   * @returns Unsubscribes.
   * @throws {TypeError} When the listener is not a function.
   */
  onDecision(listener: DecisionListener): () => void;
  /** Asks a server what it supports (`server/discover`). */
  discover(serverId: string, options?: CallOptions): Promise<DiscoverResult>;
  /** One page of tools; tools with invalid `x-mcp-header` annotations are left out. */
  listTools(serverId: string, options?: ListOptions): Promise<ListToolsResult>;
  /** One page of resources. */
  listResources(serverId: string, options?: ListOptions): Promise<ListResourcesResult>;
  /** One page of resource templates. */
  listResourceTemplates(serverId: string, options?: ListOptions): Promise<ListResourceTemplatesResult>;
  /** One page of prompts. */
  listPrompts(serverId: string, options?: ListOptions): Promise<ListPromptsResult>;
  /**
   * Calls a tool, answering every input request through the policy's chain. A task the server creates is
   * awaited; when the wait fails before the task ends (signal, `maxTotalTimeout`, a modern task's input
   * request refused, `close()`), the task is cancelled (`tasks/cancel`) and the error carries its id as
   * `data.taskId` (beside an object's fields, else with the server's data as `data.data`).
   */
  callTool(
    serverId: string,
    name: string,
    args?: JsonObject,
    options?: ToolCallOptions & { readonly detachTask?: false | undefined },
  ): Promise<CallToolResult>;
  /**
   * Calls a tool as above; with `detachTask: true`, a task the server creates is returned (the
   * era's task result) instead of awaited: pass its id to `awaitTask`.
   */
  callTool(
    serverId: string,
    name: string,
    args: JsonObject | undefined,
    options: ToolCallOptions,
  ): Promise<CallToolResult | CreateTaskResult | LegacyCreateTaskResult>;
  /** Reads a resource, answering input requests through the chain. */
  readResource(serverId: string, uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  /** Gets a prompt, answering input requests through the chain. */
  getPrompt(
    serverId: string,
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  /** Waits for a task: polls it, answers its input requests, returns its result. */
  awaitTask(serverId: string, taskId: string, options?: CallOptions): Promise<CallToolResult>;
  /** Asks the server to cancel a task. */
  cancelTask(serverId: string, taskId: string, options?: CallOptions): Promise<void>;
  /**
   * Tells a legacy server the handler's roots changed (`notifications/roots/list_changed`); a
   * no-op in the modern era, and for a server the client declared no roots to.
   */
  rootsChanged(serverId: string): Promise<void>;
  /**
   * Hears every server notification the client does not consume itself, sanitized, in arrival order (log
   * entries after the per-server log budget; every server is asked for logs at its policy's `logLevel`). Slow
   * listeners are bounded like the handler's queue (the policy's `maxWaitingNotifications`, 1000 by default;
   * newer dropped and counted).
   *
   * @returns A function that unsubscribes.
   * @throws {TypeError} When the listener is not a function.
   */
  onNotification(listener: (entry: NotificationEntry) => unknown): () => void;
  /** The same entries as an async iterator (bounded likewise); it ends when the client closes. */
  notifications(): AsyncIterableIterator<NotificationEntry, undefined>;
  /** Per server: notifications delivered, dropped (queue full) and rate-limited (log budget). */
  stats(): Readonly<Record<string, NotificationStats>>;
  /**
   * Stops the client: calls in flight are cancelled and later calls fail.
   *
   * @returns Resolves once every session is closed and waiting notifications were delivered to the handler
   *   and each `onNotification` listener; a `notifications()` iterator ends after its waiting entries are
   *   read.
   */
  close(): Promise<void>;
}
