/**
 * MRTR (2026-07-28): the `input_required` result of `tools/call`, `resources/read` or
 * `prompts/get`, and the classification of any result of those three methods.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type CallToolResult, CallToolResultSchema } from "./call-tool-result.ts";
import { type InputRequests, InputRequestsSchema } from "./input-request.ts";
import { JsonObjectSchema } from "./jsonrpc.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { type GetPromptResult, GetPromptResultSchema } from "./prompts.ts";
import { type ReadResourceResult, ReadResourceResultSchema } from "./resources.ts";
import { readResultType } from "./result-type.ts";
import { type CreateTaskResult, CreateTaskResultSchema } from "./tasks.ts";

/** A result asking the client for input before it retries the original request. */
export interface InputRequiredResult {
  /** Always `"input_required"`. */
  readonly resultType: "input_required";
  /** What to answer before retrying, by server-assigned key. */
  readonly inputRequests?: InputRequests;
  /** Opaque state to echo byte for byte on the retry; never inspected. */
  readonly requestState?: string;
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** The methods a server may answer with `input_required`. */
export type MrtrMethod = "tools/call" | "resources/read" | "prompts/get";

/** The methods a server may answer with `input_required` ({@linkcode MrtrMethod}); it must not on any other. */
export const MRTR_METHODS: ReadonlySet<string> = new Set<MrtrMethod>([
  "tools/call",
  "resources/read",
  "prompts/get",
]);

/** The final result of each MRTR method. */
export interface CompleteResultOf {
  /** `tools/call`. */
  readonly "tools/call": CallToolResult;
  /** `resources/read`. */
  readonly "resources/read": ReadResourceResult;
  /** `prompts/get`. */
  readonly "prompts/get": GetPromptResult;
}

/** A classified result of an MRTR method. */
export type ModernResult<M extends MrtrMethod> =
  | { readonly resultType: "complete"; readonly result: CompleteResultOf[M] }
  | { readonly resultType: "input_required"; readonly result: InputRequiredResult }
  | { readonly resultType: "task"; readonly result: CreateTaskResult };

/** Options of {@linkcode decodeModernResult}. */
export interface ModernResultOptions {
  /** Whether this request declared the tasks extension (so a `tools/call` may become a task). */
  readonly tasks: boolean;
}

/** An `InputRequiredResult`; unknown keys kept; at least one of the two fields required. */
const InputRequiredResultSchema: WireSchema<InputRequiredResult> = v.pipe(
  wireLooseObject({
    resultType: v.literal("input_required"),
    inputRequests: v.exactOptional(InputRequestsSchema),
    requestState: v.exactOptional(v.string()),
    _meta: v.exactOptional(MetaSchema),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (
      dataset.typed && dataset.value.inputRequests === undefined && dataset.value.requestState === undefined
    ) {
      addIssue({ expected: '"inputRequests" or "requestState"', received: "neither" });
    }
  }),
);

const COMPLETE: { readonly [M in MrtrMethod]: WireSchema<CompleteResultOf[M]> } = {
  "tools/call": CallToolResultSchema,
  "resources/read": ReadResourceResultSchema,
  "prompts/get": GetPromptResultSchema,
};

/**
 * Classifies and decodes a modern result of an MRTR method: an absent `resultType` is `"complete"`,
 * and `"task"` is accepted only for `tools/call` with the tasks extension declared.
 *
 * @param method The method of the original request.
 * @param value The untrusted result.
 * @param options Whether tasks were declared.
 * @returns The classified, decoded result, or a failure naming the path.
 * @example
 * ```ts
 * import { decodeModernResult } from "./input-required.ts";
 * const r = decodeModernResult("tools/call", { resultType: "input_required", requestState: "s" }, { tasks: false });
 * console.log(r.ok && r.value.resultType); // input_required
 * ```
 */
export function decodeModernResult<M extends MrtrMethod>(
  method: M,
  value: unknown,
  options: ModernResultOptions,
): Decoded<ModernResult<M>> {
  const object = decode(JsonObjectSchema, value);
  if (!object.ok) return object;
  const kind = readResultType(object.value, { task: options.tasks && method === "tools/call" });
  if (!kind.ok) return kind;
  switch (kind.value) {
    case "complete": {
      const result = decode(COMPLETE[method], value);
      return result.ok ? { ok: true, value: { resultType: "complete", result: result.value } } : result;
    }
    case "input_required": {
      const result = decode(InputRequiredResultSchema, value);
      return result.ok ? { ok: true, value: { resultType: "input_required", result: result.value } } : result;
    }
    case "task": {
      const result = decode(CreateTaskResultSchema, value);
      return result.ok ? { ok: true, value: { resultType: "task", result: result.value } } : result;
    }
  }
}
