/**
 * Modern `inputResponses`: the client's answers, keyed like the `inputRequests` they answer,
 * sent on the retry of the original request (or in `tasks/update`).
 *
 * @module
 */
import * as v from "valibot";
import { decode, type Decoded, nestFailure } from "./decode.ts";
import { decodeElicitResult, type ElicitResult } from "./elicitation.ts";
import type { InputRequestMethod, InputRequests } from "./input-request.ts";
import type { NullProtoRecord } from "./null-proto-record.ts";
import { objectMap } from "./_object-map.ts";
import { decodeListRootsResult, type ListRootsResult } from "./roots.ts";
import { type CreateMessageResult, decodeCreateMessageResult } from "./sampling.ts";
import { MODERN_PROTOCOL_VERSION } from "./versions.ts";

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
