/**
 * One downstream `tools/call`, `resources/read` or `prompts/get` through the front to a modern
 * upstream. Input the upstream asks for is answered by the front's chain where its handlers can;
 * entries they defer (or kinds the policy passes down) go back to the caller as `input_required`, with
 * a sealed `requestState` holding the upstream's state, the answers given and the entries passed down.
 * On the caller's retry the seal is verified, its answers are post-checked like a handler's, and the
 * call goes on upstream. Nothing is kept in memory between rounds.
 *
 * @module
 */
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import type { ChainResult, JudgedAnswer } from "../chain/chain.ts";
import type { Refusal } from "../checks/verdict.ts";
import type { Clock } from "../_internal/clock.ts";
import type { Timers } from "../_internal/timers.ts";
import { type RoundsOutcome, runRounds } from "../client/modern/multi-round.ts";
import { runRound, tooManyInputRequests } from "../client/modern/input-round.ts";
import { abortError } from "../client/modern/failure-errors.ts";
import type { ModernSession } from "../client/modern/modern-session.ts";
import { paramHeaderMismatch, type ToolHeader } from "../client/modern/tool-headers.ts";
import type { MrtrMethod } from "../protocol/input-required.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { InputChange } from "../handler/handler.ts";
import { changesOf } from "../chain/decision.ts";
import type { InputResponse, InputResponses } from "../protocol/input-responses.ts";
import type { JsonObject, JsonRpcErrorObject, JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { copyOwn } from "../_internal/copy.ts";
import type { LoggingLevel } from "../protocol/logging-level.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { describeKind, quote } from "../_internal/quote.ts";
import { isObject } from "../_internal/is-object.ts";
import { DeadlineReached, type LinkedSignal, openLeg } from "../_internal/signals.ts";
import {
  callerFailure,
  notRun,
  signInElicitation,
  signInFirst,
  type StartedSignIn,
  startedSignIn,
  upstreamFailure,
} from "./upstream-failure.ts";
import { resultForCaller } from "./caller-era.ts";
import type { DownstreamRequest } from "./downstream-request.ts";
import type { FrontServer } from "./front-server.ts";
import { digestRequest, newNonce, openState, sealState, type StateKey } from "./sealed-state.ts";
import { principalKey } from "./principal.ts";
import { bindTaskId, withCallerTaskId } from "./_task-ids.ts";
import { neededBy, withinCallerContext } from "./_caller-needs.ts";

/** What one call through the front needs. */
export interface FrontCallInput {
  readonly server: FrontServer;
  readonly session: ModernSession;
  readonly request: DownstreamRequest;
  readonly stateKey: StateKey;
  /**
   * Spends a state's nonce for the rest of its life: `false` when it was spent already; rejects
   * when the store cannot answer. Absent, a state may be redeemed until it expires.
   */
  readonly spend?: ((nonce: string, ttlMs: number) => Promise<boolean>) | undefined;
  /**
   * Gives a spent nonce back: a resumed call that the upstream did not run ({@linkcode notRun})
   * leaves its state to the caller's same retry. Absent, that retry is refused as a replay.
   */
  readonly giveBack?: ((nonce: string) => Promise<void>) | undefined;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly signal: AbortSignal;
  /** Upstream notifications of this call (progress, logs), to stream downstream. */
  readonly onNotification?: ((notification: JsonRpcNotification) => void) | undefined;
  /** With `onNotification`: the log level the caller asked for, or `undefined` for none. */
  readonly logLevel?: LoggingLevel | undefined;
  /** The caller's sign-in, when the server signs in per person. */
  readonly fetch?: Fetcher | undefined;
  /** Hears the upstream failure behind an error outcome (the operator's event names it). */
  readonly onFailure?: ((failure: unknown) => void) | undefined;
  /** Hears how many requests upstream a call that ended there took (the operator's event). */
  readonly onRounds?: ((rounds: number) => void) | undefined;
  /** The client's `assigns`, for the handlers of the input the call causes. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>> | undefined;
}

/** The answer for the caller: a result object, or a JSON-RPC error with its HTTP status. */
export type FrontCallOutcome =
  | { readonly kind: "result"; readonly result: JsonObject }
  | { readonly kind: "error"; readonly status: number; readonly error: JsonRpcErrorObject };

/** The codes whose HTTP status 2026-07-28 sets (the rest are errors of the call: 200). */
const ERROR_STATUS: ReadonlyMap<number, number> = new Map([
  [-32020, 400], // HeaderMismatch
  [-32021, 400], // MissingRequiredClientCapability: "On HTTP, the response status MUST be 400"
  [-32022, 400], // UnsupportedProtocolVersion
  [-32601, 404], // Method not found: the server does not implement the method
]);

/** The one answer to a state that does not open (which check failed is not told). */
export const INVALID_STATE: FrontCallOutcome = callError(-32602, "Invalid or expired requestState");

/** A retry whose state could not be spent: the store did not answer, and the answers wait. */
const STORE_UNAVAILABLE: FrontCallOutcome = callError(
  -32603,
  "The gateway's state store is unavailable, so these answers were not taken: send the same request again later",
);

/**
 * Runs one call through the front.
 *
 * @param input Server, upstream session, the caller's request, the state key, clock and signal.
 * @returns The result or error for the caller; never rejects for anything upstream does.
 */
export async function frontCall(input: FrontCallInput): Promise<FrontCallOutcome> {
  const { server, request } = input;
  const method = request.message.method as MrtrMethod;
  const { _meta: _ignored, inputResponses: callerAnswers, requestState: callerState, ...original } =
    request.params;
  const answered = callerAnswersOf(callerAnswers);
  if (answered === undefined) return malformedAnswers(callerAnswers);
  if (method === "tools/call" && typeof original.name === "string") {
    // Before a retry's state is opened and its nonce spent: a caller told -32020 lists the tools
    // and retries the same request. Known rules are taken without a promise step.
    const rules = input.session.tools.knownRules(original.name) ?? await listedRules(input, original.name);
    if ("kind" in rules) return rules;
    const refused = paramHeaderRefusal(input, original, rules);
    if (refused !== undefined) return refused;
  }
  // Only a round that opens or seals a state needs the digest (most calls need neither).
  let digest: Promise<string> | undefined;
  const digestOnce = () => (digest ??= digestRequest(method, original));
  let resume: Resume | undefined;
  let spent: string | undefined;
  // A call's rounds, over every retry of its caller, are held to maxRounds and maxTotalTimeout.
  let progress: CallProgress = { rounds: 0, startedAt: input.clock.now() };
  let deadline: LinkedSignal | undefined;
  if (callerState !== undefined) {
    const retry = await openCallerRetry(input, callerState, answered, await digestOnce());
    if ("kind" in retry) return retry;
    ({ resume, progress, spent } = retry);
    // This request's flow ends with the whole call's time, not its own.
    const left = progress.startedAt + server.policy.maxTotalTimeoutMs - input.clock.now();
    deadline = openLeg(input.signal, {
      ms: left,
      which: "total",
      timers: input.timers,
      limitMs: server.policy.maxTotalTimeoutMs,
    });
  }
  try {
    const call = deadline === undefined ? input : { ...input, signal: deadline.signal };
    return await runCall(call, method, original, { resume, spent, progress, digestOnce });
  } finally {
    deadline?.dispose();
  }
}

/** Where a call stands when a request of its caller comes: rounds answered, and when it began. */
interface CallProgress {
  readonly rounds: number;
  readonly startedAt: number;
}

/** The upstream rounds of one request of the caller, from where the call stands. */
async function runCall(
  input: FrontCallInput,
  method: MrtrMethod,
  original: JsonObject,
  at: {
    readonly resume: Resume | undefined;
    /** The nonce of the state this retry spent, if it did. */
    readonly spent: string | undefined;
    readonly progress: CallProgress;
    readonly digestOnce: () => Promise<string>;
  },
): Promise<FrontCallOutcome> {
  const { server, request } = input;
  const { resume, progress, digestOnce } = at;
  let rounds = progress.rounds;
  // Requests sent upstream, the session's own re-sends after a broken stream among them.
  let sent = 0;
  // The caller's progress token goes upstream, so the upstream's progress reaches the caller.
  const progressToken = (request.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const capabilities = server.capabilitiesFor(request.capabilities);
  // A caller that declared the tasks extension may get the task the server creates.
  const tasks = method === "tools/call" && capabilities.extensions !== undefined;
  let outcome;
  try {
    outcome = await runRounds<MrtrMethod, PassDown | FrontCallOutcome>(method, original, {
      serverId: server.policy.server,
      send: (params) => {
        sent++;
        return input.session.request(method, withProgressToken(params, progressToken), {
          signal: input.signal,
          capabilities,
          onNotification: input.onNotification,
          logLevel: input.logLevel,
          fetch: input.fetch,
          onResent: () => void sent++,
          // The upstream's rules changed: the caller's headers are checked again by the new ones.
          retriesHeaders: () =>
            typeof original.name !== "string" ||
            paramHeaderRefusal(input, original, input.session.tools.knownRules(original.name) ?? []) ===
              undefined,
        });
      },
      answer: async (requests, requestState) => {
        rounds++;
        const round = await answerRound(input, requests);
        if ("error" in round) {
          endDeferred(input, round);
          return { stop: round.error };
        }
        if (Object.keys(round.pending).length === 0) return { responses: round.answers };
        // `requestState` before the spread (round has none): V8 builds an object slowly when keys
        // follow a spread that opens it.
        return { stop: { requestState, ...round } };
      },
      signal: input.signal,
      maxRounds: server.policy.maxRounds,
      roundsBefore: progress.rounds,
      tasks,
      timers: input.timers,
      ...(resume === undefined ? {} : { resume }),
    });
  } catch (failure) {
    // The resumed request, sent once, did not run upstream: its state is given back so the
    // caller's same retry goes through once the server is back. A failed give-back leaves it spent.
    if (at.spent !== undefined && sent === 1 && notRun(failure)) {
      await input.giveBack?.(at.spent).catch(() => {});
    }
    return await failed(input, failure, resume);
  }
  // The requests the whole call took, when it ended upstream: one per round its caller's earlier
  // requests answered or passed down (progress), and this request's.
  if (outcome.kind !== "stopped") input.onRounds?.(progress.rounds + outcome.rounds);
  // A modern server may leave out what its era requires (ttlMs, cacheScope): the caller gets them.
  // The common end, answered here: no promise step of callerOutcome on most calls.
  if (outcome.kind === "complete") {
    return { kind: "result", result: resultForCaller(outcome.raw, method, "modern") };
  }
  return await callerOutcome(input, outcome, digestOnce, { rounds, startedAt: progress.startedAt });
}

/** A call that failed upstream, for the caller: a sign-in to ask for, or the failure's error. */
async function failed(input: FrontCallInput, failure: unknown, resume?: Resume): Promise<FrontCallOutcome> {
  input.onFailure?.(failure);
  return await signInAsked(failure, input, resume) ??
    errorOutcome(callerFailure(failure, input.server, input.request.capabilities));
}

/** A tool's `x-mcp-header` rules, listing the upstream's tools first; what the call is told when that fails. */
async function listedRules(
  input: FrontCallInput,
  name: string,
): Promise<readonly ToolHeader[] | FrontCallOutcome> {
  try {
    return await input.session.tools.rulesFor(name, input.signal, input.fetch);
  } catch (failure) {
    return await failed(input, failure);
  }
}

/**
 * The `-32020` refusal (HTTP 400) of a `tools/call` whose `Mcp-Param-*` headers disagree with its
 * arguments, by the tool's `x-mcp-header` rules as the upstream listed them (2026-07-28: a
 * server that processes the body must check them, and the front is the caller's server).
 */
function paramHeaderRefusal(
  input: FrontCallInput,
  params: JsonObject,
  rules: readonly ToolHeader[],
): FrontCallOutcome | undefined {
  const headers = input.request.headers;
  const problem = paramHeaderMismatch(rules, params.arguments, (name) => headers.get(name));
  return problem === undefined ? undefined : errorOutcome({ code: -32020, message: problem });
}

/**
 * How the rounds ended other than complete, for the caller: a task under an id bound to the
 * caller, or what only the caller can answer, passed down with a sealed state.
 */
async function callerOutcome(
  input: FrontCallInput,
  outcome: Exclude<RoundsOutcome<MrtrMethod, PassDown | FrontCallOutcome>, { kind: "complete" }>,
  digestOnce: () => Promise<string>,
  progress: CallProgress,
): Promise<FrontCallOutcome> {
  const { server, request } = input;
  if (outcome.kind === "task") {
    const upstreamId = outcome.raw.taskId;
    if (typeof upstreamId !== "string") return { kind: "result", result: outcome.raw };
    const callerId = await bindTaskId(upstreamId, {
      serverId: server.policy.server,
      principal: principalKey(request.principal),
      key: input.stateKey,
    });
    return { kind: "result", result: withCallerTaskId(outcome.raw, callerId) };
  }
  const stopped = outcome.value;
  if ("kind" in stopped) return stopped;
  const asked = await sealAndAsk(input, await digestOnce(), Object.assign({}, stopped, progress));
  // A state too large to seal fails the call: what it was to pass down ends unanswered.
  if (asked.kind === "error") {
    endDeferred(input, {
      error: asked,
      undeclared: undefined,
      deferred: Object.values(stopped.pending),
      ending: "cancelled",
    });
  }
  return asked;
}

/** Where a call resumes: the caller's checked answers and the upstream's state. */
interface Resume {
  readonly responses: InputResponses;
  readonly requestState: string | undefined;
}

/**
 * The caller's retry: its sealed state opened (for this server, caller and request), each answer
 * to one of its input requests post-checked like a handler's (the gateway's own sign-in question
 * needs only an action), and the state's nonce spent once the answers pass. As 2026-07-28 says a
 * server should, answers to requests the state did not ask are ignored, and the requests left
 * unanswered are asked again (`input_required`, with the answers given kept, under the state's
 * own expiry) rather than failed.
 *
 * @returns Where the call resumes (nothing when the state was sealed before the call reached
 *   the server: it starts afresh) and the nonce it spent, or the outcome for the caller: the
 *   requests asked again, or the refusal of the retry.
 */
async function openCallerRetry(
  input: FrontCallInput,
  callerState: unknown,
  answered: Readonly<Record<string, unknown>>,
  requestDigest: string,
): Promise<
  | { readonly resume?: Resume; readonly spent?: string | undefined; readonly progress: CallProgress }
  | FrontCallOutcome
> {
  const { server, request, clock } = input;
  const now = clock.now();
  const opened = await openState(callerState, input.stateKey, {
    now,
    serverId: server.policy.server,
    principal: principalKey(request.principal),
    requestDigest,
  });
  if (!opened.ok) return INVALID_STATE;
  const progress = { rounds: opened.state.rounds ?? 0, startedAt: opened.state.startedAt ?? now };
  // The whole call's time has run out while its caller answered: told as when it runs out upstream.
  const { maxTotalTimeoutMs } = server.policy;
  if (now >= progress.startedAt + maxTotalTimeoutMs) {
    const reason = new DeadlineReached("total", maxTotalTimeoutMs);
    return await failed(input, abortError(server.policy.server, request.message.method, reason));
  }
  const asked = Object.keys(opened.state.pending);
  const keys = asked.filter((key) => Object.hasOwn(answered, key));
  const answers: Record<string, unknown> = Object.assign(Object.create(null), opened.state.answers);
  // The gateway's own sign-in question, when it asked it (an upstream's request may use its key).
  const ownSignIn = opened.state.signIn === true;
  let signedIn: unknown;
  // Their events wait for the state to be spent: a replay's answers were never taken.
  const passed: JudgedAnswer[] = [];
  for (const key of keys) {
    const given = answered[key];
    if (ownSignIn && key === SIGN_IN_KEY) {
      // An elicitation result, whatever the policy lets through; it never goes upstream.
      signedIn = (given as { action?: unknown } | null)?.action;
      if (signedIn !== "accept" && signedIn !== "decline" && signedIn !== "cancel") {
        return answerRefused(key, { message: 'expected { action: "accept" | "decline" | "cancel" }' });
      }
      continue;
    }
    const judged = server.chain.judgeAnswer(
      opened.state.pending[key] as InputRequest,
      given,
      MODERN_PROTOCOL_VERSION,
    );
    if (!judged.verdict.ok) {
      judged.report(request.principal, answerRefusal(key));
      return answerRefused(key, judged.verdict.refusal);
    }
    answers[key] = judged.verdict.value;
    passed.push(judged);
  }
  // Spent once, when its answers pass (a refused answer leaves the state for a corrected
  // retry): a state redeemed again, a replay, is refused as any state that does not open. A
  // store that cannot answer spends nothing, so the same retry may go through once it is back.
  if (input.spend !== undefined) {
    let spent: boolean;
    try {
      spent = await input.spend(opened.state.nonce, opened.state.expiresAt - now);
    } catch (error) {
      input.onFailure?.(error);
      return STORE_UNAVAILABLE;
    }
    if (!spent) return INVALID_STATE;
  }
  for (const judged of passed) judged.report(request.principal);
  if (keys.length < asked.length) {
    const missing = asked.filter((key) => !Object.hasOwn(answered, key));
    // Asked again within the first seal's lifetime: retries without answers must not renew it.
    return await sealAndAsk(input, requestDigest, {
      requestState: opened.state.upstreamState,
      answers: answers as InputResponses,
      pending: Object.fromEntries(missing.map((key) => [key, opened.state.pending[key] as InputRequest])),
      expiresAt: opened.state.expiresAt,
      signIn: opened.state.signIn,
      ...progress,
    });
  }
  if (signedIn !== undefined && signedIn !== "accept") {
    return callError(
      -32603,
      `The sign-in to ${quote(server.policy.server, 64)} was not made (${String(signedIn)})`,
    );
  }
  const spent = input.spend === undefined ? undefined : opened.state.nonce;
  return opened.state.upstreamState !== undefined || Object.keys(answers).length > 0
    ? {
      resume: { responses: answers as InputResponses, requestState: opened.state.upstreamState },
      spent,
      progress,
    }
    : { spent, progress };
}

/**
 * When the upstream needs the caller's person to sign in and the caller can show a URL: the
 * gateway's start page as a URL elicitation (`input_required`), its sealed state resuming the
 * call where it was (or afresh, when it never reached the server). Else `undefined`.
 *
 * @param failure What the call failed with.
 * @param input The call (server, caller's request, state key, clock).
 * @param resume Where the call was, when it had reached the server.
 * @returns The outcome for the caller, or `undefined`.
 */
export async function signInAsked(
  failure: unknown,
  input: Pick<FrontCallInput, "server" | "request" | "stateKey" | "clock">,
  resume?: Resume,
): Promise<FrontCallOutcome | undefined> {
  const signIn = startedSignIn(failure);
  const ask = signIn === undefined ? undefined : signInRequest(signIn);
  if (ask === undefined || !input.server.callerCan(input.request.capabilities, ask)) return undefined;
  // The digest leaves out what changes between rounds (_meta, inputResponses, requestState).
  return await sealAndAsk(input, await digestRequest(input.request.message.method, input.request.params), {
    requestState: resume?.requestState,
    answers: resume?.responses ?? {},
    pending: { [SIGN_IN_KEY]: ask },
    signIn: true,
  });
}

/** The key of the gateway's own sign-in question among a round's input requests. */
const SIGN_IN_KEY = "sluice/sign-in";

/** The URL elicitation that asks the caller's person to sign in at the gateway's page. */
function signInRequest(signIn: StartedSignIn): InputRequest {
  return asModern({ method: "elicitation/create", params: signInElicitation(signIn) } as InputRequest);
}

/**
 * A legacy server's request as a 2026-07-28 caller is asked it: without what only 2025-11-25 has
 * (a URL elicitation's `elicitationId`, whose completion is the caller's retry; a `task` param;
 * `_meta` such as the related task, an upstream id the caller cannot use), keeping sluice's own
 * `_meta["sluice/changes"]`. The gateway's own sign-in question is shaped so too.
 *
 * @param request The request, as the checks left it.
 * @returns It, in 2026-07-28's words.
 */
export function asModern(request: InputRequest): InputRequest {
  const { elicitationId: _id, task: _task, _meta, ...params } = request.params as typeof request.params & {
    readonly elicitationId?: unknown;
    readonly task?: unknown;
    readonly _meta?: Readonly<Record<string, unknown>>;
  };
  const changes = _meta?.[CHANGES_META];
  if (changes !== undefined) (params as Record<string, unknown>)._meta = { [CHANGES_META]: changes };
  return { ...request, params } as InputRequest;
}

/**
 * The `inputResponses` of a caller's retry: none, or an object keyed by the keys of the input
 * requests it answers. Anything else is malformed ({@linkcode malformedAnswers}).
 *
 * @param value The retry's `inputResponses`, as sent.
 * @returns The answers by key, or `undefined` when malformed.
 */
export function callerAnswersOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  if (value === undefined) return {};
  return isObject(value) ? value : undefined;
}

/**
 * The refusal of a retry whose `inputResponses` is malformed: `-32602`, as 2026-07-28 says.
 *
 * @param value The retry's `inputResponses`, as sent.
 * @returns The outcome for the caller.
 */
export function malformedAnswers(value: unknown): FrontCallOutcome {
  return callError(
    -32602,
    `Invalid params: inputResponses must be an object keyed by the inputRequests' keys, received ${
      describeKind(value)
    }`,
  );
}

/**
 * Seals what the retry needs and hands the pending requests to the caller (`input_required`).
 *
 * @param input The call (server, caller's request, state key, clock).
 * @param requestDigest The digest of the caller's request.
 * @param stopped The answers given, the requests passed down and the upstream's state; `expiresAt`
 *   (ms since the epoch), kept from the earlier state when asking again (default `stateTtl` from
 *   now); `signIn` when the pending request is the gateway's own sign-in question.
 * @returns The `input_required` result, or the error when the state is too large to seal.
 */
export async function sealAndAsk(
  input: Pick<FrontCallInput, "server" | "request" | "stateKey" | "clock">,
  requestDigest: string,
  stopped: PassDown & Partial<CallProgress> & {
    readonly expiresAt?: number | undefined;
    readonly signIn?: true | undefined;
  },
): Promise<FrontCallOutcome> {
  const { server, request } = input;
  let sealed: string;
  try {
    sealed = await sealState({
      serverId: server.policy.server,
      principal: principalKey(request.principal),
      nonce: newNonce(),
      requestDigest,
      ...(stopped.requestState === undefined ? {} : { upstreamState: stopped.requestState }),
      answers: stopped.answers,
      pending: stopped.pending,
      expiresAt: stopped.expiresAt ?? input.clock.now() + server.policy.stateTtlMs,
      ...(stopped.rounds === undefined ? {} : { rounds: stopped.rounds }),
      ...(stopped.startedAt === undefined ? {} : { startedAt: stopped.startedAt }),
      ...(stopped.signIn === true ? { signIn: true } : {}),
    }, input.stateKey);
  } catch {
    // The state would exceed the 1 MiB a token may hold (an upstream requestState too large).
    return callError(-32603, "The continuation state is too large to pass to the caller");
  }
  return {
    kind: "result",
    result: { resultType: "input_required", inputRequests: stopped.pending, requestState: sealed },
  };
}

/** A round whose deferred entries go down to the caller: what was answered, what is pending. */
export interface PassDown {
  readonly answers: InputResponses;
  readonly pending: Record<string, InputRequest>;
  readonly requestState: string | undefined;
}

/** How the front's round ended: the answers and what goes down to the caller, or the caller's error. */
export type FrontRound =
  | { readonly answers: InputResponses; readonly pending: Record<string, InputRequest> }
  | {
    readonly error: FrontCallOutcome;
    /**
     * The entry whose needs the caller did not declare (`-32021`): it may declare them, and ask
     * again. `undefined` for any other failure.
     */
    readonly undeclared: InputRequest | undefined;
    /** The entries deferred before the round failed: their first decision event said so. */
    readonly deferred: readonly InputRequest[];
    /** How they end if the round's failure ends them ({@linkcode endDeferred}). */
    readonly ending: "timeout" | "cancelled";
  };

/**
 * Runs one round's entries through the front's chain, for a call's round and a task's status
 * alike. A round of more than `maxInputRequests` entries ({@linkcode tooManyInputRequests}), or
 * with an entry of a kind the gateway did not declare upstream, fails before any entry runs (as
 * a client's round does); the entries run concurrently ({@linkcode runRound}), and the
 * first failure aborts the others. The call's own end while an entry runs is told as when the
 * call waits upstream ({@linkcode upstreamFailure}): its `maxTotalTimeout` as `-32010`
 * `timed_out`, its caller leaving as `-32603` cancelled. A passed-down entry carries what the
 * policy changed in it, and an `includeContext` made `"none"` for a caller that did not declare
 * `sampling.context` ({@linkcode withinCallerContext}), under `_meta["sluice/changes"]`.
 *
 * @param input The server, the caller's request (its principal and capabilities), the signal, and
 *   `onFailure`, told the timeout or cancellation that ends the round.
 * @param requests The entries to run.
 * @returns The answers and the passed-down entries, or the error for the caller.
 */
export async function answerRound(
  input: Pick<FrontCallInput, "server" | "request" | "signal" | "onFailure" | "assigns">,
  requests: Readonly<Record<string, InputRequest>>,
): Promise<FrontRound> {
  const keys = Object.keys(requests);
  // Handed on with the round's failure, for whoever ends them ({@linkcode endDeferred}).
  const deferred: InputRequest[] = [];
  const failed = (
    error: FrontCallOutcome,
    undeclared?: InputRequest,
    ending: "timeout" | "cancelled" = "cancelled",
  ): FrontRound => ({ error, undeclared, deferred, ending });
  const tooMany = tooManyInputRequests(keys.length, input.server.policy);
  if (tooMany !== undefined) return failed(callError(-32603, tooMany));
  const run = async (key: string, signal: AbortSignal) => {
    const result = await input.server.chain.run(requests[key] as InputRequest, {
      version: MODERN_PROTOCOL_VERSION,
      signal,
      principal: input.request.principal,
      ...(input.assigns === undefined ? {} : { assigns: input.assigns }),
    });
    if (!result.ok && result.stage === "deferred") deferred.push(result.request as InputRequest);
    return result;
  };
  for (const key of keys) {
    if (!input.server.chain.admit((requests[key] as InputRequest).method).ok) {
      // The chain refuses the entry at its first step, as admit did, and its decision listeners
      // hear of the refusal, as of any other.
      const failure = await run(key, input.signal);
      if (!failure.ok) return failed(refused(key, failure));
    }
  }
  const round = await runRound(
    keys,
    input.signal,
    run,
    // A deferred entry is not a failure: it goes down to the caller.
    (failure) => failure.stage !== "deferred",
  );
  if ("failure" in round) {
    // Only the call's own end (its caller leaving, or maxTotalTimeout) cancels an entry before
    // another failed.
    const { key, failure } = round;
    if (failure.stage !== "cancelled" && !(failure.cause instanceof DeadlineReached)) {
      return failed(refused(key, failure));
    }
    const serverId = input.server.policy.server;
    const ended = abortError(serverId, input.request.message.method, input.signal.reason);
    input.onFailure?.(ended);
    return failed(
      upstreamOutcome(ended, serverId),
      undefined,
      input.signal.reason instanceof DeadlineReached ? "timeout" : "cancelled",
    );
  }
  const answers: Record<string, InputResponse> = Object.create(null);
  const pending: Record<string, InputRequest> = Object.create(null);
  for (const [index, key] of keys.entries()) {
    const result = round.results[index] as ChainResult;
    if (result.ok) {
      answers[key] = result.answer;
      continue;
    }
    // A deferral carries the request as the checks left it.
    const request = result.request as InputRequest;
    if (!input.server.callerCan(input.request.capabilities, request)) {
      return failed(missingCapability(request), request);
    }
    const shaped = withinCallerContext(request, {
      version: MODERN_PROTOCOL_VERSION,
      capabilities: input.request.capabilities,
    });
    pending[key] = withChanges(requests[key] as InputRequest, shaped);
  }
  return { answers, pending };
}

/**
 * Gives the second decision event of each entry a failed round deferred, when the failure ends
 * them before they reach the caller (not a task's `-32021`, after which the caller may declare
 * what they need and poll again): each ends unanswered with what the call is told, as
 * `round.ending` says, but `"capability"` for the entry the caller could not take.
 *
 * @param input The server and the caller's request.
 * @param round The failed round.
 */
export function endDeferred(
  input: Pick<FrontCallInput, "server" | "request">,
  round: Extract<FrontRound, { readonly error: FrontCallOutcome }>,
): void {
  if (round.error.kind !== "error") return;
  const refusal = { code: round.error.error.code, message: round.error.error.message };
  for (const request of round.deferred) {
    input.server.chain.refused(request, refusal, {
      version: MODERN_PROTOCOL_VERSION,
      principal: input.request.principal,
      stage: request === round.undeclared ? "capability" : round.ending,
    });
  }
}

/** The `_meta` key under which a passed-down request says what the policy changed in it. */
export const CHANGES_META = "sluice/changes";

/**
 * A passed-down request with what the policy changed, under `_meta["sluice/changes"]`, so the
 * caller's person sees what the server asked (`maxTokens` 100000, allowed 1024); unchanged when
 * nothing was changed. Hosts that do not know the key ignore it, as `_meta` is meant for.
 *
 * @param asked The request as the server sent it.
 * @param request The request as the checks left it.
 * @returns `request`, with the changes under `_meta` when there are any.
 */
export function withChanges(asked: InputRequest, request: InputRequest): InputRequest {
  const changes: readonly InputChange[] = changesOf(asked, request);
  if (changes.length === 0) return request;
  const params = request.params as Record<string, unknown>;
  const meta = copyOwn(typeof params._meta === "object" && params._meta !== null ? params._meta : {});
  meta[CHANGES_META] = changes;
  const out = copyOwn(params);
  out._meta = meta;
  return { ...request, params: out } as InputRequest;
}

/**
 * A caller's params as they go upstream: without the caller's `_meta` (the upstream session
 * writes its own).
 *
 * @param params The caller's params (not changed).
 * @returns The params without `_meta`; the same object when it has none.
 */
export function withoutMeta(params: JsonObject): JsonObject {
  if (!Object.hasOwn(params, "_meta")) return params;
  const { _meta: _dropped, ...rest } = params;
  return rest;
}

function withProgressToken(params: JsonObject, token: unknown): JsonObject {
  if (typeof token !== "string" && typeof token !== "number") return params;
  const out = copyOwn(params);
  out._meta = { progressToken: token };
  return out as JsonObject;
}

function refused(key: string, result: ChainResult & { ok: false }): FrontCallOutcome {
  const entry = `Input request ${quote(key, 64)}`;
  switch (result.stage) {
    case "policy":
      return callError(result.refusal.code, `${entry} refused by policy: ${result.refusal.message}`);
    case "handler":
      return callError(result.refusal.code, `${entry} failed in the handler: ${result.refusal.message}`);
    case "capability":
      return callError(-32603, `${entry} asked for a capability this gateway did not declare`);
    default:
      return callError(-32603, `${entry} was not answered: ${result.refusal.message}`);
  }
}

/**
 * The error for a caller that did not declare what a deferred request needs (`-32021`).
 *
 * @param request The deferred request.
 * @returns The outcome, with `requiredCapabilities`.
 */
export function missingCapability(request: InputRequest): FrontCallOutcome {
  const [kind, part] = neededBy(request);
  return errorOutcome({
    code: -32021,
    message:
      "The upstream server needs input that only the caller can give, and the caller did not declare it",
    data: { requiredCapabilities: { [kind]: part === undefined ? {} : { [part]: {} } } },
  });
}

/**
 * The answer a legacy server gets for a request the caller cannot answer, as from a client that
 * did not declare the capability: `-32601` when the caller declared nothing of its kind, else
 * `-32602` (an elicitation mode, or sampling's `tools`, it did not declare).
 *
 * @param caller What the caller declared.
 * @param request The deferred request.
 * @returns The chain's failure, sent upstream as the JSON-RPC error.
 */
export function undeclaredAnswer(
  caller: ClientCapabilities,
  request: InputRequest,
): ChainResult & { readonly ok: false } {
  const [kind, part] = neededBy(request);
  const method = quote(request.method, 64);
  if (caller[kind] === undefined) {
    return {
      ok: false,
      stage: "capability",
      refusal: {
        code: -32601,
        message: `Method not found: the caller did not declare ${kind}, which ${method} needs`,
      },
    };
  }
  return {
    ok: false,
    stage: "policy",
    refusal: {
      code: -32602,
      message: `Invalid params: the caller did not declare ${kind}.${part}, which this ${method} needs`,
    },
  };
}

/**
 * The outcome for the caller when the upstream failed ({@linkcode upstreamFailure}).
 *
 * @param failure What the session threw.
 * @param serverId The server's id.
 * @returns The outcome, with its HTTP status ({@linkcode errorOutcome}).
 */
export function upstreamOutcome(failure: unknown, serverId: string): FrontCallOutcome {
  return errorOutcome(upstreamFailure(failure, serverId));
}

/**
 * The outcome for the caller when the upstream failed a request that cannot carry
 * `input_required` (discovery, a list, a completion, a task's request): as
 * {@linkcode upstreamOutcome}, except that a sign-in the upstream needs is `-32010` naming the
 * gateway's sign-in page ({@linkcode signInFirst}), not `-32021`, since declaring URL elicitation
 * cannot make such a request ask for it.
 *
 * @param failure What the session threw.
 * @param serverId The server's id.
 * @returns The outcome, with its HTTP status ({@linkcode errorOutcome}).
 */
export function unaskedOutcome(failure: unknown, serverId: string): FrontCallOutcome {
  const signIn = signInFirst(failure);
  return signIn === undefined ? upstreamOutcome(failure, serverId) : errorOutcome(signIn);
}

/**
 * The error for a caller whose answer to an input request was refused: `-32602` Invalid params,
 * whatever code the check gives a handler's answer, since the answer is a param of the caller's
 * own request (`inputResponses`), which it can correct and send again.
 *
 * @param key The input request's key.
 * @param refusal Why: its message.
 * @returns The outcome, with its HTTP status ({@linkcode errorOutcome}).
 */
export function answerRefused(key: string, refusal: { readonly message: string }): FrontCallOutcome {
  return errorOutcome(answerRefusal(key)(refusal));
}

/**
 * What a 2026 caller is told when its answer to `key` is refused (`-32602`), for the answer
 * check's event to carry ({@linkcode Chain.checkAnswer}'s `told`).
 *
 * @param key The answer's key in `inputResponses`.
 * @returns The refusal as the caller gets it.
 */
export function answerRefusal(key: string): (refusal: { readonly message: string }) => Refusal {
  return (refusal) => ({
    code: -32602,
    message: `Answer to input request ${quote(key, 64)} refused: ${refusal.message}`,
  });
}

/**
 * A JSON-RPC error for the caller, with its HTTP status ({@linkcode errorOutcome}).
 *
 * @param code The code.
 * @param message The message.
 * @returns The outcome.
 */
export function callError(code: number, message: string): FrontCallOutcome {
  return errorOutcome({ code, message });
}

/**
 * An error answer for a modern caller, with the HTTP status 2026-07-28 gives its code: 400 for a
 * header mismatch, a missing client capability or an unsupported version, 404 for a method the
 * server does not implement (the upstream's own `-32601` too), 200 for the rest.
 *
 * @param error The JSON-RPC error.
 * @returns The outcome.
 */
export function errorOutcome(error: JsonRpcErrorObject): FrontCallOutcome {
  const allowed = inModernCodes(error);
  return { kind: "error", status: ERROR_STATUS.get(allowed.code) ?? 200, error: allowed };
}

/**
 * An error in the codes a 2026-07-28 caller may be sent: that revision forbids `-32002` and
 * `-32042`, which a legacy upstream (and, for a sign-in, the gateway) uses. `-32002` (resource not
 * found) becomes `-32602`, which replaced it; `-32042` (URL elicitation required: the caller did
 * not declare URL elicitation, or it would have been asked) becomes `-32021` naming that capability.
 */
function inModernCodes(error: JsonRpcErrorObject): JsonRpcErrorObject {
  if (error.code === -32002) return { ...error, code: -32602 };
  if (error.code !== -32042) return error;
  return {
    code: -32021,
    message: `${error.message}: that takes URL elicitation, which this request does not declare`,
    data: { requiredCapabilities: { elicitation: { url: {} } } },
  };
}
