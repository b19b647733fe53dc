/**
 * The part of the chain that differs per kind. `prepare` runs the kind's pre-checks (refuse, or
 * rewrite a copy) and says how to call the handler and how to judge its answer; `run` then calls
 * the handler under its deadline; `checkAnswer` judges an answer from elsewhere (a downstream
 * caller's, in the front) against the request as `prepare` leaves it. Every checker is built
 * once, here, from the policy.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { DeclaredCapabilities } from "../handler/capabilities.ts";
import type { Handler } from "../handler/handler.ts";
import { decodeCreateMessageResult } from "../protocol/sampling.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import { eraOf, type ProtocolVersion } from "../protocol/versions.ts";
import { formatDuration } from "../policy/duration.ts";
import { createSamplingToolsCheck } from "../checks/sampling-tools.ts";
import { createSamplingMaxTokensCheck } from "../checks/sampling-max-tokens.ts";
import { createSamplingIdleCheck } from "../checks/sampling-idle.ts";
import { createSamplingToolLoopCheck } from "../checks/sampling-tool-loop.ts";
import { createSamplingToolResultsCheck } from "../checks/sampling-tool-results.ts";
import { createSamplingContextCheck } from "../checks/sampling-context.ts";
import { createElicitationModeCheck } from "../checks/elicitation-mode.ts";
import { createElicitationUrlCheck } from "../checks/elicitation-url.ts";
import { createElicitationFormCheck } from "../checks/elicitation-form.ts";
import { checkElicitAnswer } from "../checks/elicitation-answer.ts";
import { createRootsAnswerCheck } from "../checks/roots-answer.ts";
import { invokeHandler, type LazySignal } from "./invoke-handler.ts";
import { isDeferral } from "./deferral.ts";
import type { Timers } from "../_internal/timers.ts";
import { pass, RefusalCode, type Verdict } from "./verdict.ts";
import type { Clock } from "../_internal/clock.ts";
import type { ChainResult, RunContext } from "./chain.ts";
import { changesOf } from "./decision.ts";
import { type BaseContext, FormContextImpl, InputContextImpl, UrlContextImpl } from "./_handler-contexts.ts";

export type { BaseContext } from "./_handler-contexts.ts";

/** The per-kind part of a chain. */
export interface KindRunners {
  /**
   * Runs a request that passed the gate and the budget; `trace`, when given, receives the
   * request as the pre-checks left it and the handler's time (for decision events).
   */
  run(request: InputRequest, context: RunContext, base: BaseContext, trace?: RunTrace): Promise<ChainResult>;
  /** Post-checks an answer from elsewhere against the request as the pre-checks leave it. */
  checkAnswer(request: InputRequest, answer: unknown, version: ProtocolVersion): Verdict<unknown>;
}

/** What a run reports besides its result. */
export interface RunTrace {
  /** The request as the pre-checks left it (when they passed). */
  checked?: InputRequest;
  /** How long the handler took (ms), when it ran. */
  handlerMs?: number;
}

/** Options of {@linkcode createKindRunners}. */
export interface KindRunnerOptions {
  readonly policy: CompiledPolicy;
  readonly handler: Handler;
  readonly declared: DeclaredCapabilities;
  readonly timers: Timers;
  /** Times the handler for decision events. */
  readonly clock: Clock;
}

/** A request that passed its pre-checks: what to call and how to judge the answer. */
interface Prepared {
  /** The request as the checks left it. */
  readonly request: InputRequest;
  readonly timeoutMs: number;
  /** Calls the handler (undefined when it has no callback for the kind). */
  readonly invoke: ((base: BaseContext, lazy: LazySignal) => unknown) | undefined;
  readonly judge: (answer: unknown) => Verdict<unknown>;
}

const HANDLER_THREW = "Internal error while answering the input request";
const NOT_DECLARED = "This client did not declare the capability";

/**
 * Builds the per-kind runners of one chain.
 *
 * @param options Policy, handler, declared kinds and timers.
 * @returns The runners.
 */
export function createKindRunners(options: KindRunnerOptions): KindRunners {
  const { policy, handler, declared, timers, clock } = options;
  const s = policy.sampling;
  const e = policy.elicitation;
  const tools = createSamplingToolsCheck({ declared: declared.sampling?.tools === true });
  const maxTokens = createSamplingMaxTokensCheck({ maxTokens: s.maxTokens });
  const idle = createSamplingIdleCheck({ allowIdle: s.allowIdle, rejectionCode: s.rejectionCode });
  const toolLoop = createSamplingToolLoopCheck({
    maxToolIterations: s.maxToolIterations,
    rejectionCode: s.rejectionCode,
  });
  const toolResults = createSamplingToolResultsCheck();
  const includeContext = createSamplingContextCheck({ allow: s.context });
  const mode = createElicitationModeCheck(declared.elicitation?.modes ?? []);
  const url = createElicitationUrlCheck({
    ...(e.allowHosts === undefined ? {} : { allowHosts: e.allowHosts }),
    denyHosts: e.denyHosts,
    allowIpHosts: e.allowIpHosts,
    allowPrivateHosts: e.allowPrivateHosts,
    maxUrlLength: e.maxUrlLength,
  });
  const form = createElicitationFormCheck({ maxFields: e.maxFields, maxEnumValues: e.maxEnumValues });
  const rootsAnswer = createRootsAnswerCheck();
  const refuseAnswer = (message: string) => ({
    ok: false as const,
    refusal: { code: RefusalCode.InternalError, message },
  });

  const prepare = (
    request: InputRequest,
    version: ProtocolVersion,
    callInFlight: boolean,
  ): Verdict<Prepared> => {
    switch (request.method) {
      case "sampling/createMessage": {
        const fn = handler.sampling;
        let checked = tools.check(request.params);
        if (checked.ok) checked = maxTokens.check(checked.value);
        if (!checked.ok) return checked;
        const mixed = toolResults.check(checked.value.messages);
        if (!mixed.ok) return mixed;
        const idleVerdict = eraOf(version) === "legacy" ? idle.check(callInFlight) : pass(undefined);
        if (!idleVerdict.ok) return idleVerdict;
        const loop = toolLoop.check(checked.value.messages);
        if (!loop.ok) return loop;
        const rewritten = includeContext.check(checked.value);
        const params = rewritten.ok ? rewritten.value : checked.value;
        return pass({
          request: { method: request.method, params },
          timeoutMs: policy.handlerTimeoutMs.default,
          invoke: fn === undefined ? undefined : (base, lazy) => fn(params, new InputContextImpl(base, lazy)),
          judge: (answer) => {
            const decoded = decodeCreateMessageResult(version, answer);
            return decoded.ok
              ? pass(decoded.value)
              : refuseAnswer(`Sampling answer refused: ${decoded.message}`);
          },
        });
      }
      case "elicitation/create": {
        const fn = handler.elicitation;
        const params = request.params;
        const effective = mode.check("mode" in params ? params.mode : undefined);
        if (!effective.ok) return effective;
        const timeoutMs = policy.handlerTimeoutMs.elicitation;
        if (effective.value === "url" && "url" in params) {
          const verdict = url.check(params, e.origin);
          if (!verdict.ok) return verdict;
          const { params: checked, context: extra } = verdict.value;
          return pass({
            request: { method: request.method, params: checked },
            timeoutMs,
            invoke: fn === undefined
              ? undefined
              : (base, lazy) => fn(checked, new UrlContextImpl(base, lazy, extra)),
            judge: (answer) => checkElicitAnswer(answer, { mode: "url" }),
          });
        }
        const verdict = form.check("requestedSchema" in params ? params.requestedSchema : undefined);
        if (!verdict.ok) return verdict;
        const { shape, fields } = verdict.value;
        return pass({
          request,
          timeoutMs,
          invoke: fn === undefined
            ? undefined
            : (base, lazy) => fn(params, new FormContextImpl(base, lazy, fields)),
          judge: (answer) => checkElicitAnswer(answer, { mode: "form", shape }),
        });
      }
      case "roots/list": {
        const fn = handler.roots;
        return pass({
          request,
          timeoutMs: policy.handlerTimeoutMs.default,
          invoke: fn === undefined ? undefined : (base, lazy) => fn(new InputContextImpl(base, lazy)),
          judge: (answer) => rootsAnswer.check(answer),
        });
      }
    }
  };

  const invoke = async (
    prepared: Prepared,
    context: RunContext,
    base: BaseContext,
    trace: RunTrace | undefined,
  ): Promise<ChainResult> => {
    const fn = prepared.invoke;
    if (fn === undefined) {
      return {
        ok: false,
        stage: "capability",
        refusal: { code: RefusalCode.MethodNotFound, message: NOT_DECLARED },
      };
    }
    const startedAt = trace === undefined ? 0 : clock.now();
    const outcome = await invokeHandler((lazy) => fn(base, lazy), {
      timeoutMs: prepared.timeoutMs,
      parent: context.signal,
      timers,
    });
    if (trace !== undefined) trace.handlerMs = clock.now() - startedAt;
    switch (outcome.kind) {
      case "timeout":
        return failed(
          "timeout",
          RefusalCode.InternalError,
          `Handler timed out after ${formatDuration(prepared.timeoutMs)}`,
        );
      case "cancelled":
        return {
          ...failed("cancelled", RefusalCode.InternalError, "Request cancelled"),
          cause: outcome.reason,
        };
      case "threw":
        return { ...failed("handler", RefusalCode.InternalError, HANDLER_THREW), cause: outcome.error };
    }
    if (isDeferral(outcome.value)) {
      return {
        ...failed("deferred", RefusalCode.InternalError, "The handler deferred the request to the caller"),
        request: prepared.request,
      };
    }
    const error = handlerError(outcome.value);
    if (error !== undefined) return { ok: false, stage: "handler", refusal: error };
    const verdict = prepared.judge(outcome.value);
    return verdict.ok
      ? { ok: true, answer: verdict.value as never }
      : { ok: false, stage: "policy", refusal: verdict.refusal };
  };

  return Object.freeze({
    run: async (
      request: InputRequest,
      context: RunContext,
      base: BaseContext,
      trace?: RunTrace,
    ): Promise<ChainResult> => {
      const prepared = prepare(request, context.version, context.callInFlight ?? true);
      if (!prepared.ok) return { ok: false, stage: "policy", refusal: prepared.refusal };
      if (trace !== undefined) trace.checked = prepared.value.request;
      const changes = changesOf(request, prepared.value.request);
      return await invoke(prepared.value, context, changes.length === 0 ? base : { ...base, changes }, trace);
    },
    checkAnswer: (request: InputRequest, answer: unknown, version: ProtocolVersion): Verdict<unknown> => {
      const prepared = prepare(request, version, true);
      return prepared.ok ? prepared.value.judge(answer) : prepared;
    },
  });
}

function failed(
  stage: "timeout" | "cancelled" | "handler" | "deferred",
  code: number,
  message: string,
): ChainResult & { ok: false } {
  return { ok: false, stage, refusal: { code, message } };
}

/** A handler's `{ error: { code, message } }`; a malformed one becomes `-32603`. */
function handlerError(value: unknown): { code: number; message: string } | undefined {
  if (typeof value !== "object" || value === null || !("error" in value)) return undefined;
  const error: unknown = (value as { error: unknown }).error;
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (Number.isSafeInteger(code) && typeof message === "string") return { code: code as number, message };
  }
  return { code: RefusalCode.InternalError, message: "Handler returned a malformed error" };
}
