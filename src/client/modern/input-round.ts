/**
 * One round of a multi round-trip request: every entry of `inputRequests` runs through the
 * server's chain and handler, concurrently, in the calling async flow. The first failure aborts
 * the siblings' signals and fails the call; nothing is sent for a failed round. Kinds the client
 * did not declare are refused before any callback runs.
 *
 * @module
 */
import type { Principal } from "../../handler/handler.ts";
import type { Chain } from "../../chain/chain.ts";
import type { InputRequest, InputRequests } from "../../protocol/input-request.ts";
import type { InputResponse, InputResponses } from "../../protocol/input-responses.ts";
import type { ModernProtocolVersion } from "../../protocol/versions.ts";
import { ClientError } from "../../errors.ts";
import { quote } from "../../_internal/quote.ts";
import { inputKindOf } from "../../checks/capability.ts";
import { abortError, inputError } from "./failure-errors.ts";
import { linkSignals } from "../../_internal/signals.ts";
import type { DeferredAnswerer } from "../server-session.ts";
import type { ChainResult } from "../../chain/chain.ts";

/** What a round needs. */
export interface RoundContext {
  readonly serverId: string;
  readonly chain: Chain;
  readonly version: ModernProtocolVersion;
  readonly assigns: Readonly<Record<string, unknown>>;
  /** The front's caller (`ctx.principal`). @default none */
  readonly principal?: Principal | undefined;
  /** The call's signal: aborting it aborts every handler of the round. */
  readonly signal: AbortSignal;
  /** The most entries one round may hold (the policy's `maxInputRequests`). */
  readonly maxInputRequests: number;
  /** Answers an entry the handler deferred (the front asks its caller); without it a deferral fails. */
  readonly onDeferred?: DeferredAnswerer | undefined;
}

/**
 * Answers every entry of one round.
 *
 * @param requests The round's `inputRequests` (a prototype-free map).
 * @param context Server, chain, version, assigns and the call's signal.
 * @returns The answers under the same keys (a prototype-free map).
 * @throws {ClientError} `"protocol"` for more than `maxInputRequests` entries or an undeclared
 *   kind (before any callback), else the first entry's failure (`"policy"`, `"input_handler"`,
 *   `"timeout"`, `"cancelled"`).
 */
export async function answerInputRequests(
  requests: InputRequests,
  context: RoundContext,
): Promise<InputResponses> {
  const keys = Object.keys(requests);
  if (keys.length > context.maxInputRequests) {
    throw new ClientError(
      "protocol",
      `Server "${context.serverId}" sent ${keys.length} input requests in one round, expected at most ${context.maxInputRequests} (maxInputRequests)`,
      { serverId: context.serverId },
    );
  }
  for (const key of keys) {
    const request = requests[key] as InputRequest;
    const admitted = context.chain.admit(request.method);
    if (!admitted.ok) {
      throw new ClientError(
        "protocol",
        `Server "${context.serverId}" sent input request ${quote(key, 64)} (${request.method}) for the ${
          inputKindOf(request.method)
        } capability, which this client did not declare`,
        { serverId: context.serverId, code: admitted.refusal.code },
      );
    }
  }
  // Siblings share a signal of their own, so the first failure can stop the others; a lone
  // request runs under the call's signal (one AbortSignal fewer per round).
  const round = keys.length > 1 ? linkSignals([context.signal]) : undefined;
  const signal = round?.signal ?? context.signal;
  try {
    const answers = await new Promise<InputResponse[]>((resolve, reject) => {
      const results: InputResponse[] = new Array(keys.length);
      let pending = keys.length;
      let settled = false;
      if (pending === 0) resolve(results);
      keys.forEach((key, index) => {
        const request = requests[key] as InputRequest;
        runEntry(request, context, signal).then(
          (result) => {
            if (settled) return;
            if (!result.ok) {
              // The first failure wins: the siblings' signals abort, and their own ends are ignored.
              settled = true;
              round?.abort(new Error(`input request ${key} failed`));
              reject(
                context.signal.aborted
                  ? abortError(context.serverId, request.method, context.signal.reason)
                  : inputError(context.serverId, key, request.method, result),
              );
              return;
            }
            results[index] = result.answer;
            if (--pending === 0) {
              settled = true;
              resolve(results);
            }
          },
        );
      });
    });
    const responses: Record<string, InputResponse> = Object.create(null);
    keys.forEach((key, index) => (responses[key] = answers[index] as InputResponse));
    return responses;
  } finally {
    round?.dispose();
  }
}

/** One entry through the chain; a deferred one is then answered by `onDeferred` when there is one. */
async function runEntry(
  request: InputRequest,
  context: RoundContext,
  signal: AbortSignal,
): Promise<ChainResult> {
  const result = await context.chain.run(request, {
    version: context.version,
    assigns: context.assigns,
    principal: context.principal,
    signal,
  });
  if (result.ok || result.stage !== "deferred" || result.request === undefined) return result;
  if (context.onDeferred === undefined) return result;
  return await context.onDeferred(result.request, signal).catch((cause): ChainResult => ({
    ok: false,
    stage: "handler",
    refusal: { code: -32603, message: "Internal error while answering the request" },
    cause,
  }));
}
