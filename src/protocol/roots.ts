/**
 * `roots/list`: the request a server makes (a legacy JSON-RPC request, or a modern
 * `inputRequests` entry) and the client's answer.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireObject, type WireSchema } from "./decode.ts";
import { type Meta, MetaSchema } from "./meta.ts";
import type { ProtocolVersion } from "./versions.ts";

/** A directory or file the server may work on. */
export interface Root {
  /** A `file://` URI. */
  readonly uri: string;
  /** Display name. */
  readonly name?: string;
  /** Metadata. */
  readonly _meta?: Meta;
}

/** Params of `roots/list` (optional on the wire; decoded as `{}` when absent). */
export interface ListRootsRequestParams {
  /** Metadata. */
  readonly _meta?: Meta;
}

/** The client's answer to `roots/list`. */
export interface ListRootsResult {
  /** The roots exposed. */
  readonly roots: readonly Root[];
  /** Metadata (legacy only). */
  readonly _meta?: Meta;
}

const opt = v.exactOptional;

const RootSchema: WireSchema<Root> = wireObject({
  uri: v.string(),
  name: opt(v.string()),
  _meta: opt(MetaSchema),
});

/** `roots/list` params, every version; unknown keys are dropped. */
export const ListRootsParamsSchema: WireSchema<ListRootsRequestParams> = wireObject({
  _meta: opt(MetaSchema),
});

const LegacyResult: WireSchema<ListRootsResult> = wireObject({
  roots: v.array(RootSchema),
  _meta: opt(MetaSchema),
});

/** `ListRootsResult` per protocol version; unknown keys are dropped (2026-07-28 has no `_meta`). */
export const ListRootsResultSchemas: Readonly<Record<ProtocolVersion, WireSchema<ListRootsResult>>> = {
  "2025-06-18": LegacyResult,
  "2025-11-25": LegacyResult,
  "2026-07-28": wireObject({ roots: v.array(RootSchema) }),
};

/**
 * Decodes the params of a `roots/list` request; absent params decode as `{}`.
 *
 * @param value The untrusted params, or `undefined`.
 * @returns The params, or a failure naming the path.
 */
export function decodeListRootsParams(value: unknown): Decoded<ListRootsRequestParams> {
  return value === undefined ? { ok: true, value: {} } : decode(ListRootsParamsSchema, value);
}

/**
 * Decodes a roots answer (a handler's, or a downstream caller's) as a version defines it.
 *
 * @param version The protocol version the answer is sent in.
 * @param value The untrusted answer.
 * @returns The answer (unknown keys dropped), or a failure naming the path.
 */
export function decodeListRootsResult(version: ProtocolVersion, value: unknown): Decoded<ListRootsResult> {
  return decode(ListRootsResultSchemas[version], value);
}

/**
 * Builds the wire form of a roots answer: fresh objects, `_meta` kept in legacy versions only
 * (on the list; a root's own `_meta` exists in every version).
 *
 * @param version The protocol version the answer is sent in.
 * @param result The answer; never mutated.
 * @returns A new object: the legacy JSON-RPC `result`, or the modern `inputResponses` value.
 */
export function encodeListRootsResult(version: ProtocolVersion, result: ListRootsResult): ListRootsResult {
  const roots = result.roots.map((root): Root => {
    const out: { -readonly [K in keyof Root]: Root[K] } = { uri: root.uri };
    if (root.name !== undefined) out.name = root.name;
    if (root._meta !== undefined) out._meta = { ...root._meta };
    return out;
  });
  return result._meta !== undefined && version !== "2026-07-28"
    ? { roots, _meta: { ...result._meta } }
    : { roots };
}
