/**
 * `elicitation/create`: form and URL params per protocol version, and the client's answer.
 * `requestedSchema` is decoded loosely on purpose: the form check in `src/checks/` must see what
 * the server sent.
 *
 * @module
 */
import * as v from "valibot";
import {
  decode,
  type Decoded,
  failure,
  wireLooseObject,
  wireObject,
  type WireSchema,
  wireVariant,
} from "./decode.ts";
import { type TaskMetadata, TaskMetadataSchema } from "./legacy-tasks.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";
import type { ProtocolVersion } from "./versions.ts";
import { ownData } from "../_internal/is-object.ts";

/** The form a server asks for, as sent (not yet checked against the primitive subset). */
export interface RequestedSchema {
  /** Always `"object"`. */
  readonly type: "object";
  /** Property schemas by field name, each exactly as sent. */
  readonly properties: NullProtoRecord<NullProtoRecord<unknown>>;
  /** Names of required fields. */
  readonly required?: readonly string[];
  /** The JSON Schema dialect. */
  readonly $schema?: string;
  /** Any other keyword, kept for the policy check to judge. */
  readonly [keyword: string]: unknown;
}

/** Params of a form elicitation. */
export interface ElicitRequestFormParams {
  /** `"form"`, or absent (absent means form; 2025-06-18 has no `mode` at all). */
  readonly mode?: "form";
  /** Why the information is needed. */
  readonly message: string;
  /** The form. */
  readonly requestedSchema: RequestedSchema;
  /** Run as a task (2025-11-25 only). */
  readonly task?: TaskMetadata;
  /** Metadata (legacy only). */
  readonly _meta?: Meta;
}

/** Params of a URL elicitation (2025-11-25 and later). */
export interface ElicitRequestURLParams {
  /** Always `"url"`. */
  readonly mode: "url";
  /** Why the user should go there. */
  readonly message: string;
  /** The URL to open after consent; never fetched by sluice. */
  readonly url: string;
  /** 2025-11-25 only (required there): the server's opaque id of this elicitation. */
  readonly elicitationId?: string;
  /** Run as a task (2025-11-25 only). */
  readonly task?: TaskMetadata;
  /** Metadata (legacy only). */
  readonly _meta?: Meta;
}

/** 2025-11-25 URL elicitation params: the `elicitationId` is required. */
export interface LegacyUrlElicitParams extends ElicitRequestURLParams {
  /** The server's opaque id of this elicitation. */
  readonly elicitationId: string;
}

/** Params of `elicitation/create`. */
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** One answered field: 2025-06-18 has no `string[]` (multi-select). */
export type ElicitValue = string | number | boolean | readonly string[];

/** The client's answer to `elicitation/create`. */
export interface ElicitResult {
  /** `accept` (submitted or consented), `decline` (refused) or `cancel` (dismissed). */
  readonly action: "accept" | "decline" | "cancel";
  /** The form data, on a form `accept` only. */
  readonly content?: NullProtoRecord<ElicitValue>;
  /** Metadata (legacy only). */
  readonly _meta?: Meta;
}

const opt = v.exactOptional;

const RequestedSchemaSchema: WireSchema<RequestedSchema> = wireLooseObject({
  type: v.literal("object"),
  properties: objectMap(objectMap(v.unknown())),
  required: opt(v.array(v.string())),
  $schema: opt(v.string()),
});

const formEntries = {
  mode: opt(v.literal("form")),
  message: v.string(),
  requestedSchema: RequestedSchemaSchema,
};
const urlEntries = { mode: v.literal("url"), message: v.string(), url: v.string() };
const legacyEntries = { task: opt(TaskMetadataSchema), _meta: opt(MetaSchema) };

const LegacyUrl = wireObject({ ...urlEntries, elicitationId: v.string(), ...legacyEntries });

/** 2025-11-25 URL elicitation params, `elicitationId` required (also the entries of `-32042`). */
export const LegacyUrlElicitParamsSchema: WireSchema<LegacyUrlElicitParams> = LegacyUrl;

/** `elicitation/create` params per protocol version; unknown keys are dropped. */
export const ElicitParamsSchemas: Readonly<Record<ProtocolVersion, WireSchema<ElicitRequestParams>>> = {
  "2025-06-18": wireObject({
    message: v.string(),
    requestedSchema: RequestedSchemaSchema,
    _meta: opt(MetaSchema),
  }),
  "2025-11-25": wireVariant("mode", [wireObject({ ...formEntries, ...legacyEntries }), LegacyUrl]),
  "2026-07-28": wireVariant("mode", [wireObject(formEntries), wireObject(urlEntries)]),
};

/**
 * Decodes the params of an elicitation request as a protocol version defines them.
 *
 * @param version The protocol version of the session or request.
 * @param value The untrusted params.
 * @returns Form or URL params (unknown keys dropped), or a failure naming the path.
 */
export function decodeElicitParams(version: ProtocolVersion, value: unknown): Decoded<ElicitRequestParams> {
  const decoded = decode(ElicitParamsSchemas[version], value);
  // 2025-06-18 has no `mode`: a URL request would otherwise fail for lacking `requestedSchema`.
  if (!decoded.ok && version === "2025-06-18" && ownData(value, "mode") === "url") {
    return failure("$.mode", 'form mode only (URL mode came with "2025-11-25")', '"url"');
  }
  return decoded;
}

/**
 * Tells the mode of elicitation params: a missing `mode` is form mode.
 *
 * @param params Decoded params.
 * @returns `"form"` or `"url"`.
 */
export function elicitationModeOf(params: ElicitRequestParams): "form" | "url" {
  return params.mode === "url" ? "url" : "form";
}
