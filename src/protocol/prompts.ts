/**
 * Prompts: `prompts/list` and `prompts/get` results, forwarded untouched (unknown keys kept).
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import { type ContentBlock, ContentBlockSchema, type Role, RoleSchema } from "./content.ts";
import { type Icon, IconsSchema } from "./icon.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CacheScopeSchema, CompleteResultTypeSchema, TtlMsSchema } from "./result-type.ts";

/** An argument a prompt template takes. */
export interface PromptArgument {
  /** Programmatic name. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  /** What it is for. */
  readonly description?: string;
  /** Whether it must be given. */
  readonly required?: boolean;
}

/** A prompt or prompt template a server offers. */
export interface Prompt {
  /** Programmatic name, used in `prompts/get`. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  /** What it provides. */
  readonly description?: string;
  /** Its arguments. */
  readonly arguments?: readonly PromptArgument[];
  /** Icons. */
  readonly icons?: readonly Icon[];
  /** Metadata. */
  readonly _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who speaks. */
  readonly role: Role;
  /** One content block. */
  readonly content: ContentBlock;
}

/** The result of `prompts/list`. */
export interface ListPromptsResult {
  /** The prompts on this page. */
  readonly prompts: readonly Prompt[];
  /** Cursor of the next page, if any. */
  readonly nextCursor?: string;
  /** 2026-07-28: `"complete"` (absent from earlier servers). */
  readonly resultType?: "complete";
  /** 2026-07-28: how long the list may be cached, in ms. */
  readonly ttlMs?: number;
  /** 2026-07-28: who may share a cached copy. */
  readonly cacheScope?: "public" | "private";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** The final result of `prompts/get`. */
export interface GetPromptResult {
  /** What the prompt is. */
  readonly description?: string;
  /** The messages. */
  readonly messages: readonly PromptMessage[];
  /** 2026-07-28: `"complete"` (absent from earlier servers). */
  readonly resultType?: "complete";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

const opt = v.exactOptional;

const PromptArgumentSchema: WireSchema<PromptArgument> = wireLooseObject({
  name: v.string(),
  title: opt(v.string()),
  description: opt(v.string()),
  required: opt(v.boolean()),
});

/** A prompt; unknown keys are kept. */
const PromptSchema: WireSchema<Prompt> = wireLooseObject({
  name: v.string(),
  title: opt(v.string()),
  description: opt(v.string()),
  arguments: opt(v.array(PromptArgumentSchema)),
  icons: opt(IconsSchema),
  _meta: opt(MetaSchema),
});

/** The result of `prompts/list`; unknown keys are kept. */
const ListPromptsResultSchema: WireSchema<ListPromptsResult> = wireLooseObject({
  prompts: v.array(PromptSchema),
  nextCursor: opt(v.string()),
  resultType: CompleteResultTypeSchema,
  // ttlMs and cacheScope are required of 2026 servers, but only hints to a client: accepted missing.
  ttlMs: TtlMsSchema,
  cacheScope: CacheScopeSchema,
  _meta: opt(MetaSchema),
});

/** The final result of `prompts/get`; unknown keys are kept. */
export const GetPromptResultSchema: WireSchema<GetPromptResult> = wireLooseObject({
  description: opt(v.string()),
  messages: v.array(wireLooseObject({ role: RoleSchema, content: ContentBlockSchema })),
  resultType: CompleteResultTypeSchema,
  _meta: opt(MetaSchema),
});

/**
 * Decodes a `prompts/list` result (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeListPromptsResult(value: unknown): Decoded<ListPromptsResult> {
  return decode(ListPromptsResultSchema, value);
}

/**
 * Decodes the final result of `prompts/get` (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeGetPromptResult(value: unknown): Decoded<GetPromptResult> {
  return decode(GetPromptResultSchema, value);
}
