/**
 * Decoders for the requests a modern client sends, as the sluice front receives them from the
 * hosts behind it (it is a 2026-07-28 server to them): `tools/call`, `resources/read`,
 * `prompts/get`, the list methods and `server/discover`. Each requires the request `_meta`.
 * Unknown params are kept, so the front can forward what it does not know.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireLooseObject, type WireSchema } from "./decode.ts";
import type { DiscoverRequestParams } from "./discover.ts";
import { type JsonObject, JsonObjectSchema } from "./jsonrpc.ts";
import { type RequestMetaObject, RequestMetaSchema } from "./meta.ts";
import type { NullProtoRecord } from "./null-proto-record.ts";
import { objectMap } from "./_object-map.ts";

/** Fields of the params of every modern request. */
export interface ModernParamsBase {
  /** The request metadata. */
  readonly _meta: RequestMetaObject;
  /** Keys this version of sluice does not know. */
  readonly [key: string]: unknown;
}

/** Fields of the params of the three MRTR methods. */
export interface RetryFields {
  /** Answers from the previous round, still undecoded: decode them with `decodeInputResponses`. */
  readonly inputResponses?: NullProtoRecord<JsonObject>;
  /** The opaque state of the previous round. */
  readonly requestState?: string;
}

/** Params of an incoming `tools/call`. */
export interface CallToolRequestParams extends ModernParamsBase, RetryFields {
  /** The tool name. */
  readonly name: string;
  /** Its arguments, keys kept as sent. */
  readonly arguments?: NullProtoRecord<unknown>;
}

/** Params of an incoming `resources/read`. */
export interface ReadResourceRequestParams extends ModernParamsBase, RetryFields {
  /** The resource URI. */
  readonly uri: string;
}

/** Params of an incoming `prompts/get`. */
export interface GetPromptRequestParams extends ModernParamsBase, RetryFields {
  /** The prompt name. */
  readonly name: string;
  /** Template arguments. */
  readonly arguments?: NullProtoRecord<string>;
}

/** Params of an incoming list request. */
export interface PaginatedRequestParams extends ModernParamsBase {
  /** The cursor of the page wanted. */
  readonly cursor?: string;
}

const opt = v.exactOptional;
const retry = {
  _meta: RequestMetaSchema,
  inputResponses: opt(objectMap(JsonObjectSchema)),
  requestState: opt(v.string()),
};

const CallToolParamsSchema: WireSchema<CallToolRequestParams> = wireLooseObject({
  name: v.string(),
  arguments: opt(objectMap(v.unknown())),
  ...retry,
});

const ReadResourceParamsSchema: WireSchema<ReadResourceRequestParams> = wireLooseObject({
  uri: v.string(),
  ...retry,
});

const GetPromptParamsSchema: WireSchema<GetPromptRequestParams> = wireLooseObject({
  name: v.string(),
  arguments: opt(objectMap(v.string())),
  ...retry,
});

const PaginatedParamsSchema: WireSchema<PaginatedRequestParams> = wireLooseObject({
  cursor: opt(v.string()),
  _meta: RequestMetaSchema,
});

const DiscoverParamsSchema: WireSchema<DiscoverRequestParams & ModernParamsBase> = wireLooseObject({
  _meta: RequestMetaSchema,
});

/**
 * Decodes the params of an incoming modern `tools/call`.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure such as `$._meta["io.modelcontextprotocol/protocolVersion"]`.
 */
export function decodeCallToolRequestParams(value: unknown): Decoded<CallToolRequestParams> {
  return decode(CallToolParamsSchema, value);
}

/**
 * Decodes the params of an incoming modern `resources/read`.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeReadResourceRequestParams(value: unknown): Decoded<ReadResourceRequestParams> {
  return decode(ReadResourceParamsSchema, value);
}

/**
 * Decodes the params of an incoming modern `prompts/get`.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeGetPromptRequestParams(value: unknown): Decoded<GetPromptRequestParams> {
  return decode(GetPromptParamsSchema, value);
}

/**
 * Decodes the params of an incoming modern list request (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`).
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodePaginatedRequestParams(value: unknown): Decoded<PaginatedRequestParams> {
  return decode(PaginatedParamsSchema, value);
}

/**
 * Decodes the params of an incoming `server/discover`.
 *
 * @param value The untrusted params.
 * @returns The params, or a failure naming the path.
 */
export function decodeDiscoverRequestParams(
  value: unknown,
): Decoded<DiscoverRequestParams & ModernParamsBase> {
  return decode(DiscoverParamsSchema, value);
}
