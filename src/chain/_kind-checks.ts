/**
 * Each kind's own part of the chain, compiled once from the policy: the pre-checks that refuse a request or
 * rewrite a copy of it, then which callback answers it, within which time, and how its answer is judged. The
 * chain runs this after the capability gate and the budget; `steps` lists it for `sluice check`.
 *
 * @module
 */
import { type CompiledPolicy, createPolicyUrlCheck } from "../policy/compile-policy.ts";
import type { DeclaredCapabilities } from "../handler/capabilities.ts";
import type { Handler, InputChange } from "../handler/handler.ts";
import { type CreateMessageRequestParams, decodeCreateMessageResult } from "../protocol/sampling.ts";
import type {
  ElicitationInputRequest,
  InputRequest,
  RootsInputRequest,
  SamplingInputRequest,
} from "../protocol/input-request.ts";
import { eraOf, type ProtocolVersion } from "../protocol/versions.ts";
import { answerToolProblem, createSamplingToolsCheck } from "../checks/sampling-tools.ts";
import { createSamplingMaxTokensCheck } from "../checks/sampling-max-tokens.ts";
import { createSamplingIdleCheck } from "../checks/sampling-idle.ts";
import { createSamplingToolLoopCheck } from "../checks/sampling-tool-loop.ts";
import { checkSamplingToolResults } from "../checks/sampling-tool-results.ts";
import { createSamplingContextCheck } from "../checks/sampling-context.ts";
import { createElicitationModeCheck } from "../checks/elicitation-mode.ts";
import { createElicitationFormCheck } from "../checks/elicitation-form.ts";
import { checkElicitAnswer } from "../checks/elicitation-answer.ts";
import { checkRootsAnswer } from "../checks/roots-answer.ts";
import type { LazySignal } from "./invoke-handler.ts";
import { pass, RefusalCode, refuse, type Verdict } from "../checks/verdict.ts";
import { type BaseContext, FormContextImpl, InputContextImpl, UrlContextImpl } from "./_handler-contexts.ts";
import { quote } from "../_internal/quote.ts";

/** The name of a kind's step. */
export type KindStepName =
  | "tools"
  | "maxTokens"
  | "tool_result"
  | "idle"
  | "tool loop"
  | "context"
  | "mode"
  | "url"
  | "form"
  | "handler"
  | "answer";

/** One step of a kind, as `sluice check` lists it. */
export interface KindStep {
  /** Its name. */
  readonly name: KindStepName;
  /** The code it refuses with; `undefined` for a step that only rewrites. */
  readonly code: number | undefined;
  /** The one elicitation mode it checks, when it checks only one. */
  readonly mode?: "form" | "url";
  /** For `"handler"`: its deadline in milliseconds (the policy's `handlerTimeout` for the kind). */
  readonly timeoutMs?: number;
}

/** A request that passed its kind's pre-checks: who answers it, how long they have, how it is judged. */
export interface Prepared {
  /** The request as the checks left it. */
  readonly request: InputRequest;
  /** The handler's deadline (the policy's `handlerTimeout` for the kind). */
  readonly timeoutMs: number;
  /** Calls the handler's callback for the kind, with the context of the request. */
  readonly invoke: (base: BaseContext, lazy: LazySignal) => unknown;
  /**
   * Judges an answer: the handler's, or a downstream caller's in the front. A passing verdict may
   * say what the answer check changed (the roots it dropped or rewrote).
   */
  readonly judge: (answer: unknown) => Verdict<unknown> & { readonly changes?: readonly InputChange[] };
}

/** What the pre-checks know about a request besides itself. */
export interface PrepareContext {
  /** The protocol version it arrived in. */
  readonly version: ProtocolVersion;
  /** Whether a call to the server is in flight (legacy idle sampling). @default true */
  readonly callInFlight?: boolean;
}

/** The compiled per-kind part of one chain. */
export interface KindChecks {
  /** Runs a request's pre-checks (never modifying it): what to do next, or the first refusal. */
  prepare(request: InputRequest, context: PrepareContext): Verdict<Prepared>;
  /**
   * Each kind's steps in the order they run: its pre-checks (an elicitation's URL and form
   * checks each for their own mode), then `"handler"` and `"answer"`.
   */
  readonly steps: Readonly<Record<InputRequest["method"], readonly KindStep[]>>;
}

/** One kind's compiled part. */
interface Kind<R extends InputRequest> {
  prepare(request: R, context: PrepareContext): Verdict<Prepared>;
  readonly steps: readonly KindStep[];
}

/**
 * Compiles each kind's part of one chain, building every checker once. The chain's capability gate passes
 * only declared kinds, and a kind is declared only when the handler implements it, so every request that gets
 * here has a callback.
 *
 * @param policy The server's compiled policy.
 * @param declared What the client declares to the server.
 * @param handler The client's handler.
 * @returns The compiled checks.
 * @throws {TypeError} When a checker's options are not valid.
 */
export function compileKindChecks(
  policy: CompiledPolicy,
  declared: DeclaredCapabilities,
  handler: Handler,
): KindChecks {
  const sampling = compileSampling(policy, declared, handler);
  const elicitation = compileElicitation(policy, declared, handler);
  const roots = compileRoots(policy, handler);
  return Object.freeze({
    prepare(request: InputRequest, context: PrepareContext): Verdict<Prepared> {
      switch (request.method) {
        case "sampling/createMessage":
          return sampling.prepare(request, context);
        case "elicitation/create":
          return elicitation.prepare(request, context);
        case "roots/list":
          return roots.prepare(request, context);
      }
    },
    steps: {
      "sampling/createMessage": sampling.steps,
      "elicitation/create": elicitation.steps,
      "roots/list": roots.steps,
    },
  });
}

/** One sampling pre-check: passes the params on (perhaps a rewritten copy), or refuses. */
interface SamplingStep extends KindStep {
  check(params: CreateMessageRequestParams, context: PrepareContext): Verdict<CreateMessageRequestParams>;
}

/** Sampling: its pre-checks run in the order of their list, then the handler and the answer. */
function compileSampling(
  policy: CompiledPolicy,
  declared: DeclaredCapabilities,
  handler: Handler,
): Kind<SamplingInputRequest> {
  const preChecks = samplingPreChecks(policy, declared);
  const timeoutMs = policy.handlerTimeoutMs.default;
  return {
    prepare(request: SamplingInputRequest, context: PrepareContext): Verdict<Prepared> {
      let params = request.params;
      for (const step of preChecks) {
        const verdict = step.check(params, context);
        if (!verdict.ok) return verdict;
        params = verdict.value;
      }
      return pass({
        request: { method: request.method, params },
        timeoutMs,
        invoke: (base, lazy) => handler.sampling!(params, new InputContextImpl(base, lazy)),
        judge: (answer) => {
          const decoded = decodeCreateMessageResult(context.version, answer);
          // Where and what was expected, not what was received: the refusal goes to the server,
          // and the answer it quotes may hold what the person meant only for the model.
          const problem = decoded.ok
            ? answerToolProblem(params, decoded.value)
            : `${decoded.path}: expected ${decoded.expected}`;
          return problem === undefined && decoded.ok
            ? pass(decoded.value)
            : refuse(RefusalCode.InternalError, `Sampling answer refused: ${problem}`);
        },
      });
    },
    steps: [...preChecks.map(({ name, code }) => ({ name, code })), handlerStep(timeoutMs), ANSWER],
  };
}

/** Sampling's pre-checks, in the order they run. */
function samplingPreChecks(policy: CompiledPolicy, declared: DeclaredCapabilities): readonly SamplingStep[] {
  const s = policy.sampling;
  const invalid = RefusalCode.InvalidParams;
  const tools = createSamplingToolsCheck({ declared: declared.sampling?.tools === true });
  const maxTokens = createSamplingMaxTokensCheck({ maxTokens: s.maxTokens });
  const idle = createSamplingIdleCheck({ allowIdle: s.allowIdle, rejectionCode: s.rejectionCode });
  const toolLoop = createSamplingToolLoopCheck({
    maxToolIterations: s.maxToolIterations,
    rejectionCode: s.rejectionCode,
  });
  const context = createSamplingContextCheck({ allow: s.context });
  return Object.freeze([
    { name: "tools", code: invalid, check: (params) => tools.check(params) },
    { name: "maxTokens", code: invalid, check: (params) => maxTokens.check(params) },
    {
      name: "tool_result",
      code: invalid,
      check: (params) => keep(params, checkSamplingToolResults(params.messages)),
    },
    {
      name: "idle",
      code: s.rejectionCode,
      check: (params, { version, callInFlight = true }) =>
        eraOf(version) === "legacy" ? keep(params, idle.check(callInFlight)) : pass(params),
    },
    {
      name: "tool loop",
      code: s.rejectionCode,
      check: (params) => keep(params, toolLoop.check(params.messages)),
    },
    { name: "context", code: undefined, check: (params) => context.check(params) },
  ]);
}

/** Elicitation: the mode first, then the URL or the form it decides, the handler and the answer. */
function compileElicitation(
  policy: CompiledPolicy,
  declared: DeclaredCapabilities,
  handler: Handler,
): Kind<ElicitationInputRequest> {
  const e = policy.elicitation;
  const mode = createElicitationModeCheck(declared.elicitation?.modes ?? []);
  const url = createPolicyUrlCheck(policy);
  const form = createElicitationFormCheck({ maxFields: e.maxFields, maxEnumValues: e.maxEnumValues });
  const timeoutMs = policy.handlerTimeoutMs.elicitation;
  const invalid = RefusalCode.InvalidParams;
  return {
    prepare(request: ElicitationInputRequest, { version }: PrepareContext): Verdict<Prepared> {
      const params = request.params;
      const effective = mode.check("mode" in params ? params.mode : undefined);
      if (!effective.ok) return effective;
      if (effective.value === "url" && "url" in params) {
        const verdict = url.check(params, e.origin);
        if (!verdict.ok) return verdict;
        const { params: checked, context } = verdict.value;
        return pass({
          request: { method: request.method, params: checked },
          timeoutMs,
          invoke: (base, lazy) => handler.elicitation!(checked, new UrlContextImpl(base, lazy, context)),
          judge: (answer) => checkElicitAnswer(answer, { mode: "url" }),
        });
      }
      const verdict = form.check("requestedSchema" in params ? params.requestedSchema : undefined);
      if (!verdict.ok) return verdict;
      const { shape, fields } = verdict.value;
      // 2025-06-18's forms have no list field, and its answers no list to send back.
      const list = version === "2025-06-18"
        ? shape.fields.find((field) => field.kind === "multi")
        : undefined;
      if (list !== undefined) {
        return refuse(
          invalid,
          `Elicitation schema refused: property ${quote(list.name)}: expected a field of a 2025-06-18 form ` +
            "(text, number, boolean or single-select), received a multi-select, which that version does not have",
        );
      }
      return pass({
        request,
        timeoutMs,
        invoke: (base, lazy) => handler.elicitation!(params, new FormContextImpl(base, lazy, fields)),
        judge: (answer) => checkElicitAnswer(answer, { mode: "form", shape }),
      });
    },
    steps: [
      { name: "mode", code: invalid },
      { name: "url", code: invalid, mode: "url" },
      { name: "form", code: invalid, mode: "form" },
      handlerStep(timeoutMs),
      ANSWER,
    ],
  };
}

/** Roots: no pre-checks; the answer is filtered. */
function compileRoots(policy: CompiledPolicy, handler: Handler): Kind<RootsInputRequest> {
  const timeoutMs = policy.handlerTimeoutMs.default;
  return {
    prepare: (request: RootsInputRequest): Verdict<Prepared> =>
      pass({
        request,
        timeoutMs,
        invoke: (base, lazy) => handler.roots!(new InputContextImpl(base, lazy)),
        judge: checkRootsAnswer,
      }),
    steps: [handlerStep(timeoutMs), ANSWER],
  };
}

const ANSWER: KindStep = { name: "answer", code: RefusalCode.InternalError };

/** The handler's step, with its deadline. */
function handlerStep(timeoutMs: number): KindStep {
  return { name: "handler", code: RefusalCode.InternalError, timeoutMs };
}

/** Passes `params` on when a check that only judges them passes. */
function keep<T>(params: T, verdict: Verdict<void>): Verdict<T> {
  return verdict.ok ? pass(params) : verdict;
}
