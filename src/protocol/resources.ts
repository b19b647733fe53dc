/**
 * Resources: `resources/list`, `resources/templates/list` and `resources/read` results, all
 * forwarded untouched (unknown keys kept).
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import {
  type Annotations,
  AnnotationsSchema,
  type ResourceContents,
  ResourceContentsSchema,
} from "./content.ts";
import { type Icon, IconsSchema } from "./icon.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { CacheScopeSchema, CompleteResultTypeSchema, TtlMsSchema } from "./result-type.ts";

/** Fields of resources and resource templates. */
export interface ResourceBase {
  /** Programmatic name. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  /** What it is. */
  readonly description?: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** Display hints. */
  readonly annotations?: Annotations;
  /** Icons. */
  readonly icons?: readonly Icon[];
  /** Metadata. */
  readonly _meta?: Meta;
}

/** A resource the server can read. */
export interface Resource extends ResourceBase {
  /** Its URI. */
  readonly uri: string;
  /** Size in bytes. */
  readonly size?: number;
}

/** A family of resources, by RFC 6570 URI template. */
export interface ResourceTemplate extends ResourceBase {
  /** The URI template. */
  readonly uriTemplate: string;
}

/** Fields of the resource results (`resources/list`, `resources/templates/list`, `resources/read`). */
export interface ResourceResultFields {
  /** 2026-07-28: `"complete"` (absent from earlier servers). */
  readonly resultType?: "complete";
  /** 2026-07-28: how long the result may be cached, in ms. */
  readonly ttlMs?: number;
  /** 2026-07-28: who may share a cached copy. */
  readonly cacheScope?: "public" | "private";
  /** Metadata. */
  readonly _meta?: Meta;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** The result of `resources/list`. */
export interface ListResourcesResult extends ResourceResultFields {
  /** The resources on this page. */
  readonly resources: readonly Resource[];
  /** Cursor of the next page, if any. */
  readonly nextCursor?: string;
}

/** The result of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends ResourceResultFields {
  /** The templates on this page. */
  readonly resourceTemplates: readonly ResourceTemplate[];
  /** Cursor of the next page, if any. */
  readonly nextCursor?: string;
}

/** The final result of `resources/read`. */
export interface ReadResourceResult extends ResourceResultFields {
  /** The contents (one resource may have several parts). */
  readonly contents: readonly ResourceContents[];
}

const opt = v.exactOptional;

const described = {
  name: v.string(),
  title: opt(v.string()),
  description: opt(v.string()),
  mimeType: opt(v.string()),
  annotations: opt(AnnotationsSchema),
  icons: opt(IconsSchema),
  _meta: opt(MetaSchema),
};

// ttlMs and cacheScope are required of 2026 servers, but only hints to a client: accepted missing.
const resultFields = {
  resultType: CompleteResultTypeSchema,
  ttlMs: TtlMsSchema,
  cacheScope: CacheScopeSchema,
};

/** A resource; unknown keys are kept. */
export const ResourceSchema: WireSchema<Resource> = wireLooseObject({
  ...described,
  uri: v.string(),
  size: opt(v.number()),
});

/** A resource template; unknown keys are kept. */
const ResourceTemplateSchema: WireSchema<ResourceTemplate> = wireLooseObject({
  ...described,
  uriTemplate: v.string(),
});

/** The result of `resources/list`; unknown keys are kept. */
const ListResourcesResultSchema: WireSchema<ListResourcesResult> = wireLooseObject({
  resources: v.array(ResourceSchema),
  nextCursor: opt(v.string()),
  ...resultFields,
  _meta: opt(MetaSchema),
});

/** The result of `resources/templates/list`; unknown keys are kept. */
const ListResourceTemplatesResultSchema: WireSchema<ListResourceTemplatesResult> = wireLooseObject({
  resourceTemplates: v.array(ResourceTemplateSchema),
  nextCursor: opt(v.string()),
  ...resultFields,
  _meta: opt(MetaSchema),
});

/** The final result of `resources/read`; unknown keys are kept. */
export const ReadResourceResultSchema: WireSchema<ReadResourceResult> = wireLooseObject({
  contents: v.array(ResourceContentsSchema),
  ...resultFields,
  _meta: opt(MetaSchema),
});

/**
 * Decodes a `resources/list` result (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeListResourcesResult(value: unknown): Decoded<ListResourcesResult> {
  return decode(ListResourcesResultSchema, value);
}

/**
 * Decodes a `resources/templates/list` result (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeListResourceTemplatesResult(value: unknown): Decoded<ListResourceTemplatesResult> {
  return decode(ListResourceTemplatesResultSchema, value);
}

/**
 * Decodes the final result of `resources/read` (any era).
 *
 * @param value The untrusted result.
 * @returns The result, or a failure naming the path.
 */
export function decodeReadResourceResult(value: unknown): Decoded<ReadResourceResult> {
  return decode(ReadResourceResultSchema, value);
}
