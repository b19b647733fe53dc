/**
 * Modern `inputResponses`: the client's answers, keyed like the `inputRequests` they answer,
 * sent on the retry of the original request (or in `tasks/update`), and the params of that retry.
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, nestFailure } from "./decode.ts";
import { decodeElicitResult, type ElicitResult } from "./elicitation.ts";
import type { InputRequestMethod, InputRequests } from "./input-request.ts";
import type { JsonObject } from "./jsonrpc.ts";
import type { NullProtoRecord } from "./null-proto-record.ts";
import { objectMap } from "./_object-map.ts";
import { decodeListRootsResult, type ListRootsResult } from "./roots.ts";
import { type CreateMessageResult, decodeCreateMessageResult } from "./sampling.ts";
import { MODERN_PROTOCOL_VERSION } from "./versions.ts";
import { copyOwn } from "../_internal/copy.ts";

const ANY_MAP = objectMap(v.unknown());
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** An answer to one input request. */
export type InputResponse = CreateMessageResult | ElicitResult | ListRootsResult;

/** Answers keyed like the `inputRequests` they answer. */
export type InputResponses = NullProtoRecord<InputResponse>;

/**
 * Decodes one modern answer according to the method of the request it answers.
 *
 * @param method The method of the input request answered.
 * @param value The untrusted answer.
 * @returns The answer (unknown keys dropped), or a failure naming the path.
 */
export function decodeInputResponse(method: InputRequestMethod, value: unknown): Decoded<InputResponse> {
  switch (method) {
    case "sampling/createMessage":
      return decodeCreateMessageResult(MODERN_PROTOCOL_VERSION, value);
    case "elicitation/create":
      return decodeElicitResult(MODERN_PROTOCOL_VERSION, value);
    case "roots/list":
      return decodeListRootsResult(MODERN_PROTOCOL_VERSION, value);
  }
}

/**
 * Decodes a modern `inputResponses` map against the requests it answers (e.g. a downstream
 * caller's answers on its retry). Keys that answer no request are left out, as a server ignores
 * them; a missing answer is not a failure (the server re-asks).
 *
 * @param requests The requests that were asked.
 * @param value The untrusted map.
 * @returns A fresh prototype-free map, or a failure such as `$.github_login.action`.
 */
export function decodeInputResponses(requests: InputRequests, value: unknown): Decoded<InputResponses> {
  const map = decode(ANY_MAP, value);
  if (!map.ok) return map;
  const input = map.value;
  const out: Record<string, InputResponse> = Object.create(null);
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(requests, key)) continue;
    const request = requests[key];
    if (request === undefined) continue;
    const decoded = decodeInputResponse(request.method, input[key]);
    if (!decoded.ok) return nestFailure(keyPath(key), decoded);
    out[key] = decoded.value;
  }
  return { ok: true, value: out };
}

function keyPath(key: string): string {
  return IDENTIFIER.test(key) ? `$.${key}` : `$[${JSON.stringify(key)}]`;
}

/**
 * Builds the params of an MRTR retry: the original params unchanged, plus this round's
 * `inputResponses` (only when there are some) and the server's `requestState` (only when it sent
 * one, byte for byte). Any `inputResponses`/`requestState` already in `originalParams` is
 * replaced, never carried over.
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
  // `delete` only when there is something to delete: it turns the object into a slow dictionary
  // for V8, and the params are serialized once per round.
  if (Object.hasOwn(out, "inputResponses")) delete out.inputResponses;
  if (Object.hasOwn(out, "requestState")) delete out.requestState;
  const meta = out._meta;
  if (typeof meta === "object" && meta !== null && !Array.isArray(meta)) out._meta = copyOwn(meta);
  if (inputResponses !== undefined && Object.keys(inputResponses).length > 0) {
    out.inputResponses = copyOwn(inputResponses);
  }
  if (requestState !== undefined) out.requestState = requestState;
  return out;
}
