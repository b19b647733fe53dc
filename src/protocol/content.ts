/**
 * Content blocks: text, image, audio, resource links, embedded resources, and the sampling-only
 * `tool_use` / `tool_result`. Each schema comes loose (keeps unknown keys, for results forwarded),
 * strict (drops them, for sampling requests) and as an answer (strict, and held to the MCP
 * schema's formats and ranges, which received blocks are not).
 *
 * @module
 */
import * as v from "valibot";
import { dispatch, wireLooseObject, wireObject, type WireSchema, wireVariant } from "./decode.ts";
import { type Icon, IconsSchema } from "./icon.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { isAbsoluteUri } from "../_internal/uri.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";

/** Who a message or content is for or from. */
export type Role = "user" | "assistant";

/** A role. */
export const RoleSchema: WireSchema<Role> = v.picklist(["user", "assistant"]);

/** Display hints for a client; never trusted for decisions. */
export interface Annotations {
  /** The intended audience. */
  readonly audience?: readonly Role[];
  /** Importance from 0 to 1 (held to its range only in an answer sluice sends). */
  readonly priority?: number;
  /** ISO 8601 time of the last modification. */
  readonly lastModified?: string;
}

/** Fields every content block may carry. */
export interface ContentBlockBase {
  /** Display hints. */
  readonly annotations?: Annotations;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Text. */
export interface TextContent extends ContentBlockBase {
  /** Always `"text"`. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/** An image, base64-encoded. */
export interface ImageContent extends ContentBlockBase {
  /** Always `"image"`. */
  readonly type: "image";
  /** Base64 data. */
  readonly data: string;
  /** E.g. `"image/png"`. */
  readonly mimeType: string;
}

/** Audio, base64-encoded. */
export interface AudioContent extends ContentBlockBase {
  /** Always `"audio"`. */
  readonly type: "audio";
  /** Base64 data. */
  readonly data: string;
  /** E.g. `"audio/wav"`. */
  readonly mimeType: string;
}

/** A link to a resource the server can read. */
export interface ResourceLink extends ContentBlockBase {
  /** Always `"resource_link"`. */
  readonly type: "resource_link";
  /** The resource URI. */
  readonly uri: string;
  /** Programmatic name. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  /** What the resource is. */
  readonly description?: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** Its size in bytes. */
  readonly size?: number;
  /** Icons. */
  readonly icons?: readonly Icon[];
}

/** The text contents of a resource. */
export interface TextResourceContents {
  /** The resource URI. */
  readonly uri: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** The text. */
  readonly text: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** The binary contents of a resource. */
export interface BlobResourceContents {
  /** The resource URI. */
  readonly uri: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** Base64 data. */
  readonly blob: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Text or binary resource contents. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource embedded in a result. */
export interface EmbeddedResource extends ContentBlockBase {
  /** Always `"resource"`. */
  readonly type: "resource";
  /** The contents. */
  readonly resource: ResourceContents;
}

/** A model's request to call a tool (sampling, 2025-11-25 and later). */
export interface ToolUseContent {
  /** Always `"tool_use"`. */
  readonly type: "tool_use";
  /** Id matched by the `tool_result`. */
  readonly id: string;
  /** The tool name. */
  readonly name: string;
  /** The arguments. */
  readonly input: NullProtoRecord<unknown>;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** The result of a tool use (sampling, 2025-11-25 and later). */
export interface ToolResultContent {
  /** Always `"tool_result"`. */
  readonly type: "tool_result";
  /** The `id` of the `tool_use` answered. */
  readonly toolUseId: string;
  /** Unstructured result. */
  readonly content: readonly ContentBlock[];
  /** Structured result: any JSON value. */
  readonly structuredContent?: unknown;
  /** Whether the tool failed. */
  readonly isError?: boolean;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** A block of a tool result or prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A block of a 2025-06-18 sampling message: text, image or audio. */
export type BasicContentBlock = TextContent | ImageContent | AudioContent;

/** A block of a sampling message (2025-11-25 and later). */
export type SamplingContentBlock = BasicContentBlock | ToolUseContent | ToolResultContent;

const opt = v.exactOptional;
type ObjectFactory = <E extends v.ObjectEntries>(
  entries: E,
) => v.ObjectSchema<E, undefined> | v.LooseObjectSchema<E, undefined>;

/** What an answer's fields must be, by the MCP schema: `format: "byte"`, `format: "uri"`, ranges. */
const SENT = {
  priority: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  base64: v.pipe(v.string(), v.base64()),
  uri: v.pipe(v.string(), v.check(isAbsoluteUri, "an absolute URI")),
  size: v.pipe(v.number(), v.safeInteger()),
};
const RECEIVED = { priority: v.number(), base64: v.string(), uri: v.string(), size: v.number() };

function buildBlocks(object: ObjectFactory, fields: typeof SENT | typeof RECEIVED) {
  const annotations = object({
    audience: opt(v.array(RoleSchema)),
    priority: opt(fields.priority),
    lastModified: opt(v.string()),
  });
  const extras = { annotations: opt(annotations), _meta: opt(MetaSchema) };
  const text = object({ type: v.literal("text"), text: v.string(), ...extras });
  const image = object({ type: v.literal("image"), data: fields.base64, mimeType: v.string(), ...extras });
  const audio = object({ type: v.literal("audio"), data: fields.base64, mimeType: v.string(), ...extras });
  const contentsBase = { uri: fields.uri, mimeType: opt(v.string()), _meta: opt(MetaSchema) };
  // No discriminator: contents with a `text` key are text contents, the others must be blobs.
  const contents = dispatch(
    (input) => typeof input === "object" && input !== null && Object.hasOwn(input, "text"),
    object({ ...contentsBase, text: v.string() }),
    object({ ...contentsBase, blob: fields.base64 }),
  );
  const link = object({
    type: v.literal("resource_link"),
    uri: fields.uri,
    name: v.string(),
    title: opt(v.string()),
    description: opt(v.string()),
    mimeType: opt(v.string()),
    size: opt(fields.size),
    icons: opt(IconsSchema),
    ...extras,
  });
  const resource = object({ type: v.literal("resource"), resource: contents, ...extras });
  const block = wireVariant("type", [text, image, audio, link, resource]);
  return { annotations, text, image, audio, contents, block };
}

const LOOSE = buildBlocks(wireLooseObject, RECEIVED);
const STRICT = buildBlocks(wireObject, RECEIVED);
const ANSWER = buildBlocks(wireObject, SENT);

/** Annotations of a result's content or resource; unknown keys are kept. */
export const AnnotationsSchema: WireSchema<Annotations> = LOOSE.annotations;

/** A content block of a result; unknown keys are kept. */
export const ContentBlockSchema: WireSchema<ContentBlock> = LOOSE.block;

/** Resource contents of a result; unknown keys are kept. */
export const ResourceContentsSchema: WireSchema<ResourceContents> = LOOSE.contents;

/** A 2025-06-18 sampling block (text, image or audio); unknown keys are dropped. */
export const BasicContentBlockSchema: WireSchema<BasicContentBlock> = wireVariant("type", [
  STRICT.text,
  STRICT.image,
  STRICT.audio,
]);

const ToolUse = wireObject({
  type: v.literal("tool_use"),
  id: v.string(),
  name: v.string(),
  input: objectMap(v.unknown()),
  _meta: opt(MetaSchema),
});

function toolResultOf(blocks: typeof STRICT) {
  return wireObject({
    type: v.literal("tool_result"),
    toolUseId: v.string(),
    content: v.array(blocks.block),
    structuredContent: opt(v.unknown()),
    isError: opt(v.boolean()),
    _meta: opt(MetaSchema),
  });
}

/** A sampling block (2025-11-25 and later); unknown keys are dropped. */
export const SamplingContentBlockSchema: WireSchema<SamplingContentBlock> = wireVariant("type", [
  STRICT.text,
  STRICT.image,
  STRICT.audio,
  ToolUse,
  toolResultOf(STRICT),
]);

/** A block of a 2025-06-18 sampling answer, held to the schema's formats; unknown keys are dropped. */
export const BasicAnswerBlockSchema: WireSchema<BasicContentBlock> = wireVariant("type", [
  ANSWER.text,
  ANSWER.image,
  ANSWER.audio,
]);

/** A block of a sampling answer (2025-11-25 and later), held to the schema's formats. */
export const SamplingAnswerBlockSchema: WireSchema<SamplingContentBlock> = wireVariant("type", [
  ANSWER.text,
  ANSWER.image,
  ANSWER.audio,
  ToolUse,
  toolResultOf(ANSWER),
]);
