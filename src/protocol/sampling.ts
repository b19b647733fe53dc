/**
 * `sampling/createMessage`: the request a server makes (a legacy JSON-RPC request, or a modern
 * `inputRequests` entry) and the client's answer, with a schema per protocol version.
 *
 * @module
 */
import * as v from "valibot";
import {
  decode,
  type Decoded,
  dispatch,
  failure,
  threwFailure,
  wireLooseObject,
  wireObject,
  type WireSchema,
} from "./decode.ts";
import {
  BasicAnswerBlockSchema,
  BasicContentBlockSchema,
  type Role,
  RoleSchema,
  SamplingAnswerBlockSchema,
  type SamplingContentBlock,
  SamplingContentBlockSchema,
} from "./content.ts";
import { type TaskMetadata, TaskMetadataSchema } from "./legacy-tasks.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";
import { SamplingToolSchema, type Tool } from "./tools.ts";
import type { ProtocolVersion } from "./versions.ts";
import { ownData } from "../_internal/is-object.ts";

/** One message of the conversation to sample from. */
export interface SamplingMessage {
  /** Who speaks. */
  readonly role: Role;
  /** One block, or (2025-11-25 and later) several. */
  readonly content: SamplingContentBlock | readonly SamplingContentBlock[];
  /** Metadata (2025-11-25 and later). */
  readonly _meta?: Meta;
}

/** A model name hint; keys other than `name` are the client's to interpret. */
export interface ModelHint {
  /** A substring of a model name. */
  readonly name?: string;
  /** Unspecified keys, kept. */
  readonly [key: string]: unknown;
}

/** The server's advisory model preferences. */
export interface ModelPreferences {
  /** Hints, in order of preference. */
  readonly hints?: readonly ModelHint[];
  /** 0 to 1: how much cost matters. */
  readonly costPriority?: number;
  /** 0 to 1: how much speed matters. */
  readonly speedPriority?: number;
  /** 0 to 1: how much capability matters. */
  readonly intelligencePriority?: number;
}

/** How the model may use tools (2025-11-25 and later). */
export interface ToolChoice {
  /** `"auto"` when absent. */
  readonly mode?: "auto" | "required" | "none";
}

/** The params of `sampling/createMessage`, every version (see each field for where it exists). */
export interface CreateMessageRequestParams {
  /** The conversation. */
  readonly messages: readonly SamplingMessage[];
  /** The most tokens to sample: any JSON number here (the checks judge it). */
  readonly maxTokens: number;
  /** A system prompt the client may change or drop. */
  readonly systemPrompt?: string;
  /** Advisory model preferences. */
  readonly modelPreferences?: ModelPreferences;
  /** Context to include; `"none"` when absent. */
  readonly includeContext?: "none" | "thisServer" | "allServers";
  /** Sampling temperature. */
  readonly temperature?: number;
  /** Stop sequences. */
  readonly stopSequences?: readonly string[];
  /** Provider-specific passthrough. */
  readonly metadata?: NullProtoRecord<unknown>;
  /** Tools the model may use (2025-11-25 and later). */
  readonly tools?: readonly Tool[];
  /** How the model may use them (2025-11-25 and later). */
  readonly toolChoice?: ToolChoice;
  /** Run as a task (2025-11-25 only). */
  readonly task?: TaskMetadata;
  /** Metadata (legacy only). */
  readonly _meta?: Meta;
}

/** The client's answer to `sampling/createMessage`. */
export interface CreateMessageResult {
  /** Who speaks: normally `"assistant"`. */
  readonly role: Role;
  /** One block, or (2025-11-25 and later) several. */
  readonly content: SamplingContentBlock | readonly SamplingContentBlock[];
  /** The model that answered. */
  readonly model: string;
  /** Why sampling stopped, e.g. `"endTurn"`, `"maxTokens"`, `"toolUse"`. */
  readonly stopReason?: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

const opt = v.exactOptional;
const unit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));

const ModelPreferencesSchema: WireSchema<ModelPreferences> = wireObject({
  hints: opt(v.array(wireLooseObject({ name: opt(v.string()) }))),
  costPriority: opt(unit),
  speedPriority: opt(unit),
  intelligencePriority: opt(unit),
});

const BlockOrBlocks = dispatch(
  Array.isArray,
  v.array(SamplingContentBlockSchema),
  SamplingContentBlockSchema,
);

const BasicMessage = wireObject({ role: RoleSchema, content: BasicContentBlockSchema });
const Message = wireObject({ role: RoleSchema, content: BlockOrBlocks, _meta: opt(MetaSchema) });

const baseEntries = {
  maxTokens: v.number(),
  systemPrompt: opt(v.string()),
  modelPreferences: opt(ModelPreferencesSchema),
  includeContext: opt(v.picklist(["none", "thisServer", "allServers"])),
  temperature: opt(v.number()),
  stopSequences: opt(v.array(v.string())),
  metadata: opt(objectMap(v.unknown())),
};

const toolEntries = {
  tools: opt(v.array(SamplingToolSchema)),
  toolChoice: opt(wireObject({ mode: opt(v.picklist(["auto", "required", "none"])) })),
};

/** `sampling/createMessage` params per protocol version; unknown keys are dropped. */
export const CreateMessageParamsSchemas: Readonly<
  Record<ProtocolVersion, WireSchema<CreateMessageRequestParams>>
> = {
  // 2025-06-18: one text/image/audio block per message, no tools, no task. `_meta` is allowed on
  // every request's params by that version's base `Request`.
  "2025-06-18": wireObject({ messages: v.array(BasicMessage), ...baseEntries, _meta: opt(MetaSchema) }),
  "2025-11-25": wireObject({
    messages: v.array(Message),
    ...baseEntries,
    ...toolEntries,
    task: opt(TaskMetadataSchema),
    _meta: opt(MetaSchema),
  }),
  "2026-07-28": wireObject({ messages: v.array(Message), ...baseEntries, ...toolEntries }),
};

const resultEntries = { model: v.string(), stopReason: opt(v.string()), _meta: opt(MetaSchema) };
// 2026-07-28 has no `resultType` here (not a `Result`), but keeps `_meta` from `SamplingMessage`.
const Result: WireSchema<CreateMessageResult> = wireObject({
  role: RoleSchema,
  content: dispatch(Array.isArray, v.array(SamplingAnswerBlockSchema), SamplingAnswerBlockSchema),
  ...resultEntries,
});

/**
 * `CreateMessageResult` per protocol version, held to the schema's formats and ranges (it is sent);
 * unknown keys (e.g. `resultType`) are dropped.
 */
const CreateMessageResultSchemas: Readonly<Record<ProtocolVersion, WireSchema<CreateMessageResult>>> = {
  "2025-06-18": wireObject({ role: RoleSchema, content: BasicAnswerBlockSchema, ...resultEntries }),
  "2025-11-25": Result,
  "2026-07-28": Result,
};

/**
 * Decodes the params of a sampling request as a protocol version defines them.
 *
 * @param version The protocol version of the session or request.
 * @param value The untrusted params.
 * @returns The params (unknown keys dropped), or a failure naming the path.
 */
export function decodeCreateMessageParams(
  version: ProtocolVersion,
  value: unknown,
): Decoded<CreateMessageRequestParams> {
  return decode(CreateMessageParamsSchemas[version], value);
}

/**
 * Decodes a sampling answer as a version defines it; in 2025-06-18 a `content` array of one block
 * is read as that block (as a later version's caller writes it).
 *
 * @param version The protocol version the answer is sent in.
 * @param value The untrusted answer.
 * @returns The answer (unknown keys dropped), or a failure naming the path.
 */
export function decodeCreateMessageResult(
  version: ProtocolVersion,
  value: unknown,
): Decoded<CreateMessageResult> {
  if (version !== "2025-06-18") return decode(CreateMessageResultSchemas[version], value);
  const content = ownData(value, "content");
  if (Array.isArray(content) && content.length !== 1) {
    // Said so, where the schema's failure would read "expected Object, received Array".
    const received = content.length === 0 ? "none" : `${content.length} in a list`;
    return failure("$.content", 'one content block (a list of blocks came with "2025-11-25")', received);
  }
  let answer = value;
  if (Array.isArray(content)) {
    try {
      answer = { ...value as object, content: content[0] };
    } catch (error) {
      return threwFailure(error);
    }
  }
  return decode(CreateMessageResultSchemas[version], answer);
}
