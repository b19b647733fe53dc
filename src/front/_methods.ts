/**
 * The caller's requests the front relays upstream as they are, in both eras (the calls that may
 * ask for input are `MRTR_METHODS` of `protocol/input-required.ts`), and the check of each result
 * before it is relayed.
 *
 * @module
 */
import type { Decoded } from "../protocol/decode.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { decodeListPromptsResult } from "../protocol/prompts.ts";
import { decodeListResourcesResult, decodeListResourceTemplatesResult } from "../protocol/resources.ts";
import { decodeListToolsResult } from "../protocol/tools.ts";
import { decodeCompleteResult } from "../protocol/completion.ts";
import { decodeLegacyListTasksResult, decodeLegacyTaskResult } from "../protocol/legacy-tasks.ts";
import { invalidResult } from "../client/modern/failure-errors.ts";

/** The requests relayed upstream as they are: nothing in them asks for input. */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "completion/complete",
]);

/** How the client decodes a result. */
type ResultDecoder = (value: unknown) => Decoded<unknown>;

/**
 * The decoder of each relayed result: the client's own for a list, so a caller is never handed a
 * list sluice's client would refuse; 2025-11-25's for tasks (only a legacy upstream's are relayed).
 */
const RESULT_DECODERS: ReadonlyMap<string, ResultDecoder> = new Map<string, ResultDecoder>([
  ["tools/list", decodeListToolsResult],
  ["resources/list", decodeListResourcesResult],
  ["resources/templates/list", decodeListResourceTemplatesResult],
  ["prompts/list", decodeListPromptsResult],
  ["completion/complete", decodeCompleteResult],
  ["tasks/get", decodeLegacyTaskResult],
  ["tasks/cancel", decodeLegacyTaskResult],
  ["tasks/list", decodeLegacyListTasksResult],
]);

/**
 * An upstream's result of a relayed request, once it fits its method's result (a subscription's
 * is any object, which the JSON-RPC decoder already required).
 *
 * @param result The upstream's result; never modified.
 * @param method The request's method.
 * @param serverId The server's id.
 * @returns The same result.
 * @throws {ClientError} `"protocol"`, as the client's list method throws, when the result is not
 *   valid (e.g. `prompts/list` without `prompts`, a completion of 101 values).
 */
export function checkedRelayResult(result: JsonObject, method: string, serverId: string): JsonObject {
  const decoded = RESULT_DECODERS.get(method)?.(result);
  if (decoded !== undefined && !decoded.ok) throw invalidResult(serverId, method, decoded.message);
  return result;
}
