/**
 * The client's methods over modern sessions: each call runs under one flow signal (the caller's
 * signal, the client's close and the policy's `maxTotalTimeout`), and decodes what the server
 * returned before handing it back.
 *
 * @module
 */
import type { Timers } from "../../chain/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CompiledPolicy } from "../../policy/compile-policy.ts";
import type { Decoded } from "../../protocol/decode.ts";
import { decodeDiscoverResult } from "../../protocol/discover.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { decodeListPromptsResult } from "../../protocol/prompts.ts";
import { decodeListResourcesResult, decodeListResourceTemplatesResult } from "../../protocol/resources.ts";
import { decodeListToolsResult } from "../../protocol/tools.ts";
import type { LinkedSignal } from "../_signals.ts";
import type { CallOptions, Client, ListOptions, ToolCallOptions } from "../client-types.ts";
import { awaitModernTask, cancelModernTask } from "./await-task.ts";
import type { ModernSession } from "./modern-session.ts";
import { runMultiRound } from "./multi-round.ts";
import { filterListedTools } from "./tool-headers.ts";

/** What the methods need from the client. */
export interface MethodDeps {
  readonly sessionOf: (serverId: string) => ModernSession;
  readonly flowFor: (serverId: string, signal: AbortSignal | undefined) => LinkedSignal;
  readonly policyOf: (serverId: string) => CompiledPolicy | undefined;
  readonly assigns: Readonly<Record<string, unknown>>;
  readonly tasks: boolean;
  readonly timers: Timers;
}

type Methods = Omit<Client, "name" | "servers" | "close">;

/**
 * Builds the client's methods.
 *
 * @param deps Sessions, flows, policies, default assigns, tasks and timers.
 * @returns The methods.
 */
export function createModernClientMethods(deps: MethodDeps): Methods {
  const within = async <T>(
    serverId: string,
    signal: AbortSignal | undefined,
    work: (session: ModernSession, flow: AbortSignal) => Promise<T>,
  ) => {
    const session = deps.sessionOf(serverId);
    const flow = deps.flowFor(serverId, signal);
    try {
      return await work(session, flow.signal);
    } finally {
      flow.dispose();
    }
  };
  const decoded = <T>(serverId: string, method: string, result: Decoded<T>): T => {
    if (result.ok) return result.value;
    throw new ClientError(
      "protocol",
      `Server "${serverId}" sent an invalid ${method} result: ${result.message}`,
      { serverId },
    );
  };
  const list =
    <T>(method: string, decode: (value: unknown) => Decoded<T>) =>
    (serverId: string, options: ListOptions = {}) =>
      within(serverId, options.signal, async (session, flow) => {
        const params = options.cursor === undefined ? {} : { cursor: options.cursor };
        return decoded(serverId, method, decode(await session.request(method, params, { signal: flow })));
      });
  const multi = <M extends "tools/call" | "resources/read" | "prompts/get">(
    serverId: string,
    method: M,
    params: JsonObject,
    options: CallOptions,
    flow: AbortSignal,
    session: ModernSession,
  ) =>
    runMultiRound(session, method, params, {
      signal: flow,
      assigns: options.assigns ?? deps.assigns,
      maxRounds: deps.policyOf(serverId)?.maxRounds ?? 10,
      tasks: deps.tasks && method === "tools/call",
      timers: deps.timers,
      onProgress: options.onProgress,
    });

  return {
    discover: (serverId, options = {}) =>
      within(
        serverId,
        options.signal,
        async (session, flow) =>
          decoded(
            serverId,
            "server/discover",
            decodeDiscoverResult(await session.request("server/discover", {}, { signal: flow })),
          ),
      ),
    listTools: (serverId, options = {}) =>
      within(serverId, options.signal, async (session, flow) => {
        const params = options.cursor === undefined ? {} : { cursor: options.cursor };
        const page = decoded(
          serverId,
          "tools/list",
          decodeListToolsResult(await session.request("tools/list", params, { signal: flow })),
        );
        session.tools.learn(page.tools);
        return { ...page, tools: filterListedTools(page.tools).tools };
      }),
    listResources: list("resources/list", decodeListResourcesResult),
    listResourceTemplates: list("resources/templates/list", decodeListResourceTemplatesResult),
    listPrompts: list("prompts/list", decodeListPromptsResult),
    callTool: (serverId, name, args = {}, options: ToolCallOptions = {}) =>
      within(serverId, options.signal, async (session, flow) => {
        const outcome = await multi(
          serverId,
          "tools/call",
          { name, arguments: args },
          options,
          flow,
          session,
        );
        if (outcome.kind === "complete") return outcome.result;
        if (options.detachTask === true) return outcome.task;
        return await awaitModernTask(session, outcome.task.taskId, {
          signal: flow,
          assigns: options.assigns ?? deps.assigns,
          timers: deps.timers,
        });
      }),
    readResource: (serverId, uri, options = {}) =>
      within(serverId, options.signal, async (session, flow) => {
        const outcome = await multi(serverId, "resources/read", { uri }, options, flow, session);
        return outcome.kind === "complete" ? outcome.result : unexpectedTask(serverId, "resources/read");
      }),
    getPrompt: (serverId, name, args, options = {}) =>
      within(serverId, options.signal, async (session, flow) => {
        const params = args === undefined ? { name } : { name, arguments: args };
        const outcome = await multi(serverId, "prompts/get", params, options, flow, session);
        return outcome.kind === "complete" ? outcome.result : unexpectedTask(serverId, "prompts/get");
      }),
    awaitTask: (serverId, taskId, options = {}) =>
      within(
        serverId,
        options.signal,
        (session, flow) =>
          awaitModernTask(session, taskId, {
            signal: flow,
            assigns: options.assigns ?? deps.assigns,
            timers: deps.timers,
          }),
      ),
    cancelTask: (serverId, taskId, options = {}) =>
      within(serverId, options.signal, (session, flow) => cancelModernTask(session, taskId, flow)),
  };
}

function unexpectedTask(serverId: string, method: string): never {
  throw new ClientError(
    "protocol",
    `Server "${serverId}" answered ${method} with a task, which only tools/call may do`,
    {
      serverId,
    },
  );
}
