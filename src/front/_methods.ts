/**
 * The caller's requests the front relays upstream as they are, in both eras (the calls that may
 * ask for input are `MRTR_METHODS` of `protocol/input-required.ts`), and the check of a list's
 * result before it is relayed: the decoder the client's own list method uses, so a caller is
 * never handed a list that sluice's client would refuse.
 *
 * @module
 */
import type { Decoded } from "../protocol/decode.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { decodeListPromptsResult } from "../protocol/prompts.ts";
import { decodeListResourcesResult, decodeListResourceTemplatesResult } from "../protocol/resources.ts";
import { decodeListToolsResult } from "../protocol/tools.ts";
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

/** The client's decoder of each list result (`listTools`, `listResources`, …). */
const LIST_DECODERS: ReadonlyMap<string, ResultDecoder> = new Map<string, ResultDecoder>([
  ["tools/list", decodeListToolsResult],
  ["resources/list", decodeListResourcesResult],
  ["resources/templates/list", decodeListResourceTemplatesResult],
  ["prompts/list", decodeListPromptsResult],
]);

/**
 * An upstream's result of a relayed request, once a list's is one the client's own list method
 * takes (other methods' results pass as they are).
 *
 * @param result The upstream's result; never modified.
 * @param method The request's method.
 * @param serverId The server's id.
 * @returns The same result.
 * @throws {ClientError} `"protocol"`, as the client's list method throws, when a list's result
 *   is not valid (e.g. `prompts/list` without `prompts`).
 */
export function checkedRelayResult(result: JsonObject, method: string, serverId: string): JsonObject {
  const decoded = LIST_DECODERS.get(method)?.(result);
  if (decoded !== undefined && !decoded.ok) throw invalidResult(serverId, method, decoded.message);
  return result;
}
