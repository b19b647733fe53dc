/**
 * The era-neutral input request the policy chain sees: what a server asks of the client, be it
 * the params of a legacy server→client JSON-RPC request or a modern `inputRequests` entry.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, nestFailure, wireObject, type WireSchema, wireVariant } from "./decode.ts";
import { decodeElicitParams, ElicitParamsSchemas, type ElicitRequestParams } from "./elicitation.ts";
import { type NullProtoRecord, objectMap } from "./null-proto-record.ts";
import { decodeListRootsParams, ListRootsParamsSchema, type ListRootsRequestParams } from "./roots.ts";
import { CreateMessageParamsSchemas, type CreateMessageRequestParams } from "./sampling.ts";
import { MODERN_PROTOCOL_VERSION, type ProtocolVersion } from "./versions.ts";

/** A request to sample an LLM. */
export interface SamplingInputRequest {
  /** Always `"sampling/createMessage"`. */
  readonly method: "sampling/createMessage";
  /** The decoded params. */
  readonly params: CreateMessageRequestParams;
}

/** A request to ask the user. */
export interface ElicitationInputRequest {
  /** Always `"elicitation/create"`. */
  readonly method: "elicitation/create";
  /** The decoded params. */
  readonly params: ElicitRequestParams;
}

/** A request for the client's roots. */
export interface RootsInputRequest {
  /** Always `"roots/list"`. */
  readonly method: "roots/list";
  /** The decoded params; `{}` when the server sent none. */
  readonly params: ListRootsRequestParams;
}

/** Anything a server may ask of the client. */
export type InputRequest = SamplingInputRequest | ElicitationInputRequest | RootsInputRequest;

/** Modern `inputRequests`: server-assigned keys (kept as ordinary keys) to input requests. */
export type InputRequests = NullProtoRecord<InputRequest>;

const MethodSchema = v.picklist(["sampling/createMessage", "elicitation/create", "roots/list"]);
const M = MODERN_PROTOCOL_VERSION;

/** One modern `inputRequests` entry (`{ method, params }`, no `jsonrpc`/`id`); variant on `method`. */
export const InputRequestSchema: WireSchema<InputRequest> = wireVariant("method", [
  wireObject({ method: v.literal("sampling/createMessage"), params: CreateMessageParamsSchemas[M] }),
  wireObject({ method: v.literal("elicitation/create"), params: ElicitParamsSchemas[M] }),
  wireObject({ method: v.literal("roots/list"), params: v.exactOptional(ListRootsParamsSchema, {}) }),
]);

/** Modern `inputRequests`; a `__proto__` key is an ordinary key. */
export const InputRequestsSchema: WireSchema<InputRequests> = objectMap(InputRequestSchema);

/**
 * Decodes an input request of either era (a legacy server→client request or an `inputRequests` entry).
 *
 * @param version The protocol version of the session (legacy) or request (modern).
 * @param method The untrusted method.
 * @param params The untrusted params (optional for `roots/list` only).
 * @returns The input request, or a failure located in `{ method, params }` (e.g. `$.method`).
 */
export function decodeInputRequest(
  version: ProtocolVersion,
  method: unknown,
  params: unknown,
): Decoded<InputRequest> {
  const known = decode(MethodSchema, method);
  if (!known.ok) return nestFailure("$.method", known);
  switch (known.value) {
    case "sampling/createMessage": {
      const decoded = decode(CreateMessageParamsSchemas[version], params);
      return decoded.ok
        ? { ok: true, value: { method: known.value, params: decoded.value } }
        : nestFailure("$.params", decoded);
    }
    case "elicitation/create": {
      const decoded = decodeElicitParams(version, params);
      return decoded.ok
        ? { ok: true, value: { method: known.value, params: decoded.value } }
        : nestFailure("$.params", decoded);
    }
    case "roots/list": {
      const decoded = decodeListRootsParams(params);
      return decoded.ok
        ? { ok: true, value: { method: known.value, params: decoded.value } }
        : nestFailure("$.params", decoded);
    }
  }
}
