/**
 * One round of a multi round-trip request: every entry of `inputRequests` runs through the server's chain and
 * handler, concurrently, in the calling async flow. The first failure aborts the siblings' signals and fails
 * the call; nothing is sent for a failed round. Kinds the client did not declare are refused before any
 * callback runs. The front runs its own rounds with {@linkcode runRound}.
 *
 * @module
 */
import type { InputRequest, InputRequests } from "../../protocol/input-request.ts";
import type { InputResponse, InputResponses } from "../../protocol/input-responses.ts";
import type { ModernSession } from "./modern-session.ts";
import type { CompiledPolicy } from "../../policy/compile-policy.ts";
import { ClientError } from "../../errors.ts";
import { quote } from "../../_internal/quote.ts";
import { inputKindOf } from "../../checks/capability.ts";
import { abortError, inputError } from "./failure-errors.ts";
import { linkSignals } from "../../_internal/signals.ts";
import { answerDeferral, type CallContext } from "../server-session.ts";
import type { ChainResult } from "../../chain/chain.ts";

/** The server a round is answered for: its id, chain, version and `maxInputRequests`. */
export type RoundServer = Pick<ModernSession, "serverId" | "chain" | "version" | "maxInputRequests">;

/**
 * What a round takes from its call: its assigns and caller, its signal (aborting it aborts every
 * handler of the round) and who answers an entry the handler deferred (without one a deferral fails).
 */
export interface RoundContext extends Pick<CallContext, "assigns" | "principal" | "signal" | "onDeferred"> {
  /** The call's own method (`"tools/call"`), named when the call gives up during the round. */
  readonly method: string;
}

/**
 * Answers every entry of one round.
 *
 * @param requests The round's `inputRequests` (a prototype-free map).
 * @param server The server's session.
 * @param context The call's assigns, caller, signal, method and answerer of deferrals.
 * @returns The answers under the same keys (a prototype-free map).
 * @throws {ClientError} `"protocol"` for more than `maxInputRequests` entries or an undeclared
 *   kind (before any callback), else the first entry's failure (`"policy"`, `"input_handler"`,
 *   `"timeout"`, `"cancelled"`).
 */
export async function answerInputRequests(
  requests: InputRequests,
  server: RoundServer,
  context: RoundContext,
): Promise<InputResponses> {
  const { serverId, chain, version } = server;
  const keys = Object.keys(requests);
  const tooMany = tooManyInputRequests(keys.length, {
    server: serverId,
    maxInputRequests: server.maxInputRequests,
  });
  if (tooMany !== undefined) throw new ClientError("protocol", tooMany, { serverId });
  const { assigns, principal } = context;
  for (const key of keys) {
    const request = requests[key] as InputRequest;
    const admitted = chain.admit(request.method);
    if (!admitted.ok) {
      // Run through the chain anyway: it refuses the entry at its first step, so its listeners hear of the
      // refusal.
      await chain.run(request, { version, assigns, principal, signal: context.signal });
      throw new ClientError(
        "protocol",
        `Server "${serverId}" sent input request ${quote(key, 64)} (${request.method}) for the ${
          inputKindOf(request.method)
        } capability, which this client did not declare`,
        { serverId, code: admitted.refusal.code },
      );
    }
  }
  // Each entry runs through the chain; a deferred one is then answered by onDeferred, if any.
  const round = await runRound(keys, context.signal, async (key, signal) => {
    const result = await chain.run(requests[key] as InputRequest, { version, assigns, principal, signal });
    return await answerDeferral(result, context.onDeferred, signal);
  }, () => true);
  if ("failure" in round) {
    // A call that gives up is told of its own call, not of the input request it was answering.
    throw context.signal.aborted
      ? abortError(serverId, context.method, context.signal.reason)
      : inputError(serverId, round.key, (requests[round.key] as InputRequest).method, round.failure);
  }
  const responses: Record<string, InputResponse> = Object.create(null);
  // No entry failed, so every result is an answer.
  for (const [index, key] of keys.entries()) {
    responses[key] = (round.results[index] as ChainResult & { ok: true }).answer;
  }
  return responses;
}

/**
 * The one rule of the policy's `maxInputRequests`, checked before any entry runs: for the client's rounds and
 * task statuses, a legacy server's `-32042` URL elicitations, and the front's rounds and task statuses. Each
 * caller gives the words its own error.
 *
 * @param count How many inputs the server asks at once.
 * @param policy The server's policy: its id and `maxInputRequests`.
 * @returns The refusal's message, or `undefined` within the limit.
 */
export function tooManyInputRequests(
  count: number,
  policy: Pick<CompiledPolicy, "server" | "maxInputRequests">,
): string | undefined {
  if (count <= policy.maxInputRequests) return undefined;
  return `Server "${policy.server}" sent ${count} input requests in one round, expected at most ${policy.maxInputRequests} (maxInputRequests)`;
}

/** How a round ended: every entry's result in the order of its keys, or the first failure. */
export type RoundResults =
  | { readonly results: readonly ChainResult[] }
  | { readonly key: string; readonly failure: ChainResult & { readonly ok: false } };

/**
 * Runs a round's entries at once. The first failure that `stops` the round aborts the others
 * (they end as cancelled) and is what the round ended with.
 *
 * @param keys The entries' keys.
 * @param signal The call's signal.
 * @param run Runs one entry under the round's signal; never rejects.
 * @param stops Whether a failure stops the round (else it is a result like an answer).
 * @returns The results in the order of `keys`, or the first failure and its key.
 */
export async function runRound(
  keys: readonly string[],
  signal: AbortSignal,
  run: (key: string, signal: AbortSignal) => Promise<ChainResult>,
  stops: (failure: ChainResult & { readonly ok: false }) => boolean,
): Promise<RoundResults> {
  // Siblings share a signal of their own, so the first failure can stop the others; a lone entry runs under
  // the call's signal.
  const round = keys.length > 1 ? linkSignals([signal]) : undefined;
  let first: RoundResults | undefined;
  try {
    const results = await Promise.all(keys.map(async (key) => {
      const result = await run(key, round?.signal ?? signal);
      if (!result.ok && first === undefined && stops(result)) {
        first = { key, failure: result };
        round?.abort(new Error(`input request ${key} failed`));
      }
      return result;
    }));
    return first ?? { results };
  } finally {
    round?.dispose();
  }
}
