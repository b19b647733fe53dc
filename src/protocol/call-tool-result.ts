/**
 * The final result of `tools/call`, forwarded untouched: unknown keys are kept.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type ContentBlock, ContentBlockSchema } from "./content.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CompleteResultTypeSchema } from "./result-type.ts";

/** The final result of a tool call. */
export interface CallToolResult {
  /** Unstructured result. */
  readonly content: readonly ContentBlock[];
  /** Structured result: an object (legacy) or any JSON value (2026-07-28). */
  readonly structuredContent?: unknown;
  /** Whether the tool failed (the error is then in `content`). */
  readonly isError?: boolean;
  /** 2026-07-28: `"complete"` (absent from earlier servers). */
  readonly resultType?: "complete";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** The final result of `tools/call`; unknown keys are kept. */
export const CallToolResultSchema: WireSchema<CallToolResult> = wireLooseObject({
  content: v.array(ContentBlockSchema),
  structuredContent: v.exactOptional(v.unknown()),
  isError: v.exactOptional(v.boolean()),
  resultType: CompleteResultTypeSchema,
  _meta: v.exactOptional(MetaSchema),
});

/**
 * Decodes the final result of `tools/call` (a legacy result, a modern complete one, or the
 * `result` of a completed task).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeCallToolResult(value: unknown): Decoded<CallToolResult> {
  return decode(CallToolResultSchema, value);
}
