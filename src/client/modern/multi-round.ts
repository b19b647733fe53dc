/**
 * The multi round-trip loop (SEP-2322) for `tools/call`, `resources/read` and `prompts/get`:
 * while the server answers `input_required`, answer its input requests through the chain and
 * retry with a new id, the original params (never the caller's object), this round's
 * `inputResponses` under the same keys, and `requestState` echoed byte for byte (absent when the
 * server sent none). A result without `resultType` is complete.
 *
 * @module
 */
import { ClientError } from "../../errors.ts";
import type { Timers } from "../../chain/timers.ts";
import type { CompleteResultOf, MrtrMethod } from "../../protocol/input-required.ts";
import { decodeModernResult } from "../../protocol/input-required.ts";
import type { InputResponses } from "../../protocol/input-responses.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { buildRetryParams } from "../../protocol/requests.ts";
import type { CreateTaskResult } from "../../protocol/tasks.ts";
import { pause } from "../_signals.ts";
import { abortError } from "./failure-errors.ts";
import { answerInputRequests } from "./input-round.ts";
import type { ModernSession } from "./modern-session.ts";

/** Options of {@linkcode runMultiRound}. */
export interface MultiRoundOptions {
  /** The flow's signal (the caller's, linked with `maxTotalTimeout`). */
  readonly signal: AbortSignal;
  /** The call's assigns, handed to the handlers. */
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The policy's `maxRounds`. */
  readonly maxRounds: number;
  /** Whether the tasks extension is declared. */
  readonly tasks: boolean;
  /** Timers for the state-only backoff. */
  readonly timers: Timers;
  /** Progress of each leg. */
  readonly onProgress?: ((params: JsonObject) => void) | undefined;
}

/** How a multi round-trip request ended. */
export type MultiRoundOutcome<M extends MrtrMethod> =
  | { readonly kind: "complete"; readonly result: CompleteResultOf[M] }
  | { readonly kind: "task"; readonly task: CreateTaskResult };

/** Backoff of rounds that carry only `requestState`: 50 ms doubling to 250 ms. */
function stateOnlyDelay(previous: number): number {
  return Math.min(250, previous * 2);
}

/**
 * Runs one request to completion through every round the server asks for.
 *
 * @param session The server's session.
 * @param method `tools/call`, `resources/read` or `prompts/get`.
 * @param params The original params (copied; never mutated).
 * @param options Signal, assigns, round limit, tasks, timers and progress.
 * @returns The complete result, or the task the server created.
 * @throws {ClientError} `"rounds_exceeded"` (with the last result as `data`), `"protocol"`, and
 *   whatever the request or an input request fails with.
 */
export async function runMultiRound<M extends MrtrMethod>(
  session: ModernSession,
  method: M,
  params: JsonObject,
  options: MultiRoundOptions,
): Promise<MultiRoundOutcome<M>> {
  const original: JsonObject = { ...params };
  let retry = original;
  let delay = 25;
  for (let round = 1;; round++) {
    const raw = await session.request(method, retry, {
      signal: options.signal,
      onProgress: options.onProgress,
    });
    const decoded = decodeModernResult(method, raw, { tasks: options.tasks });
    if (!decoded.ok) {
      throw new ClientError(
        "protocol",
        `Server "${session.serverId}" sent an invalid ${method} result: ${decoded.message}`,
        {
          serverId: session.serverId,
        },
      );
    }
    const outcome = decoded.value;
    if (outcome.resultType === "complete") {
      return { kind: "complete", result: outcome.result as CompleteResultOf[M] };
    }
    if (outcome.resultType === "task") return { kind: "task", task: outcome.result };
    if (round >= options.maxRounds) {
      throw new ClientError(
        "rounds_exceeded",
        `Server "${session.serverId}" still asked for input after ${round} rounds of ${method} (maxRounds ${options.maxRounds})`,
        { serverId: session.serverId, data: raw },
      );
    }
    const { inputRequests, requestState } = outcome.result;
    let responses: InputResponses | undefined;
    if (inputRequests !== undefined && Object.keys(inputRequests).length > 0) {
      responses = await answerInputRequests(inputRequests, {
        serverId: session.serverId,
        chain: session.chain,
        version: session.version,
        assigns: options.assigns,
        signal: options.signal,
        maxInputRequests: session.maxInputRequests,
      });
    } else {
      delay = stateOnlyDelay(delay);
      if (!await pause(delay, options.timers, options.signal)) {
        throw abortError(session.serverId, method, options.signal.reason);
      }
    }
    retry = buildRetryParams(original, responses, requestState);
  }
}
