/**
 * One downstream `tools/call`, `resources/read` or `prompts/get` through the front to a legacy upstream
 * (self-hosted). A legacy server asks for input with its own requests while the call is open, so a
 * request the front's chain defers cannot travel in a sealed state alone: the upstream call stays
 * parked in this process (its deadline paused, the whole bounded by `maxTotalTimeout` and the state's
 * lifetime) while the entries go down as `input_required`. The sealed `requestState` names the parked
 * call and its round; the caller's retry is verified and post-checked like a handler's answer, its
 * answers go upstream, and the call goes on. A retry can only be served by the process that holds the
 * call; a state that names no parked call (another process, a restart, a replay, an expiry) or an
 * earlier round of it is refused with `-32602`.
 *
 * A server request the caller cannot answer fails the call with `-32021` (the caller learns what to
 * declare), and is answered upstream as by a client that did not declare what it needs. One
 * exception: a `roots/list` that stdio tied to the call only as the one in flight (a stdio request
 * names no call). Roots describe the client, not a call, and servers ask for them on their own
 * (server-everything does after the handshake), so it is answered upstream as by a client without
 * roots (`-32601`) and the call goes on. Sampling and elicitation exist to serve the request in
 * flight, so stdio's tie stands for them.
 *
 * A new call leases its upstream session from `FrontUpstreams` and holds it while it runs and while it
 * is parked, so the server's requests tie to this call alone; the lease is released exactly once, when
 * the upstream call ends, however it ends.
 *
 * @module
 */
import { CALL_ENDED, type ChainResult, type ChainStage, type JudgedAnswer } from "../chain/chain.ts";
import type { Timers } from "../_internal/timers.ts";
import { DeadlineReached, openFlow, pause } from "../_internal/signals.ts";
import { roundsExceeded } from "../client/modern/multi-round.ts";
import { tooManyInputRequests } from "../client/modern/input-round.ts";
import { taskIdOf } from "../client/client-methods.ts";
import { ClientError } from "../errors.ts";
import { codecs } from "../_internal/encoding.ts";
import type { MrtrMethod } from "../protocol/input-required.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { DeferredTie } from "../client/server-session.ts";
import type { JsonObject, JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { copyOwn } from "../_internal/copy.ts";
import { MODERN_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { FrontServer } from "./front-server.ts";
import {
  answerRefusal,
  answerRefused,
  asModern,
  callerAnswersOf,
  callError,
  type FrontCallInput,
  type FrontCallOutcome,
  INVALID_STATE,
  malformedAnswers,
  missingCapability,
  sealAndAsk,
  undeclaredAnswer,
  upstreamOutcome,
  withChanges,
} from "./front-call.ts";
import { digestRequest, openState } from "./sealed-state.ts";
import { type Principal, principalKey } from "./principal.ts";
import { resultForCaller } from "./caller-era.ts";
import type { UpstreamLease } from "./front-upstreams.ts";
import { withinCallerContext } from "./_caller-needs.ts";

/** The most calls one front keeps parked at once; the next deferral fails its call. */
export const MAX_PARKED_CALLS = 1024;

/** What one legacy call through the front needs: a modern call's parts, and where it parks. */
export interface FrontLegacyCallInput
  extends Pick<FrontCallInput, "server" | "request" | "stateKey" | "clock" | "timers" | "onFailure"> {
  /**
   * Leases the front's legacy session for a new call (its chain declares the passed-down kinds),
   * or refuses the call (`FrontUpstreams`); a retry leases nothing, its call holds one.
   */
  readonly lease: () => UpstreamLease | FrontCallOutcome;
  /** The downstream request's signal: the caller leaving before the call parks cancels it. */
  readonly signal: AbortSignal;
  /** The calls parked by this front, by id. */
  readonly parked: Map<string, ParkedCall>;
  /** This round's stream to the caller: the upstream's progress and logs while the round lasts. */
  readonly onNotification?: ((notification: JsonRpcNotification) => void) | undefined;
  /** The client's `assigns`, for the handlers of the input the call causes. */
  readonly assigns: Readonly<Record<string, unknown>>;
}

/**
 * Runs one round of a legacy call through the front: a new call, or the retry of a parked one.
 *
 * @param input The call's server, lease, request, state key, clock, timers, signal and parked calls.
 * @returns The result or error for the caller; never rejects for anything upstream does.
 */
export async function frontLegacyCall(input: FrontLegacyCallInput): Promise<FrontCallOutcome> {
  const { server, request } = input;
  const { inputResponses: callerAnswers, requestState: callerState } = request.params;
  const answers = callerAnswersOf(callerAnswers);
  if (answers === undefined) return malformedAnswers(callerAnswers);
  const digest = await digestRequest(request.message.method, request.params);
  let call: ParkedCall;
  if (callerState === undefined) {
    let lease = input.lease();
    // Refused while calls of this caller's wait for its answers: the one waiting longest, most
    // likely left (a 2026 caller need not retry, nor can it cancel), makes room.
    if ("kind" in lease && await abandonOldest(input)) lease = input.lease();
    if ("kind" in lease) return lease;
    call = new ParkedCall(input, lease);
  } else {
    const opened = await openState(callerState, input.stateKey, {
      now: input.clock.now(),
      serverId: server.policy.server,
      principal: principalKey(request.principal),
      requestDigest: digest,
    });
    if (!opened.ok) return INVALID_STATE;
    const [id = "", round = ""] = (opened.state.upstreamState ?? "").split(".");
    const parked = input.parked.get(id);
    if (parked === undefined) return NOT_HELD_HERE;
    if (String(parked.round) !== round) return INVALID_STATE;
    // Checked out: a second retry with the same state finds nothing.
    input.parked.delete(id);
    parked.unpark();
    const refused = parked.answer(Object.keys(opened.state.pending), answers);
    if (refused !== undefined) return refused;
    call = parked;
  }
  const progressToken = (request.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  call.attach(input.onNotification, progressToken);
  const event = await call.next(input.signal, request.capabilities).finally(() =>
    call.attach(undefined, undefined)
  );
  if (event.kind === "done") {
    if (call.failure !== undefined) input.onFailure?.(call.failure);
    return event.outcome;
  }
  if (event.kind === "left") {
    call.cancel("the caller left");
    return callError(-32603, "The call was cancelled");
  }
  // A round passed down is a round of the call, held to the policy's limits as a modern
  // upstream's rounds are (front-call.ts).
  const { policy } = server;
  const tooMany = tooManyInputRequests(Object.keys(event.pending).length, policy);
  if (tooMany !== undefined) {
    call.cancel("the server asked for more input than the policy allows");
    return callError(-32603, tooMany);
  }
  if (event.fresh && ++call.asks > policy.maxRounds) {
    call.cancel("the server asked for more rounds than the policy allows");
    const message = roundsExceeded(policy.server, request.message.method, policy.maxRounds);
    const failure = new ClientError("rounds_exceeded", message, { serverId: policy.server });
    input.onFailure?.(failure);
    return upstreamOutcome(failure, policy.server);
  }
  // What is left was tied to this call by its transport: the server needs it for this call.
  for (const [key, entry] of Object.entries(event.pending)) {
    if (!server.callerCan(request.capabilities, entry)) {
      call.refuse(key, request.capabilities);
      call.cancel("the caller cannot answer the server's request");
      return missingCapability(entry);
    }
  }
  if (input.parked.size >= MAX_PARKED_CALLS) {
    call.cancel("too many parked calls");
    return callError(-32603, "Too many calls are waiting for their callers' input; try again later");
  }
  const asked = await sealAndAsk(input, digest, {
    requestState: `${call.id}.${call.round}`,
    answers: {},
    pending: event.pending,
  });
  if (asked.kind === "error") {
    call.cancel("the state could not be sealed");
    return asked;
  }
  input.parked.set(call.id, call);
  call.park(
    () => input.parked.get(call.id) === call && input.parked.delete(call.id),
    server.policy.stateTtlMs,
  );
  return asked;
}

/** What a parked call reports to the round waiting on it. */
type CallEvent =
  | { readonly kind: "done"; readonly outcome: FrontCallOutcome }
  | {
    readonly kind: "input";
    readonly pending: Record<string, InputRequest>;
    /** Whether any of them is passed down for the first time (not asked again). */
    readonly fresh: boolean;
  }
  | { readonly kind: "left" };

/**
 * A valid state whose call this instance does not hold: it ended (answered, cancelled, past its
 * `maxTotalTimeout`), or another instance started it (a legacy call stays where it started).
 */
const NOT_HELD_HERE = callError(
  -32602,
  "Invalid or expired requestState: its call is not held by this gateway instance (it has ended, or another instance holds it: a legacy upstream's call stays on the instance that started it)",
);

/** How long a new call waits for the parked call it abandoned to end upstream. */
const ABANDON_WAIT_MS = 1000;

/**
 * Cancels the call of this caller's on this server that has waited longest for its answers,
 * and waits (a second at most) for it to end upstream, freeing its session.
 *
 * @returns Whether there was one.
 */
async function abandonOldest(input: FrontLegacyCallInput): Promise<boolean> {
  const caller = principalKey(input.request.principal);
  // In the order they parked: a call is parked again after each round it answers.
  const oldest = [...input.parked.values()].find((call) =>
    call.server === input.server && principalKey(call.principal) === caller
  );
  if (oldest === undefined) return false;
  input.parked.delete(oldest.id);
  oldest.cancel("its caller started another call past its limit while this one waited for input");
  const waited = new AbortController();
  await Promise.race([oldest.ended, pause(ABANDON_WAIT_MS, input.timers, waited.signal)]);
  waited.abort(); // its timer, if the call ended first
  return true;
}

/** A server request the handler deferred, waiting for the caller's answer. */
interface Waiting {
  /** The request as the chain deferred it: its answer is checked against it. */
  readonly request: InputRequest;
  /**
   * What a caller who declared `caller` is asked: the request with what the policy changed in it,
   * and without a context the caller did not declare ({@linkcode withinCallerContext}).
   */
  readonly shownTo: (caller: ClientCapabilities) => InputRequest;
  /** Ends the wait; `heard` when the answer's check gave the second decision event already. */
  readonly settle: (result: ChainResult, heard?: boolean) => void;
  /** Tied to this call only as stdio's one call in flight (see `DeferredTie`). */
  readonly guessed: boolean;
  /** Passed down in the round now waiting for the caller. */
  reported: boolean;
  /** Passed down in some round. */
  asked: boolean;
}

/** A legacy upstream call that outlives the downstream requests serving its rounds. */
export class ParkedCall {
  /** Random, unguessable; sealed into the state with the round. */
  readonly id: string = codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
  /** Counts the rounds passed down; a state opens only the round it was sealed for. */
  round = 0;
  /** Rounds that passed down new requests (re-asks do not count); the one past `maxRounds` fails the call. */
  asks = 0;
  readonly #controller = new AbortController();
  readonly #waiting = new Map<string, Waiting>();
  /** The server the call is on. */
  readonly server: FrontServer;
  /** The caller the call is for (its state is bound to them): who answers its rounds. */
  readonly principal: Principal | undefined;
  /** Settles once the upstream call has ended (its session released). */
  readonly ended: Promise<void>;
  readonly #timers: Timers;
  #keys = 0;
  #done: FrontCallOutcome | undefined;
  #wake: (() => void) | undefined;
  #expiry: unknown;
  #relay: ((notification: JsonRpcNotification) => void) | undefined;
  #progressToken: unknown;
  #failure: unknown;
  #markEnded: () => void = () => {};
  /** The upstream call's signal: aborted by `cancel()`, or by `maxTotalTimeout`. */
  readonly #flow: AbortSignal;
  /** How the call was cancelled, when a limit of the front's ended it. */
  #cancelledAs: "timeout" | "cancelled" | undefined;

  /**
   * Starts the upstream call on its leased session, bounded by the policy's `maxTotalTimeout`.
   *
   * @param input The first round's input.
   * @param lease The session the call holds until it ends.
   */
  constructor(input: FrontLegacyCallInput, lease: UpstreamLease) {
    this.#timers = input.timers;
    this.server = input.server;
    this.principal = input.request.principal;
    this.ended = new Promise((resolve) => this.#markEnded = resolve);
    const flow = openFlow([this.#controller.signal], {
      maxTotalTimeoutMs: input.server.policy.maxTotalTimeoutMs,
      timers: input.timers,
    });
    this.#flow = flow.signal;
    const context = {
      signal: flow.signal,
      assigns: input.assigns,
      principal: input.request.principal,
      onDeferred: (request: InputRequest, signal: AbortSignal, tie?: DeferredTie) =>
        this.#defer(request, tie?.asked ?? request, signal, tie?.guessed === true),
      // Progress and logs reach the caller while one of its requests is open (not while parked).
      onProgress: (progress: JsonObject) => {
        const token = this.#progressToken;
        if (typeof token !== "string" && typeof token !== "number") return;
        // Copied by its keys, not spread: V8 spreads a prototype-free (sanitized) object slowly.
        const params = copyOwn(progress);
        params.progressToken = token;
        this.#relay?.({ jsonrpc: "2.0", method: "notifications/progress", params: params as JsonObject });
      },
      onNotification: (notification: JsonRpcNotification) => this.#relay?.(notification),
      // A task the call becomes is the front's own (a modern caller gets no legacy task), so it is
      // cancelled upstream if the call ends first.
      cancelIfAbandoned: true,
    };
    const method = input.request.message.method as MrtrMethod;
    // The call's own params: without the caller's `_meta` and what its retries add.
    const { _meta: _m, inputResponses: _i, requestState: _s, ...params } = input.request.params;
    const session = lease.session;
    // Whether the server answered the call: else it may still be running it (see release).
    let answered = true;
    void (async (): Promise<FrontCallOutcome> => {
      const outcome = await session.call(method, params, context);
      const result = outcome.kind === "complete"
        ? outcome.result
        : await session.awaitTask(taskIdOf(outcome.task), context);
      // A legacy result has no resultType (nor ttlMs, cacheScope); a 2026-07-28 caller needs them.
      return { kind: "result", result: resultForCaller(result as unknown as JsonObject, method, "modern") };
    })().catch((failure) => {
      answered = failure instanceof ClientError && failure.kind === "server";
      this.#failure = failure;
      return upstreamOutcome(failure, input.server.policy.server);
    }).then((outcome) => {
      flow.dispose();
      lease.release(answered);
      this.#done = outcome;
      this.#cancelWaiting();
      this.#wake?.();
      this.#markEnded();
    });
  }

  /** What failed the upstream call, once it has ended so; the caller is told only its class. */
  get failure(): unknown {
    return this.#failure;
  }

  /**
   * Sets where this round's notifications go (the open downstream request's stream), or clears it.
   *
   * @param relay Takes the notifications, or `undefined` between rounds.
   * @param progressToken The caller's progress token in this round's request.
   */
  attach(relay: ((notification: JsonRpcNotification) => void) | undefined, progressToken: unknown): void {
    this.#relay = relay;
    this.#progressToken = progressToken;
  }

  /**
   * Waits for the call to end or to defer requests not yet passed down. A `roots/list` tied by stdio's
   * guess that this round's caller cannot answer is answered upstream at once ({@linkcode undeclaredAnswer}).
   *
   * @param signal The downstream request's signal.
   * @param caller What this round's caller declared.
   * @returns What happened.
   */
  async next(signal: AbortSignal, caller: ClientCapabilities): Promise<CallEvent> {
    for (;;) {
      if (this.#done !== undefined) return { kind: "done", outcome: this.#done };
      if (signal.aborted) return { kind: "left" };
      if ([...this.#waiting.values()].some((entry) => !entry.reported)) {
        // Requests a server sends together arrive a moment apart: one turn gathers them.
        await new Promise<void>((resolve) => this.#timers.setTimeout(resolve, 0));
        if (this.#done !== undefined) continue;
        const pending: Record<string, InputRequest> = Object.create(null);
        let fresh = false;
        for (const [key, entry] of this.#waiting) {
          if (entry.reported) continue;
          const unprompted = entry.guessed && entry.request.method === "roots/list";
          if (unprompted && !this.server.callerCan(caller, entry.request)) {
            entry.settle(undeclaredAnswer(caller, entry.request));
            continue;
          }
          fresh ||= !entry.asked;
          entry.reported = entry.asked = true;
          pending[key] = entry.shownTo(caller);
        }
        if (Object.keys(pending).length > 0) return { kind: "input", pending, fresh };
        continue;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener("abort", wake);
          if (this.#wake === wake) this.#wake = undefined;
          resolve();
        };
        this.#wake = wake;
        signal.addEventListener("abort", wake, { once: true });
      });
    }
  }

  /**
   * Post-checks the caller's answers to the requests its state asked and sends them upstream; as
   * 2026-07-28 says, answers to requests it did not ask are ignored, and those it left unanswered are
   * passed down again by the next round ({@linkcode ParkedCall.next}).
   *
   * @param asked The keys of the requests the caller's state passed down.
   * @param answers The caller's `inputResponses`.
   * @returns The error for the caller when an answer is refused (the call is then cancelled).
   */
  answer(asked: readonly string[], answers: Readonly<Record<string, unknown>>): FrontCallOutcome | undefined {
    this.round++;
    const passed: [string, Waiting, JudgedAnswer, unknown][] = [];
    for (const key of asked) {
      // A request the server cancelled meanwhile is no longer waiting: its answer is dropped.
      const entry = this.#waiting.get(key);
      if (entry === undefined) continue;
      if (!Object.hasOwn(answers, key)) {
        entry.reported = false;
        continue;
      }
      const judged = this.server.chain.judgeAnswer(entry.request, answers[key], MODERN_PROTOCOL_VERSION);
      if (!judged.verdict.ok) {
        // Its check gives its second event; the others still waiting, those whose answers passed
        // here too (they never reach the server), get theirs as cancelled.
        judged.report(this.principal, answerRefusal(key));
        entry.settle(UNANSWERED, true);
        this.cancel("the caller's answer was refused");
        return answerRefused(key, judged.verdict.refusal);
      }
      passed.push([key, entry, judged, judged.verdict.value]);
    }
    for (const [key, entry, judged, value] of passed) {
      judged.report(this.principal);
      this.#waiting.delete(key);
      entry.settle({ ok: true, answer: value as never });
    }
    return undefined;
  }

  /**
   * Answers a waiting request the caller cannot take as a client without that capability would
   * ({@linkcode undeclaredAnswer}), and gives its second decision event at stage `"capability"`.
   *
   * @param key The request's key in the round passed down.
   * @param caller What the round's caller declared.
   */
  refuse(key: string, caller: ClientCapabilities): void {
    const entry = this.#waiting.get(key);
    if (entry === undefined) return;
    const answer = undeclaredAnswer(caller, entry.request);
    this.server.chain.refused(entry.request, answer.refusal, {
      version: MODERN_PROTOCOL_VERSION,
      principal: this.principal,
      stage: "capability",
    });
    entry.settle(answer, true);
  }

  /**
   * Parks the call until a retry or the state's lifetime ends.
   *
   * @param forget Removes it from the front's parked calls.
   * @param ttlMs The state's lifetime.
   */
  park(forget: () => void, ttlMs: number): void {
    this.#expiry = this.#timers.setTimeout(() => {
      forget();
      this.cancel(new DeadlineReached("state", ttlMs), "timeout");
    }, ttlMs);
    // A parked call must not keep a self-hosted process alive on its own.
    (this.#expiry as { unref?: () => void } | null)?.unref?.();
  }

  /** Ends the parking (a retry arrived). */
  unpark(): void {
    this.#timers.clearTimeout(this.#expiry);
  }

  /**
   * Cancels the upstream call and fails the requests still waiting.
   *
   * @param reason Why: words, or the state's lifetime reached (which the requests the gateway's
   *   own handler is answering then end `"timeout"` by).
   * @param stage How the second decision event of each request still waiting says it ended:
   *   `"timeout"` when the caller's time ran out. @default "cancelled"
   */
  cancel(reason: string | DeadlineReached, stage: "timeout" | "cancelled" = "cancelled"): void {
    this.#cancelledAs ??= stage;
    this.unpark();
    this.#controller.abort(typeof reason === "string" ? new Error(`sluice front: ${reason}`) : reason);
    this.#cancelWaiting();
  }

  /**
   * Waits for the caller's answer to a request the chain deferred.
   *
   * @param request The request as the checks left it.
   * @param sent The request as the server sent it (the same when not known).
   * @param signal The request's signal: the server cancelled it, or its call ended.
   * @param guessed Whether stdio tied it to this call only as the one in flight.
   */
  #defer(
    request: InputRequest,
    sent: InputRequest,
    signal: AbortSignal,
    guessed: boolean,
  ): Promise<ChainResult> {
    if (this.#done !== undefined || this.#controller.signal.aborted) {
      this.#unanswered(request, UNANSWERED);
      return Promise.resolve(UNANSWERED);
    }
    const key = `input-${++this.#keys}`;
    return new Promise<ChainResult>((resolve) => {
      let settled = false;
      const settle = (result: ChainResult, heard = false) => {
        // Once: the call's end and the request's own signal may both settle it.
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        this.#waiting.delete(key);
        if (!result.ok && !heard) this.#unanswered(request, result);
        resolve(result);
      };
      const onAbort = () =>
        settle({ ok: false, stage: "cancelled", refusal: { code: -32603, message: "Request cancelled" } });
      signal.addEventListener("abort", onAbort, { once: true });
      const shownTo = (caller: ClientCapabilities) =>
        asModern(
          withChanges(
            sent,
            withinCallerContext(request, { version: MODERN_PROTOCOL_VERSION, capabilities: caller }),
          ),
        );
      this.#waiting.set(key, { request, shownTo, settle, guessed, reported: false, asked: false });
      this.#wake?.();
    });
  }

  #cancelWaiting(): void {
    for (const entry of [...this.#waiting.values()]) entry.settle(UNANSWERED);
  }

  /**
   * Gives the second decision event of a deferred request that ends without the caller's answer. When
   * its call ended: `"timeout"` if the state's lifetime or `maxTotalTimeout` ended it, else
   * `"cancelled"`, with {@linkcode UNANSWERED} (what the server is told, whoever settles it first);
   * when the server cancelled it, `"cancelled"`; else how it was answered.
   */
  #unanswered(request: InputRequest, result: ChainResult & { readonly ok: false }): void {
    const callEnded = result === UNANSWERED ||
      (result.stage === "cancelled" && (this.#done !== undefined || this.#flow.aborted));
    const stage = callEnded
      ? this.#cancelledAs ?? (this.#flow.reason instanceof DeadlineReached ? "timeout" : "cancelled")
      : result.stage as Exclude<ChainStage, "deferred">;
    const told = callEnded ? UNANSWERED : result;
    this.server.chain.refused(request, told.refusal, {
      version: MODERN_PROTOCOL_VERSION,
      principal: this.principal,
      stage,
    });
  }
}

/** The answer a server gets for a request whose call was cancelled or ended without its answer. */
const UNANSWERED: ChainResult & { readonly ok: false } = {
  ok: false,
  stage: "handler",
  refusal: { code: -32603, message: CALL_ENDED },
};
