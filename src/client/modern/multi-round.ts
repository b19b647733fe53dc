/**
 * The multi round-trip loop (SEP-2322) for `tools/call`, `resources/read` and `prompts/get`, shared by the
 * client and the front: while the server answers `input_required`, have the round's input requests answered
 * and retry with a new id, the original params, this round's `inputResponses` under the same keys, and
 * `requestState` echoed byte for byte (absent when the server sent none). A result without `resultType` is
 * complete. Rounds that carry only `requestState` back off from 50 ms to 250 ms.
 *
 * The client answers every entry through the chain ({@linkcode answerInputRequests}); the front may instead
 * stop the loop, hand the entries to its caller (`{ stop }`) and later resume from a sealed state (`resume`).
 *
 * @module
 */
import { ClientError } from "../../errors.ts";
import type { Timers } from "../../_internal/timers.ts";
import type { CompleteResultOf, MrtrMethod } from "../../protocol/input-required.ts";
import { decodeModernResult } from "../../protocol/input-required.ts";
import type { InputRequests } from "../../protocol/input-request.ts";
import { buildRetryParams, type InputResponses } from "../../protocol/input-responses.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { CreateTaskResult } from "../../protocol/tasks.ts";
import { pause } from "../../_internal/signals.ts";
import { abortError, invalidResult } from "./failure-errors.ts";

/** What one round's answerer decides: the answers to send, or to stop the loop with a value. */
export type RoundDecision<S> =
  | { readonly responses: InputResponses }
  | { readonly stop: S };

/** Options of {@linkcode runRounds}. */
export interface RoundsOptions<S> {
  /** The server's id, for errors. */
  readonly serverId: string;
  /** Sends one leg with these params (a fresh id each time) and returns its result object. */
  readonly send: (params: JsonObject) => Promise<JsonObject>;
  /** Answers one round's input requests, or stops the loop. */
  readonly answer: (
    requests: InputRequests,
    requestState: string | undefined,
  ) => Promise<RoundDecision<S>>;
  /** The flow's signal (the caller's, linked with `maxTotalTimeout`). */
  readonly signal: AbortSignal;
  /** The policy's `maxRounds`: the most rounds answered. */
  readonly maxRounds: number;
  /** Rounds of the call answered before these (the front's retry of a call in progress). @default 0 */
  readonly roundsBefore?: number | undefined;
  /** Whether a task result is acceptable (the tasks extension was declared). */
  readonly tasks: boolean;
  /** Timers for the state-only backoff. */
  readonly timers: Timers;
  /** Answers and state from an earlier round, sent with the first leg (the front's retry). */
  readonly resume?: {
    readonly responses: InputResponses | undefined;
    readonly requestState: string | undefined;
  };
}

/** How the loop ended. */
export type RoundsOutcome<M extends MrtrMethod, S> =
  | {
    readonly kind: "complete";
    readonly result: CompleteResultOf[M];
    readonly raw: JsonObject;
    /** How many requests the call took (1 without input; a resumed call counts from its resumption). */
    readonly rounds: number;
  }
  | {
    readonly kind: "task";
    readonly task: CreateTaskResult;
    readonly raw: JsonObject;
    readonly rounds: number;
  }
  | { readonly kind: "stopped"; readonly value: S };

/**
 * Runs one request through every round the server asks for.
 *
 * @param method `tools/call`, `resources/read` or `prompts/get`.
 * @param params The original params (copied; never mutated).
 * @param options How to send a leg and answer a round, the signal, round limit, tasks, timers.
 * @returns The complete result (decoded, and as sent), the task the server created, or the
 *   value a round stopped with.
 * @throws {ClientError} `"rounds_exceeded"` (with the last result as `data`), `"protocol"` for an
 *   invalid result, `"cancelled"` when the signal fires during a backoff, and whatever a leg or
 *   an answerer throws.
 */
export async function runRounds<M extends MrtrMethod, S>(
  method: M,
  params: JsonObject,
  options: RoundsOptions<S>,
): Promise<RoundsOutcome<M, S>> {
  const { serverId } = options;
  const original: JsonObject = { ...params };
  let retry = options.resume === undefined
    ? original
    : buildRetryParams(original, options.resume.responses, options.resume.requestState);
  let delay = 25;
  for (let round = 1;; round++) {
    const raw = await options.send(retry);
    const decoded = decodeModernResult(method, raw, { tasks: options.tasks });
    if (!decoded.ok) throw invalidResult(serverId, method, decoded.message);
    const outcome = decoded.value;
    if (outcome.resultType === "complete") {
      return { kind: "complete", result: outcome.result as CompleteResultOf[M], raw, rounds: round };
    }
    if (outcome.resultType === "task") return { kind: "task", task: outcome.result, raw, rounds: round };
    // `maxRounds` counts the rounds answered (as the official SDK's `inputRequired.maxRounds` does).
    if (round + (options.roundsBefore ?? 0) > options.maxRounds) {
      throw new ClientError("rounds_exceeded", roundsExceeded(serverId, method, options.maxRounds), {
        serverId,
        data: raw,
      });
    }
    const { inputRequests, requestState } = outcome.result;
    let responses: InputResponses | undefined;
    if (inputRequests !== undefined && Object.keys(inputRequests).length > 0) {
      const decision = await options.answer(inputRequests, requestState);
      if ("stop" in decision) return { kind: "stopped", value: decision.stop };
      responses = decision.responses;
    } else {
      delay = Math.min(250, delay * 2);
      if (!await pause(delay, options.timers, options.signal)) {
        throw abortError(serverId, method, options.signal.reason);
      }
    }
    retry = buildRetryParams(original, responses, requestState);
  }
}

/**
 * What a call is failed with when its server still asks for input after the policy's `maxRounds`
 * rounds were answered.
 *
 * @param serverId The server's id.
 * @param method The call's method.
 * @param maxRounds The policy's `maxRounds`.
 * @returns The message.
 */
export function roundsExceeded(serverId: string, method: string, maxRounds: number): string {
  return `Server "${serverId}" still asked for input after ${maxRounds} rounds of ${method} (maxRounds ${maxRounds})`;
}
