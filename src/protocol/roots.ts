/**
 * `roots/list`: the request a server makes (a legacy JSON-RPC request, or a modern
 * `inputRequests` entry) and the client's answer.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, wireObject, type WireSchema } from "./decode.ts";
import { type Meta, MetaSchema } from "./meta.ts";

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

/** `roots/list` params, every version; unknown keys are dropped. */
export const ListRootsParamsSchema: WireSchema<ListRootsRequestParams> = wireObject({
  _meta: v.exactOptional(MetaSchema),
});

/**
 * Decodes the params of a `roots/list` request; absent params decode as `{}`.
 *
 * @param value The untrusted params, or `undefined`.
 * @returns The params, or a failure naming the path.
 */
export function decodeListRootsParams(value: unknown): Decoded<ListRootsRequestParams> {
  return value === undefined ? { ok: true, value: {} } : decode(ListRootsParamsSchema, value);
}
