/**
 * The part of the chain that differs per kind: each kind's pre-checks, the handler call, and the
 * post-checks of its answer. Every checker is built once, here, from the policy.
 *
 * @module
 */
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { DeclaredCapabilities } from "../handler/capabilities.ts";
import type {
  FormElicitationContext,
  Handler,
  InputContext,
  UrlElicitationContext,
} from "../handler/handler.ts";
import type { CreateMessageRequestParams } from "../protocol/sampling.ts";
import { decodeCreateMessageResult } from "../protocol/sampling.ts";
import type { ElicitRequestParams } from "../protocol/elicitation.ts";
import type { InputRequest } from "../protocol/input-request.ts";
import { formatDuration } from "../policy/duration.ts";
import { createSamplingToolsCheck } from "../checks/sampling-tools.ts";
import { createSamplingMaxTokensCheck } from "../checks/sampling-max-tokens.ts";
import { createSamplingIdleCheck } from "../checks/sampling-idle.ts";
import { createSamplingToolLoopCheck } from "../checks/sampling-tool-loop.ts";
import { createSamplingContextCheck } from "../checks/sampling-context.ts";
import { createElicitationModeCheck } from "../checks/elicitation-mode.ts";
import { createElicitationUrlCheck } from "../checks/elicitation-url.ts";
import { createElicitationFormCheck } from "../checks/elicitation-form.ts";
import { checkElicitAnswer, type ElicitAnswerRequest } from "../checks/elicitation-answer.ts";
import { createRootsAnswerCheck } from "../checks/roots-answer.ts";
import { invokeHandler, type LazySignal } from "./invoke-handler.ts";
import type { Timers } from "./timers.ts";
import { RefusalCode, type Verdict } from "./verdict.ts";
import type { ChainResult, RunContext } from "./chain.ts";

/** What every callback's context holds before the signal is added. */
export type BaseContext = Omit<InputContext, "signal">;

/** The per-kind part of a chain. */
export interface KindRunners {
  /** Runs a request that passed the gate and the budget. */
  run(request: InputRequest, context: RunContext, base: BaseContext): Promise<ChainResult>;
}

/** Options of {@linkcode createKindRunners}. */
export interface KindRunnerOptions {
  readonly policy: CompiledPolicy;
  readonly handler: Handler;
  readonly declared: DeclaredCapabilities;
  readonly timers: Timers;
}

type Context = RunContext;

const HANDLER_THREW = "Internal error while answering the input request";

/**
 * Builds the per-kind runners of one chain.
 *
 * @param options Policy, handler, declared kinds and timers.
 * @returns The runners.
 */
export function createKindRunners(options: KindRunnerOptions): KindRunners {
  const { policy, handler, declared, timers } = options;
  const s = policy.sampling;
  const e = policy.elicitation;
  const tools = createSamplingToolsCheck({ declared: declared.sampling?.tools === true });
  const maxTokens = createSamplingMaxTokensCheck({ maxTokens: s.maxTokens });
  const idle = createSamplingIdleCheck({ allowIdle: s.allowIdle, rejectionCode: s.rejectionCode });
  const toolLoop = createSamplingToolLoopCheck({
    maxToolIterations: s.maxToolIterations,
    rejectionCode: s.rejectionCode,
  });
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

  const call = async (
    fn: (lazy: LazySignal) => unknown,
    timeoutMs: number,
    context: Context,
    judge: (answer: unknown) => Verdict<unknown>,
  ): Promise<ChainResult> => {
    const outcome = await invokeHandler(fn, { timeoutMs, parent: context.signal, timers });
    switch (outcome.kind) {
      case "timeout":
        return refused(
          "timeout",
          RefusalCode.InternalError,
          `Handler timed out after ${formatDuration(timeoutMs)}`,
        );
      case "cancelled":
        return {
          ok: false,
          stage: "cancelled",
          refusal: { code: RefusalCode.InternalError, message: "Request cancelled" },
          cause: outcome.reason,
        };
      case "threw":
        return {
          ok: false,
          stage: "handler",
          refusal: { code: RefusalCode.InternalError, message: HANDLER_THREW },
          cause: outcome.error,
        };
    }
    const error = handlerError(outcome.value);
    if (error !== undefined) return { ok: false, stage: "handler", refusal: error };
    const verdict = judge(outcome.value);
    return verdict.ok
      ? { ok: true, answer: verdict.value as never }
      : { ok: false, stage: "policy", refusal: verdict.refusal };
  };

  const sampling = (
    params: CreateMessageRequestParams,
    context: Context,
    base: BaseContext,
  ): Promise<ChainResult> | ChainResult => {
    const fn = handler.sampling;
    if (fn === undefined) {
      return refused("capability", RefusalCode.MethodNotFound, "Sampling is not declared");
    }
    let checked = tools.check(params);
    if (checked.ok) checked = maxTokens.check(checked.value);
    if (!checked.ok) return refused("policy", checked.refusal.code, checked.refusal.message);
    const era = base.era;
    const gates = [
      era === "legacy" ? idle.check(context.callInFlight ?? true) : undefined,
      toolLoop.check(checked.value.messages),
    ];
    for (const gate of gates) {
      if (gate !== undefined && !gate.ok) return refused("policy", gate.refusal.code, gate.refusal.message);
    }
    const rewritten = includeContext.check(checked.value);
    const final = rewritten.ok ? rewritten.value : checked.value;
    const version = context.version;
    return call(
      (lazy) => fn(final, new InputContextImpl(base, lazy)),
      policy.handlerTimeoutMs.default,
      context,
      (answer) => {
        const decoded = decodeCreateMessageResult(version, answer);
        return decoded.ok ? { ok: true, value: decoded.value } : {
          ok: false,
          refusal: {
            code: RefusalCode.InternalError,
            message: `Sampling answer refused: ${decoded.message}`,
          },
        };
      },
    );
  };

  const elicitation = (
    params: ElicitRequestParams,
    context: Context,
    base: BaseContext,
  ): Promise<ChainResult> | ChainResult => {
    const fn = handler.elicitation;
    if (fn === undefined) {
      return refused("capability", RefusalCode.MethodNotFound, "Elicitation is not declared");
    }
    const effective = mode.check("mode" in params ? params.mode : undefined);
    if (!effective.ok) return refused("policy", effective.refusal.code, effective.refusal.message);
    const timeoutMs = policy.handlerTimeoutMs.elicitation;
    if (effective.value === "url" && "url" in params) {
      const verdict = url.check(params, e.origin);
      if (!verdict.ok) return refused("policy", verdict.refusal.code, verdict.refusal.message);
      const { params: checked, context: extra } = verdict.value;
      return call(
        (lazy) => fn(checked, new UrlContextImpl(base, lazy, extra)),
        timeoutMs,
        context,
        (answer) => checkElicitAnswer(answer, { mode: "url" }),
      );
    }
    const schema = "requestedSchema" in params ? params.requestedSchema : undefined;
    const verdict = form.check(schema);
    if (!verdict.ok) return refused("policy", verdict.refusal.code, verdict.refusal.message);
    const request: ElicitAnswerRequest = { mode: "form", shape: verdict.value.shape };
    return call(
      (lazy) => fn(params, new FormContextImpl(base, lazy, verdict.value.fields)),
      timeoutMs,
      context,
      (answer) => checkElicitAnswer(answer, request),
    );
  };

  const roots = (context: Context, base: BaseContext): Promise<ChainResult> | ChainResult => {
    const fn = handler.roots;
    if (fn === undefined) return refused("capability", RefusalCode.MethodNotFound, "Roots are not declared");
    return call(
      (lazy) => fn(new InputContextImpl(base, lazy)),
      policy.handlerTimeoutMs.default,
      context,
      (answer) => rootsAnswer.check(answer),
    );
  };

  return Object.freeze({
    run: async (request: InputRequest, context: Context, base: BaseContext): Promise<ChainResult> => {
      switch (request.method) {
        case "sampling/createMessage":
          return await sampling(request.params, context, base);
        case "elicitation/create":
          return await elicitation(request.params, context, base);
        case "roots/list":
          return await roots(context, base);
      }
    },
  });
}

// The callbacks' contexts are small classes: `signal` is a getter on the prototype (made on first
// read), and on Node 20 both an object literal with a getter and a spread followed by new keys
// take V8's slow paths (hundreds of nanoseconds each), where a class costs about ten.

class InputContextImpl implements InputContext {
  readonly client: string;
  readonly serverId: string;
  readonly era: "modern" | "legacy";
  readonly assigns: Readonly<Record<string, unknown>>;
  readonly relatedRequestId: InputContext["relatedRequestId"];
  readonly #lazy: LazySignal;

  constructor(base: BaseContext, lazy: LazySignal) {
    this.client = base.client;
    this.serverId = base.serverId;
    this.era = base.era;
    this.assigns = base.assigns;
    this.relatedRequestId = base.relatedRequestId;
    this.#lazy = lazy;
  }

  get signal(): AbortSignal {
    return this.#lazy.signal;
  }
}

class FormContextImpl extends InputContextImpl implements FormElicitationContext {
  readonly mode = "form" as const;
  readonly fields: FormElicitationContext["fields"];

  constructor(base: BaseContext, lazy: LazySignal, fields: FormElicitationContext["fields"]) {
    super(base, lazy);
    this.fields = fields;
  }
}

class UrlContextImpl extends InputContextImpl implements UrlElicitationContext {
  readonly mode = "url" as const;
  readonly url: string;
  readonly host: string;
  readonly idn: boolean;
  readonly originMismatch: boolean;

  constructor(
    base: BaseContext,
    lazy: LazySignal,
    extra: Pick<UrlElicitationContext, "url" | "host" | "idn" | "originMismatch">,
  ) {
    super(base, lazy);
    this.url = extra.url;
    this.host = extra.host;
    this.idn = extra.idn;
    this.originMismatch = extra.originMismatch;
  }
}

function refused(stage: "capability" | "policy" | "timeout", code: number, message: string): ChainResult {
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
