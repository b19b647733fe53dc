/**
 * The checker chain of one server: capability gate, budget, the kind's pre-checks (refuse, or rewrite a
 * copy), the handler (with its timeout and signal), then the post-checks on its answer. It stops at the first
 * refusal and is era-neutral: the legacy adapter and the modern client both run it and turn its result into
 * their wire form.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { formatDuration } from "../policy/duration.ts";
import type { Handler, Principal } from "../handler/handler.ts";
import {
  clientCapabilitiesFor,
  declareCapabilities,
  type DeclaredCapabilities,
} from "../handler/capabilities.ts";
import type { ClientCapabilities } from "../protocol/capabilities.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import type { RequestId } from "../protocol/jsonrpc.ts";
import type { CreateMessageResult } from "../protocol/sampling.ts";
import type { ElicitResult } from "../protocol/elicitation.ts";
import type { ListRootsResult } from "../protocol/roots.ts";
import { eraOf, MODERN_PROTOCOL_VERSION, type ProtocolVersion } from "../protocol/versions.ts";
import type { RateLimitStore } from "../limits/rate-limit-store.ts";
import { type CapabilityCheck, createCapabilityCheck } from "../checks/capability.ts";
import { createBudgetCheck } from "../checks/budget.ts";
import { systemTimers, type Timers } from "../_internal/timers.ts";
import { DeadlineReached } from "../_internal/signals.ts";
import { type Clock, systemClock } from "../_internal/clock.ts";
import { type Refusal, RefusalCode, type Verdict } from "../checks/verdict.ts";
import { changesOf, type DecisionChange, type DecisionSink, inputDecision } from "./decision.ts";
import { type Invocation, invokeHandler, type LazySignal } from "./invoke-handler.ts";
import { isDeferral } from "../handler/deferral.ts";
import type { BaseContext } from "./_handler-contexts.ts";
import { compileKindChecks, type KindStepName, type Prepared } from "./_kind-checks.ts";

/** Options of {@linkcode createChain}. */
export interface ChainOptions {
  /** The server's compiled policy. */
  readonly policy: CompiledPolicy;
  /** The client's handler; without one nothing is declared and every input request is refused. */
  readonly handler?: Handler | undefined;
  /** The client's name (`ctx.client`). */
  readonly client: string;
  /** Where the server's input budget lives. */
  readonly store: RateLimitStore;
  /** Timers for handler deadlines. @default the runtime's */
  readonly timers?: Timers;
  /** The clock of decision events (their time, the handler's and the chain's durations). @default Date */
  readonly clock?: Clock;
  /** Hears one event per input request (what the checks changed, how it ended) while it listens. @default none */
  readonly decisions?: DecisionSink | undefined;
}

/** What the caller knows about one input request. */
export interface RunContext {
  /** The protocol version it arrived in. */
  readonly version: ProtocolVersion;
  /** The related call's assigns, else the client's. @default {} */
  readonly assigns?: Readonly<Record<string, unknown>>;
  /** The related in-flight request (legacy). @default null */
  readonly relatedRequestId?: RequestId | null;
  /** The gateway's caller, whose input budget is spent (`ctx.principal`). @default none */
  readonly principal?: Principal | undefined;
  /** Whether a call to this server is in flight (legacy idle sampling). @default true */
  readonly callInFlight?: boolean;
  /**
   * Aborts the handler: server cancellation, a failed sibling, an abandoned call. The request then ends
   * `"cancelled"`, or `"timeout"` when the call's `maxTotalTimeout` (or a parked call's `stateTtl`) fired it
   * (a `DeadlineReached`), with {@linkcode CALL_ENDED}.
   */
  readonly signal?: AbortSignal | undefined;
}

/** Where a chain stopped: the caller maps each stage to its wire form. */
export type ChainStage = "capability" | "policy" | "handler" | "timeout" | "cancelled" | "deferred";

/** The chain's answer to one input request. */
export type ChainResult =
  | { readonly ok: true; readonly answer: CreateMessageResult | ElicitResult | ListRootsResult }
  | {
    readonly ok: false;
    readonly stage: ChainStage;
    readonly refusal: Refusal;
    readonly cause?: unknown;
    /** For `"deferred"`: the request as the checks left it (clamped, coerced, URL normalised). */
    readonly request?: InputRequest;
  };

/** An input request refused before it ran: its method, and its params as sent. */
export type RefusedRequest = Pick<InputRequest, "method"> & { readonly params?: unknown };

/** An answer judged by {@linkcode Chain.judgeAnswer}, its decision event not yet given. */
export interface JudgedAnswer {
  readonly verdict: Verdict<unknown>;
  /**
   * Gives the answer's decision event.
   *
   * @param principal The gateway's caller who answered.
   * @param told What a refusal becomes for whoever is told of it (see {@linkcode Chain.checkAnswer}).
   */
  report(principal?: RunContext["principal"], told?: (refusal: Refusal) => Refusal): void;
}

/** One server's compiled chain. */
export interface Chain {
  /** The policy it enforces. */
  readonly policy: CompiledPolicy;
  /** What the client declares to this server. */
  readonly declared: DeclaredCapabilities;
  /** The declaration shaped for one protocol version. */
  capabilities(version: ProtocolVersion, options?: { readonly tasks?: boolean }): ClientCapabilities;
  /**
   * The capability gate alone (`run`'s first step), for a modern server: a round asks it about every entry
   * before any handler runs, so one undeclared kind fails the whole round.
   */
  admit(method: string): Verdict<void>;
  /** Runs one input request through the checks and the handler. Never rejects. */
  run(request: InputRequest, context: RunContext): Promise<ChainResult>;
  /**
   * Tells the decision listeners of an input request refused before it could run (over `maxServerRequests`,
   * params that failed to decode), or gives the second event of a deferred request that ends unanswered.
   *
   * @param request Its method, and its params as sent (they may not have decoded).
   * @param refusal The code and message the server is answered with.
   * @param context Its version, the gateway's caller, if any, and the event's outcome.
   *   `stage` @default "policy"
   */
  refused(
    request: RefusedRequest,
    refusal: Refusal,
    context: Pick<RunContext, "version" | "principal"> & {
      readonly stage?: Exclude<ChainStage, "deferred"> | undefined;
    },
  ): void;
  /**
   * Checks an answer that did not come from the handler (a downstream caller's, in the front) with the same
   * post-checks, against the request as the checks left it, and gives the request's second decision event
   * (`"answered"` with the changes, or `"policy"` with the refusal). The answer goes to the server, so it is
   * checked in the version the server asked in, whatever the answerer's `version`.
   *
   * @param principal The gateway's caller who answered, for the event.
   * @param told What a refusal becomes for whoever is told of it (a 2026 caller is told its answer was
   *   refused, `-32602`): the event carries that. @default the refusal as it is
   */
  checkAnswer(
    request: InputRequest,
    answer: unknown,
    version: ProtocolVersion,
    principal?: RunContext["principal"],
    told?: (refusal: Refusal) => Refusal,
  ): Verdict<unknown>;
  /**
   * {@linkcode Chain.checkAnswer} with its event given only by `report()`: for a 2026 caller's answers, which
   * count only once the state they answer is spent (a replay is refused after its answers pass, and must not
   * log them as answered).
   */
  judgeAnswer(request: InputRequest, answer: unknown, version: ProtocolVersion): JudgedAnswer;
  /**
   * Answers a request the handler deferred from elsewhere (the front's legacy caller) as the handler's
   * answer: `ask` runs under the kind's handler deadline and `signal`, its result is post-checked the same
   * way, and it gives the request's second decision event.
   */
  answerElsewhere(
    request: InputRequest,
    ask: (signal: AbortSignal) => Promise<unknown>,
    context: Pick<RunContext, "principal"> & {
      readonly version: ProtocolVersion;
      readonly signal: AbortSignal;
    },
  ): Promise<ChainResult>;
}

/**
 * Compiles a server's chain: validates every checker's options once.
 *
 * @param options Policy, handler, client name, store and timers.
 * @returns The frozen chain.
 * @throws {TypeError} When a checker's options are not valid (for example a `*.` pattern on a
 *   public suffix in `elicitation.allowHosts`).
 * @example
 * ```ts
 * import { createChain } from "./chain.ts";
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * import { createMemoryStore } from "../limits/memory-store.ts";
 * const chain = createChain({
 *   policy: compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }),
 *   handler: { roots: () => ({ roots: [{ uri: "file:///srv/project" }] }) },
 *   client: "my-agent",
 *   store: createMemoryStore(),
 * });
 * const result = await chain.run({ method: "roots/list", params: {} }, { version: "2026-07-28" });
 * console.log(result); // { ok: true, answer: { roots: [{ uri: "file:///srv/project" }] } }
 * ```
 */
export function createChain(options: ChainOptions): Chain {
  const { policy, client, decisions } = options;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const declared = declareCapabilities(options.handler, policy);
  // What is declared depends on the version (2025-06-18 has no URL mode): one gate per version.
  const gates = capabilityGates(declared);
  const budget = createBudgetCheck({
    store: options.store,
    key: `input:${policy.server}`,
    rate: policy.inputRateLimit,
    failOpen: policy.rateLimitFailOpen,
    samplingCode: policy.sampling.rejectionCode,
  });
  const kinds = compileKindChecks(policy, declared, options.handler ?? {});

  async function decide(request: InputRequest, context: RunContext, trace?: RunTrace): Promise<ChainResult> {
    const allowed = gates[context.version].check(request.method);
    if (!allowed.ok) return { ok: false, stage: "capability", refusal: allowed.refusal };
    const spent = budget.check(request.method, context.principal?.subject);
    const afforded = spent instanceof Promise ? await spent : spent;
    if (!afforded.ok) return { ok: false, stage: "policy", refusal: afforded.refusal };
    const prepared = kinds.prepare(request, context);
    if (!prepared.ok) return { ok: false, stage: "policy", refusal: prepared.refusal };
    const base: BaseContext = {
      client,
      serverId: policy.server,
      era: eraOf(context.version),
      assigns: context.assigns ?? {},
      relatedRequestId: context.relatedRequestId ?? null,
      principal: context.principal,
      // The event's list too: frozen with its entries, so that a handler cannot rewrite the event.
      changes: Object.freeze(
        changesOf(request, prepared.value.request).map((change) => Object.freeze(change)),
      ),
    };
    if (trace !== undefined) trace.changes = base.changes;
    const answered = answer(prepared.value, (lazy) => prepared.value.invoke(base, lazy), {
      signal: context.signal,
      timers,
      clock,
      trace,
    });
    const result = answered instanceof Promise ? await answered : answered;
    if (!result.ok && result.request !== undefined) askedIn.set(result.request, context.version);
    return result;
  }

  /**
   * The version each deferred request arrived in: whoever answers it, the answer goes to the server, so it is
   * checked in the server's version and its second event names the era the server asked in.
   */
  const askedIn = new WeakMap<InputRequest, ProtocolVersion>();
  // One event per input request, run or refused before; a deferred one gives a second when its answer is
  // checked.
  const report = (sink: DecisionSink, facts: {
    readonly request: RefusedRequest;
    readonly context: Pick<RunContext, "version" | "principal">;
    readonly result: ChainResult;
    readonly trace: RunTrace;
    readonly startedAt: number;
    readonly endedAt: number;
  }) => {
    const { request, context, result, trace } = facts;
    try {
      sink.decide(inputDecision({
        client,
        server: policy.server,
        caller: context.principal?.subject,
        era: eraOf(askedIn.get(request as InputRequest) ?? context.version),
        request,
        changes: trace.changes ?? [],
        result,
        handlerMs: trace.handlerMs,
        startedAt: facts.startedAt,
        endedAt: facts.endedAt,
      }));
    } catch {
      // A listener's failure is its own: the request is answered as decided.
    }
  };
  const reported = async (request: InputRequest, context: RunContext, sink: DecisionSink) => {
    const startedAt = clock.now();
    const trace: RunTrace = {};
    const result = await decide(request, context, trace);
    report(sink, { request, context, result, trace, startedAt, endedAt: clock.now() });
    return result;
  };
  const run = (request: InputRequest, context: RunContext) =>
    decisions?.listening === true ? reported(request, context, decisions) : decide(request, context);
  const judgeAnswer = (request: InputRequest, given: unknown, version: ProtocolVersion): JudgedAnswer => {
    const prepared = kinds.prepare(request, { version: askedIn.get(request) ?? version });
    const verdict = prepared.ok ? prepared.value.judge(given) : prepared;
    return {
      verdict,
      report: (principal, told) => {
        if (decisions?.listening !== true) return;
        const now = clock.now();
        report(decisions, {
          request,
          context: { version, principal },
          result: verdict.ok
            ? { ok: true, answer: verdict.value as never }
            : { ok: false, stage: "policy", refusal: told?.(verdict.refusal) ?? verdict.refusal },
          trace: { changes: verdict.ok ? verdict.changes ?? [] : [] },
          startedAt: now,
          endedAt: now,
        });
      },
    };
  };

  return Object.freeze<Chain>({
    policy,
    declared,
    capabilities: (version, capabilityOptions) => clientCapabilitiesFor(version, declared, capabilityOptions),
    admit: (method) => gates[MODERN_PROTOCOL_VERSION].check(method),
    run,
    refused: (request, refusal, context) => {
      if (decisions?.listening !== true) return;
      const result = { ok: false, stage: context.stage ?? "policy", refusal } as const;
      const now = clock.now();
      report(decisions, { request, context, result, trace: {}, startedAt: now, endedAt: now });
    },
    checkAnswer: (request, given, version, principal, told) => {
      const judged = judgeAnswer(request, given, version);
      judged.report(principal, told);
      return judged.verdict;
    },
    judgeAnswer,
    answerElsewhere: async (request, ask, { version, signal, principal }) => {
      const listening = decisions?.listening === true;
      const startedAt = clock.now();
      const trace: RunTrace = {};
      const prepared = kinds.prepare(request, { version: askedIn.get(request) ?? version });
      const result: ChainResult = prepared.ok
        ? await answer(prepared.value, (lazy) => ask(lazy.signal), {
          signal,
          timers,
          clock,
          trace: listening ? trace : undefined,
        })
        : { ok: false, stage: "policy", refusal: prepared.refusal };
      if (listening) {
        report(decisions, {
          request,
          context: { version, principal },
          result,
          trace,
          startedAt,
          endedAt: clock.now(),
        });
      }
      return result;
    },
  });
}

/** The name of a step of the chain: the gate's two, then a kind's. */
export type ChainStepName = "capability" | "budget" | KindStepName;

/** One step of a policy's chain, as `sluice check` prints it. */
export interface ChainStep {
  /** Its place in the order the chain runs, from 1. */
  readonly number: number;
  /** Its name. */
  readonly name: ChainStepName;
  /**
   * The code it refuses with; `undefined` for a step that only rewrites. The budget refuses
   * sampling with the policy's `sampling.rejectionCode` instead.
   */
  readonly code: number | undefined;
  /** For `"handler"`: its deadline in milliseconds. */
  readonly timeoutMs?: number;
}

/** The steps of a policy's chain, in the order they run. */
export interface ChainSteps {
  /** What every input request goes through first: `"capability"`, then `"budget"`. */
  readonly gate: readonly ChainStep[];
  /**
   * Then each kind's own steps, numbered on from the gate's: none for a kind the policy
   * refuses at the gate, and an elicitation's URL or form check only for a mode it allows.
   */
  readonly kinds: Readonly<Record<InputRequest["method"], readonly ChainStep[]>>;
}

/**
 * Lists the steps a policy's chain runs, from what {@linkcode createChain} compiles for it (with
 * a handler that implements every kind, so that only the policy decides).
 *
 * @param policy The compiled policy.
 * @returns The gate's steps and each kind's.
 * @example
 * ```ts
 * import { chainSteps } from "./chain.ts";
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * const steps = chainSteps(compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } }));
 * console.log(steps.kinds["roots/list"]);
 * // [{ number: 3, name: "handler", code: -32603, timeoutMs: 60000 }, { number: 4, name: "answer", code: -32603 }]
 * ```
 */
export function chainSteps(policy: CompiledPolicy): ChainSteps {
  const declared = declareCapabilities(EVERY_KIND, policy);
  const gate = capabilityGates(declared)[MODERN_PROTOCOL_VERSION];
  const modes = declared.elicitation?.modes ?? [];
  const steps = compileKindChecks(policy, declared, EVERY_KIND).steps;
  const gateSteps: ChainStep[] = [
    { number: 1, name: "capability", code: RefusalCode.MethodNotFound },
    { number: 2, name: "budget", code: RefusalCode.ServerError },
  ];
  const after = (method: InputRequest["method"]): ChainStep[] =>
    gate.check(method).ok
      ? steps[method]
        .filter((step) => step.mode === undefined || modes.includes(step.mode))
        .map(({ name, code, timeoutMs }, i) => ({
          number: gateSteps.length + i + 1,
          name,
          code,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
        }))
      : [];
  return {
    gate: gateSteps,
    kinds: {
      "sampling/createMessage": after("sampling/createMessage"),
      "elicitation/create": after("elicitation/create"),
      "roots/list": after("roots/list"),
    },
  };
}

/** A handler with every callback and mode: what it declares to a server is what the policy allows. */
const EVERY_KIND: Handler = Object.freeze<Handler>({
  sampling: (_params, ctx) => ctx.defer(),
  elicitationModes: ["form", "url"],
  elicitation: (_params, ctx) => ctx.defer(),
  roots: (ctx) => ctx.defer(),
});

/** What a run reports besides its result, for decision events. */
interface RunTrace {
  /** What the pre-checks changed (when they passed), then what the answer check changed. */
  changes?: readonly DecisionChange[];
  /** How long the handler took (ms), when it ran. */
  handlerMs?: number;
}

/** Each protocol version's gate: the kinds declared to a server of that version. */
function capabilityGates(declared: DeclaredCapabilities): Readonly<Record<ProtocolVersion, CapabilityCheck>> {
  const gate = (version: ProtocolVersion) => {
    const capabilities = clientCapabilitiesFor(version, declared);
    return createCapabilityCheck({
      sampling: capabilities.sampling !== undefined,
      elicitation: capabilities.elicitation !== undefined,
      roots: capabilities.roots !== undefined,
    });
  };
  return Object.freeze({
    [MODERN_PROTOCOL_VERSION]: gate(MODERN_PROTOCOL_VERSION),
    "2025-11-25": gate("2025-11-25"),
    "2025-06-18": gate("2025-06-18"),
  });
}

/** What a server is told when answering its request threw: the cause goes to the decision event only. */
export const HANDLER_THREW = "Internal error while answering the input request";

/**
 * What the chain says of a request whose call's deadline (`maxTotalTimeout`, or a parked call's `stateTtl`)
 * ended it while it was being answered (its event says `"timeout"`); and what a legacy server is answered for
 * any request whose call ended before it was answered, which it did not cancel and still waits for.
 */
export const CALL_ENDED = "The request was not answered: the call it belongs to has ended";

/**
 * Calls the handler (or whoever answers for it) under its deadline and the request's signal, then judges its
 * answer: a timeout, a cancellation, a throw, a deferral or the handler's own `{ error }` stop the chain
 * here. A synchronous answer is judged at once, without a promise.
 */
function answer(
  prepared: Prepared,
  invoke: (lazy: LazySignal) => unknown,
  options: {
    readonly signal: AbortSignal | undefined;
    readonly timers: Timers;
    readonly clock: Clock;
    readonly trace: RunTrace | undefined;
  },
): ChainResult | Promise<ChainResult> {
  const { clock, trace } = options;
  const startedAt = trace === undefined ? 0 : clock.now();
  const invoked = invokeHandler(invoke, {
    timeoutMs: prepared.timeoutMs,
    parent: options.signal,
    timers: options.timers,
  });
  const settle = (outcome: Invocation): ChainResult => {
    if (trace !== undefined) trace.handlerMs = clock.now() - startedAt;
    return judged(prepared, outcome, trace);
  };
  return invoked instanceof Promise ? invoked.then(settle) : settle(invoked);
}

/** The chain's result for how the handler's call ended; what the answer check changed goes to `trace`. */
function judged(prepared: Prepared, outcome: Invocation, trace: RunTrace | undefined): ChainResult {
  switch (outcome.kind) {
    case "timeout":
      return failed(
        "timeout",
        // The option to raise: elicitation has its own (a person answers); the other kinds share one.
        `Handler timed out after ${formatDuration(prepared.timeoutMs)} (handlerTimeout.${
          prepared.request.method === "elicitation/create" ? "elicitation" : "default"
        })`,
      );
    case "cancelled":
      // The call's own deadline ended it: the request timed out with it.
      if (outcome.reason instanceof DeadlineReached && outcome.reason.which !== "leg") {
        return { ...failed("timeout", CALL_ENDED), cause: outcome.reason };
      }
      return { ...failed("cancelled", "Request cancelled"), cause: outcome.reason };
    case "threw":
      return { ...failed("handler", HANDLER_THREW), cause: outcome.error };
  }
  if (isDeferral(outcome.value)) {
    // Keys written out, not spread: V8 builds an object slowly when keys follow a spread, and the gateway
    // defers every input request it passes to a caller.
    return {
      ok: false,
      stage: "deferred",
      refusal: { code: RefusalCode.InternalError, message: "The handler deferred the request to the caller" },
      request: prepared.request,
    };
  }
  let error: Refusal | undefined;
  try {
    error = handlerError(outcome.value);
  } catch (thrown) {
    // An `error` getter or a proxy trap that throws: reading the answer crashed like the handler.
    return { ...failed("handler", HANDLER_THREW), cause: thrown };
  }
  if (error !== undefined) return { ok: false, stage: "handler", refusal: error };
  const verdict = prepared.judge(outcome.value);
  if (!verdict.ok) return { ok: false, stage: "policy", refusal: verdict.refusal };
  if (trace !== undefined && verdict.changes !== undefined && verdict.changes.length > 0) {
    trace.changes = [...(trace.changes ?? []), ...verdict.changes];
  }
  return { ok: true, answer: verdict.value as never };
}

function failed(
  stage: "timeout" | "cancelled" | "handler" | "deferred",
  message: string,
): ChainResult & { ok: false } {
  return { ok: false, stage, refusal: { code: RefusalCode.InternalError, message } };
}

/**
 * A handler's `{ error: { code, message, data? } }`, `data` as a JSON copy (left out when it is
 * not JSON); a malformed one becomes `-32603`.
 *
 * @throws What reading the answer throws (an `error` getter, a proxy's trap).
 */
function handlerError(value: unknown): Refusal | undefined {
  if (typeof value !== "object" || value === null || !("error" in value)) return undefined;
  const error: unknown = (value as { error: unknown }).error;
  if (typeof error === "object" && error !== null) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    if (Number.isSafeInteger(code) && typeof message === "string") {
      const json = jsonCopy(data);
      return json === undefined
        ? { code: code as number, message }
        : { code: code as number, message, data: json };
    }
  }
  return { code: RefusalCode.InternalError, message: "Handler returned a malformed error" };
}

/** A JSON copy of a value, or `undefined` for none or one that is not JSON. */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
