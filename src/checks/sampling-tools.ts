/**
 * Sampling checks on tools: a request's `tools` and `toolChoice` are allowed only when the client
 * declared `sampling.tools` (the spec's "client MUST return an error" rule), and an answer's tool
 * calls must be ones the request allowed.
 *
 * @module
 */
import type { CreateMessageRequestParams, CreateMessageResult } from "../protocol/sampling.ts";
import { quote } from "../_internal/quote.ts";
import { pass, type Verdict } from "./verdict.ts";
import { samplingRefusal } from "./_sampling-refusal.ts";

/** The fields of a sampling request this check reads. */
export interface SamplingToolsInput {
  /** Tools offered to the model. */
  readonly tools?: readonly unknown[];
  /** How the model should use them. */
  readonly toolChoice?: unknown;
}

/** The check built by {@linkcode createSamplingToolsCheck}. */
export interface SamplingToolsCheck {
  /** Refuses `tools`/`toolChoice` when `sampling.tools` was not declared. */
  check<P extends SamplingToolsInput>(params: P): Verdict<P>;
}

/**
 * Builds the check.
 *
 * @param options `declared`: whether the client declared `sampling.tools`.
 * @returns The frozen check.
 * @example
 * ```ts
 * import { createSamplingToolsCheck } from "./sampling-tools.ts";
 * const { check } = createSamplingToolsCheck({ declared: false });
 * console.log(check({ tools: [] }).ok); // false
 * ```
 */
export function createSamplingToolsCheck(options: { readonly declared: boolean }): SamplingToolsCheck {
  const declared = options.declared;
  return Object.freeze({
    check<P extends SamplingToolsInput>(params: P): Verdict<P> {
      if (declared || (params.tools === undefined && params.toolChoice === undefined)) return pass(params);
      const field = params.tools === undefined ? "toolChoice" : "tools";
      return samplingRefusal(
        `"${field}" requires the sampling.tools capability, which this client did not declare`,
      );
    },
  });
}

/**
 * Why an answer's `tool_use` blocks, which the server would run, do not fit the request: it offered
 * no tools, set `toolChoice` to `"none"` (the spec: "Model MUST NOT use any tools"), or not that one.
 *
 * @param params The request as the handler got it.
 * @param answer The decoded answer.
 * @returns What is wrong, in words for a refusal, or `undefined` when every call fits.
 * @example
 * ```ts
 * import { answerToolProblem } from "./sampling-tools.ts";
 * const tools = [{ name: "search", inputSchema: { type: "object" as const } }];
 * const call = { type: "tool_use", id: "c1", name: "rm", input: {} } as const;
 * console.log(answerToolProblem({ tools }, { content: [call] }));
 * // expected "tool_use" blocks for the offered tools ("search") only, received one calling "rm"
 * ```
 */
export function answerToolProblem(
  params: Pick<CreateMessageRequestParams, "tools" | "toolChoice">,
  answer: Pick<CreateMessageResult, "content">,
): string | undefined {
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  for (const block of blocks) {
    if (block.type !== "tool_use") continue;
    const calling = `received one calling ${quote(block.name)}`;
    const offered = params.tools ?? [];
    if (offered.length === 0) {
      return `expected no "tool_use" block (the request offered no tools), ${calling}`;
    }
    if (params.toolChoice?.mode === "none") {
      return `expected no "tool_use" block (the request's toolChoice is "none"), ${calling}`;
    }
    if (!offered.some((tool) => tool.name === block.name)) {
      const names = offered.map((tool) => quote(tool.name)).join(", ");
      return `expected "tool_use" blocks for the offered tools (${names}) only, ${calling}`;
    }
  }
  return undefined;
}
