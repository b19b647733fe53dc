/**
 * The client's methods over any server session: each call runs under one flow signal (the
 * caller's signal, the client's close and the policy's `maxTotalTimeout`), and what the server
 * returned is decoded before it is handed back.
 *
 * @module
 */
import type { CallDecision, DecisionSink } from "../chain/decision.ts";
import type { Clock } from "../_internal/clock.ts";
import { ClientError } from "../errors.ts";
import type { Decoded } from "../protocol/decode.ts";
import type { CompleteResultOf } from "../protocol/input-required.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { decodeDiscoverResult } from "../protocol/discover.ts";
import { decodeListPromptsResult } from "../protocol/prompts.ts";
import { decodeListResourcesResult, decodeListResourceTemplatesResult } from "../protocol/resources.ts";
import { decodeListToolsResult } from "../protocol/tools.ts";
import type { LinkedSignal } from "../_internal/signals.ts";
import type { CallOptions, Client, ListOptions, ToolCallOptions } from "./client-types.ts";
import { filterListedTools } from "./modern/tool-headers.ts";
import { invalidResult } from "./modern/failure-errors.ts";
import type { CallContext, ServerSession } from "./server-session.ts";
import type { CreateTaskResult } from "../protocol/tasks.ts";
import type { LegacyCreateTaskResult } from "../protocol/legacy-tasks.ts";
import type { ClientServers } from "./client-servers.ts";
import { withoutQuotedUrlSecrets, withoutUrlSecrets } from "../_internal/url-query.ts";
import { describeValue, thrownName } from "../_internal/quote.ts";
import { isObject } from "../_internal/is-object.ts";
import { unknownOptionProblem } from "../_internal/suggest.ts";
import { risingOnly } from "../notify/progress-delivery.ts";

/** What the methods need from the client. */
export interface MethodDeps {
  /** The flow signal of one call. */
  readonly flowFor: (serverId: string, signal: AbortSignal | undefined) => LinkedSignal;
  /** The client's assigns. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** Runs a call on a server's session ({@linkcode ClientServers.run}). */
  readonly run: ClientServers["run"];
  /** Hears how each tool call, read and prompt ended (decision events), while it listens. */
  readonly decisions: DecisionSink;
  /** The client's name, for the events. */
  readonly client: string;
  /** The clock of the events. */
  readonly clock: Clock;
}

type Methods = Omit<
  Client,
  | "name"
  | "servers"
  | "close"
  | "onNotification"
  | "notifications"
  | "stats"
  | "beginAuthorization"
  | "completeAuthorization"
  | "signOut"
  | "onDecision"
>;

/**
 * Builds the client's methods.
 *
 * @param deps Sessions, flows and the default assigns.
 * @returns The methods.
 */
export function createClientMethods(deps: MethodDeps): Methods {
  const within = async <T>(
    serverId: string,
    method: string,
    options: { readonly signal?: AbortSignal | undefined } | undefined,
    work: (session: ServerSession, flow: AbortSignal) => Promise<T>,
    argumentProblem?: string,
  ): Promise<T> => {
    const problem = argumentProblem ?? optionsProblem(options);
    if (problem !== undefined) throw refusal(serverId, method, problem);
    const flow = deps.flowFor(serverId, signalOf(serverId, method, options));
    try {
      return await deps.run(
        serverId,
        { signal: flow.signal, method },
        (session) => work(session, flow.signal),
      );
    } finally {
      flow.dispose();
    }
  };
  const decoded = <T>(serverId: string, method: string, result: Decoded<T>): T => {
    if (result.ok) return result.value;
    throw invalidResult(serverId, method, result.message);
  };
  const list =
    <T>(method: string, decode: (value: unknown) => Decoded<T>) =>
    (serverId: string, options: ListOptions = {}) =>
      within(serverId, method, options, async (session, flow) => {
        const params = options.cursor === undefined ? {} : { cursor: options.cursor };
        return decoded(serverId, method, decode(await session.request(method, params, { signal: flow })));
      }, cursorProblem(options?.cursor));
  /** Runs one call and tells the decision listeners, if any, how it ended. */
  const recorded = async <T>(
    serverId: string,
    method: string,
    name: string,
    work: (note: (rounds: number | undefined, detached?: boolean) => void) => Promise<T>,
  ): Promise<T> => {
    if (!deps.decisions.listening) return work(() => {});
    const startedAt = deps.clock.now();
    let rounds: number | undefined;
    let task = false;
    let decision: Pick<CallDecision, "outcome" | "error" | "task"> = { outcome: "failed" };
    try {
      const result = await work((counted, detached) => {
        rounds = counted;
        task = detached === true;
      });
      const isError = typeof result === "object" && result !== null &&
        (result as { isError?: unknown }).isError === true;
      decision = task
        ? { outcome: "task", task: taskIdOf(result as CreateTaskResult | LegacyCreateTaskResult) }
        : { outcome: isError ? "tool_error" : "completed" };
      return result;
    } catch (error) {
      decision = { outcome: "failed", error: failureOf(error) };
      throw error;
    } finally {
      deps.decisions.decide({
        type: "call",
        time: new Date(deps.clock.now()).toISOString(),
        client: deps.client,
        server: serverId,
        method,
        // A resource's URI may carry a token, and events go to logs.
        name: method === "resources/read" ? withoutUrlSecrets(name) : name,
        ...decision,
        ...(rounds === undefined ? {} : { rounds }),
        durationMs: deps.clock.now() - startedAt,
      });
    }
  };
  const context = (options: CallOptions, flow: AbortSignal): CallContext => ({
    signal: flow,
    assigns: options.assigns ?? deps.assigns,
    // One filter over the whole call: every round of a modern call, and a legacy call sent again.
    onProgress: options.onProgress === undefined ? undefined : risingOnly(options.onProgress),
  });
  /** A read or a prompt: like a tool call, but a task is no answer to either. */
  const completeCall = <M extends "resources/read" | "prompts/get">(
    serverId: string,
    method: M,
    name: string,
    params: JsonObject,
    options: CallOptions,
    argumentProblem: string | undefined,
  ): Promise<CompleteResultOf[M]> =>
    recorded(
      serverId,
      method,
      name,
      (note) =>
        within(serverId, method, options, async (session, flow) => {
          const outcome = await session.call(method, params, context(options, flow));
          note(outcome.rounds);
          if (outcome.kind === "complete") return outcome.result;
          throw new ClientError(
            "protocol",
            `Server "${serverId}" answered ${method} with a task, which only tools/call may do`,
            { serverId },
          );
        }, argumentProblem),
    );

  return {
    discover: (serverId, options = {}) =>
      within(serverId, "server/discover", options, async (session, flow) => {
        const result = await session.request("server/discover", {}, { signal: flow });
        return decoded(serverId, "server/discover", decodeDiscoverResult(result));
      }),
    listTools: (serverId, options = {}) =>
      within(serverId, "tools/list", options, async (session, flow) => {
        const params = options.cursor === undefined ? {} : { cursor: options.cursor };
        const learn = session.startToolsListing();
        const result = await session.request("tools/list", params, { signal: flow });
        const page = decoded(serverId, "tools/list", decodeListToolsResult(result));
        learn(page.tools);
        return { ...page, tools: filterListedTools(page.tools).tools };
      }, cursorProblem(options?.cursor)),
    listResources: list("resources/list", decodeListResourcesResult),
    listResourceTemplates: list("resources/templates/list", decodeListResourceTemplatesResult),
    listPrompts: list("prompts/list", decodeListPromptsResult),
    // One body for both of callTool's overloads: the result's type follows `detachTask`.
    callTool:
      ((serverId: string, name: string, args: JsonObject = {}, options: ToolCallOptions = {}) =>
        recorded(
          serverId,
          "tools/call",
          name,
          (note) =>
            within(serverId, "tools/call", options, async (session, flow) => {
              const ctx = context(options, flow);
              const outcome = await session.call("tools/call", { name, arguments: args }, ctx);
              note(outcome.rounds, outcome.kind !== "complete" && options.detachTask === true);
              if (outcome.kind === "complete") return outcome.result;
              if (options.detachTask === true) return outcome.task;
              // The caller never sees this task's id: a wait that fails cancels it and names it.
              return await session.awaitTask(taskIdOf(outcome.task), {
                ...ctx,
                cancelIfAbandoned: true,
                awaitingMethod: "tools/call",
              });
            }, nameProblem("name", name) ?? objectProblem("arguments", args)),
        )) as Client["callTool"],
    readResource: (serverId, uri, options = {}) =>
      completeCall(serverId, "resources/read", uri, { uri }, options, nameProblem("uri", uri)),
    getPrompt: (serverId, name, args, options = {}) =>
      completeCall(
        serverId,
        "prompts/get",
        name,
        args === undefined ? { name } : { name, arguments: args },
        options,
        nameProblem("name", name) ?? (args === undefined ? undefined : promptArgumentsProblem(args)),
      ),
    awaitTask: (serverId, taskId, options = {}) =>
      recorded(serverId, "tasks/get", taskId, () =>
        within(
          serverId,
          "tasks/get",
          options,
          (session, flow) => session.awaitTask(taskId, context(options, flow)),
          nameProblem("taskId", taskId),
        )),
    cancelTask: (serverId, taskId, options = {}) =>
      within(
        serverId,
        "tasks/cancel",
        options,
        (session, flow) => session.cancelTask(taskId, flow),
        nameProblem("taskId", taskId),
      ),
    rootsChanged: (serverId) =>
      within(
        serverId,
        "notifications/roots/list_changed",
        undefined,
        (session, flow) => session.rootsChanged(flow),
      ),
  };
}

/**
 * The id of a task a call became: flat in 2026-07-28, under `task` in 2025-11-25.
 *
 * @param task The task.
 * @returns Its id.
 */
export function taskIdOf(task: CreateTaskResult | LegacyCreateTaskResult): string {
  return isLegacyTask(task) ? task.task.taskId : task.taskId;
}

function isLegacyTask(task: CreateTaskResult | LegacyCreateTaskResult): task is LegacyCreateTaskResult {
  return typeof (task as { task?: unknown }).task === "object";
}

/**
 * What a call event says of a failure: the client error's kind, code and message (the upstream's real cause),
 * a URL it quotes without its query's values, as events go to logs.
 *
 * @param error What the call failed with.
 * @returns The event's `error`.
 */
export function failureOf(
  error: unknown,
): { readonly kind: string; readonly code?: number; readonly message: string } {
  if (error instanceof ClientError) {
    return {
      kind: error.kind,
      ...(error.code === undefined ? {} : { code: error.code }),
      message: withoutQuotedUrlSecrets(error.message),
    };
  }
  return {
    kind: "internal",
    message: withoutQuotedUrlSecrets(error instanceof Error ? error.message : String(error)),
  };
}

/**
 * The caller's signal, once the call options are checked: an object whose `signal` is an `AbortSignal` and
 * whose `onProgress` is a function, when given. Anything else fails the call as the caller's mistake, not
 * deep inside it.
 *
 * @param serverId The server called.
 * @param method What was called, for the message.
 * @param options The call's options, untrusted.
 * @returns The signal, if any.
 * @throws {ClientError} `"config"` (`-32602`) when the options are not as documented.
 */
export function signalOf(
  serverId: string,
  method: string,
  options: { readonly signal?: AbortSignal | undefined } | undefined,
): AbortSignal | undefined {
  if (options === undefined) return undefined;
  const refuse = (what: string) => refusal(serverId, method, what);
  if (!isObject(options)) {
    throw refuse(`the options must be an object, received ${describeValue(options)}`);
  }
  const { signal, onProgress } = options as { readonly signal?: unknown; readonly onProgress?: unknown };
  const candidate = signal as Partial<AbortSignal> | null;
  const isSignal = typeof signal === "object" && candidate !== null &&
    typeof candidate.aborted === "boolean" && typeof candidate.addEventListener === "function";
  if (signal !== undefined && !isSignal) {
    throw refuse(`"signal" must be an AbortSignal, received ${describeValue(signal)}`);
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw refuse(`"onProgress" must be a function, received ${describeValue(onProgress)}`);
  }
  return signal as AbortSignal | undefined;
}

/**
 * Every option a call takes (`CallOptions`, `ToolCallOptions`, `ListOptions`): one options object
 * may serve several calls, as the types allow, so only a key no call takes is refused.
 */
const OPTIONS: readonly string[] = ["signal", "onProgress", "assigns", "detachTask", "cursor"];

/**
 * What is wrong with a call's options beyond its signal and progress callback: a key no call takes (a typo is
 * not left to be ignored), and `detachTask` that is not a boolean.
 */
function optionsProblem(options: object | undefined): string | undefined {
  if (!isObject(options)) return undefined;
  const unknown = unknownOptionProblem(options, OPTIONS);
  if (unknown !== undefined) return unknown;
  const detach = (options as { detachTask?: unknown }).detachTask;
  return detach === undefined || typeof detach === "boolean"
    ? undefined
    : `"detachTask" must be a boolean, received ${describeValue(detach)}`;
}

/** A call refused as given, before any request: the caller's mistake (`config`, `-32602`). */
function refusal(serverId: string, method: string, what: string): ClientError {
  return new ClientError("config", `Call of ${method} to server "${serverId}" refused: ${what}`, {
    serverId,
    code: -32602,
  });
}

/** What is wrong with a name the call needs (a tool's, a URI, a task id): it must be a non-empty string. */
function nameProblem(label: string, value: unknown): string | undefined {
  return typeof value === "string" && value !== ""
    ? undefined
    : `"${label}" must be a non-empty string, received ${describeValue(value)}`;
}

/** What is wrong with a call's arguments: they must be a JSON object. */
function objectProblem(label: string, value: unknown): string | undefined {
  if (!isObject(value)) return `"${label}" must be an object, received ${describeValue(value)}`;
  try {
    JSON.stringify(value);
  } catch (error) {
    // A BigInt, a cycle: sent, it would throw out of the request as no ClientError.
    return `"${label}" must be plain JSON, and turning it into JSON threw ${thrownName(error)}: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
  return undefined;
}

/** What is wrong with a prompt's arguments: an object of strings, as `prompts/get` takes them. */
function promptArgumentsProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `"arguments" must be an object, received ${describeValue(value)}`;
  const wrong = Object.keys(value).find((key) => typeof value[key] !== "string");
  return wrong === undefined
    ? undefined
    : `"arguments" must hold strings, received ${describeValue(value[wrong])} for ${JSON.stringify(wrong)}`;
}

/** What is wrong with a list's cursor: a string, when given. */
function cursorProblem(cursor: unknown): string | undefined {
  return cursor === undefined || typeof cursor === "string"
    ? undefined
    : `"cursor" must be a string, received ${describeValue(cursor)}`;
}
