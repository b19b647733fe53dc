/**
 * The operator's event of one call through the front, from a caller of either era: how it ended
 * for its caller, and the upstream's real cause when it failed (the caller is told only its
 * class).
 *
 * @module
 */
import type { CallDecision, DecisionSink } from "../chain/decision.ts";
import type { Clock } from "../_internal/clock.ts";
import { failureOf } from "../client/client-methods.ts";
import type { DownstreamRequest } from "./downstream-request.ts";
import type { FrontCallOutcome } from "./front-call.ts";
import { withoutQuotedUrlSecrets, withoutUrlSecrets } from "../_internal/url-query.ts";

/** What the event of one call is made of. */
export interface CallFacts {
  readonly client: string;
  readonly server: string;
  /** The caller's request (a legacy caller's too: its message, params and principal). */
  readonly request: Pick<DownstreamRequest, "message" | "params" | "principal">;
  readonly outcome: FrontCallOutcome;
  /** The upstream failure behind an error outcome, if the call reached one. */
  readonly failure: unknown;
  /** How many requests upstream the call took, when it ended there. */
  readonly rounds?: number | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
}

/**
 * The decision event of one call through the front.
 *
 * @param facts Who, what, how it ended and when.
 * @returns The event.
 */
export function callDecision(facts: CallFacts): CallDecision {
  const { request, outcome, failure, rounds } = facts;
  const params = request.params as { name?: unknown; uri?: unknown; taskId?: unknown };
  // A task's request (a 2025 host's tasks/result, tasks/get) is named by its task's id.
  const name = typeof params.name === "string"
    ? params.name
    : typeof params.uri === "string"
    ? withoutUrlSecrets(params.uri)
    : typeof params.taskId === "string"
    ? params.taskId
    : undefined;
  const result = outcome.kind === "result"
    ? outcome.result as { resultType?: unknown; isError?: unknown; task?: unknown; taskId?: unknown }
    : undefined;
  const task = taskOf(result);
  return {
    type: "call",
    time: new Date(facts.endedAt).toISOString(),
    client: facts.client,
    server: facts.server,
    ...(request.principal?.subject === undefined ? {} : { caller: request.principal.subject }),
    method: request.message.method,
    ...(name === undefined ? {} : { name }),
    outcome: outcomeOf(result),
    ...(task === undefined ? {} : { task }),
    ...(outcome.kind === "error"
      ? {
        error: failure === undefined
          ? {
            kind: "gateway",
            code: outcome.error.code,
            message: withoutQuotedUrlSecrets(outcome.error.message),
          }
          : failureOf(failure),
      }
      : {}),
    ...(rounds === undefined ? {} : { rounds }),
    durationMs: facts.endedAt - facts.startedAt,
  };
}

/** The id of the task a call became, as its caller holds it (2026-07-28: at the top; 2025-11-25: `task`). */
function taskOf(
  result: { resultType?: unknown; task?: unknown; taskId?: unknown } | undefined,
): string | undefined {
  if (result === undefined) return undefined;
  const id = result.resultType === "task"
    ? result.taskId
    : (result.task as { taskId?: unknown } | null)?.taskId;
  return typeof id === "string" ? id : undefined;
}

/** How a call ended for its caller, by its result (none: it failed). */
function outcomeOf(
  result: { resultType?: unknown; isError?: unknown; task?: unknown } | undefined,
): CallDecision["outcome"] {
  if (result === undefined) return "failed";
  if (result.resultType === "input_required") return "input_required";
  // A 2026-07-28 task handle, or a 2025-11-25 CreateTaskResult: the caller holds the task.
  if (result.resultType === "task" || (typeof result.task === "object" && result.task !== null)) {
    return "task";
  }
  return result.isError === true ? "tool_error" : "completed";
}

/** Where a call's event goes: the client's name and clock, and its decision listeners, if any. */
export interface CallReporter {
  readonly clientInfo: { readonly name: string };
  readonly clock: Clock;
  readonly decisions?: DecisionSink | undefined;
}

/**
 * Tells the operator's decision listeners, if any, how a call ended.
 *
 * @param internals The client's name, clock and decision sink (the client's internals fit).
 * @param facts The call's facts but the client and the end, which this adds.
 */
export function reportCall(internals: CallReporter, facts: Omit<CallFacts, "client" | "endedAt">): void {
  if (internals.decisions?.listening !== true) return;
  internals.decisions.decide(callDecision({
    client: internals.clientInfo.name,
    ...facts,
    endedAt: internals.clock.now(),
  }));
}
