/**
 * Modern `inputResponses`: the client's answers, keyed like the `inputRequests` they answer,
 * sent on the retry of the original request (or in `tasks/update`), and the params of that retry.
 *
 * @module
 */
import type { ElicitResult } from "./elicitation.ts";
import type { JsonObject } from "./jsonrpc.ts";
import type { NullProtoRecord } from "./null-proto-record.ts";
import type { ListRootsResult } from "./roots.ts";
import type { CreateMessageResult } from "./sampling.ts";
import { copyOwn } from "../_internal/copy.ts";
import { isObject } from "../_internal/is-object.ts";

/** An answer to one input request. */
export type InputResponse = CreateMessageResult | ElicitResult | ListRootsResult;

/** Answers keyed like the `inputRequests` they answer. */
export type InputResponses = NullProtoRecord<InputResponse>;

/**
 * Builds the params of an MRTR retry: the original params plus this round's `inputResponses` and
 * the server's `requestState` (byte for byte), each only when present; old ones are never carried over.
 *
 * @param originalParams The params of the original request (with its `_meta`); never mutated.
 * @param inputResponses This round's answers, by input request key.
 * @param requestState The `requestState` of the `InputRequiredResult`, if it had one.
 * @returns New params; `_meta` and `inputResponses` are fresh copies.
 * @example
 * ```ts
 * import { buildRetryParams } from "./input-responses.ts";
 * const params = buildRetryParams({ name: "deploy" }, undefined, "opaque");
 * console.log(params); // { name: "deploy", requestState: "opaque" }
 * ```
 */
export function buildRetryParams(
  originalParams: JsonObject,
  inputResponses: InputResponses | undefined,
  requestState: string | undefined,
): JsonObject {
  const out = copyOwn(originalParams);
  // `delete` only when needed: it makes the object a slow dictionary for V8.
  if (Object.hasOwn(out, "inputResponses")) delete out.inputResponses;
  if (Object.hasOwn(out, "requestState")) delete out.requestState;
  const meta = out._meta;
  if (isObject(meta)) out._meta = copyOwn(meta);
  if (inputResponses !== undefined && Object.keys(inputResponses).length > 0) {
    out.inputResponses = copyOwn(inputResponses);
  }
  if (requestState !== undefined) out.requestState = requestState;
  return out;
}
