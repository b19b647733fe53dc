/**
 * The front's sealed continuation state: what it needs to continue an `input_required` round on
 * the caller's retry, carried by the caller as the `requestState` the front sends down, so the
 * front keeps no memory between rounds. The state is authenticated (HMAC-SHA256), bound to the
 * server and to the original request, and short-lived; it is not encrypted, so the caller can
 * read it.
 *
 * Token: `v1.<base64url(canonical JSON of the state)>.<base64url(HMAC-SHA256)>`.
 *
 * @module
 */
import * as v from "valibot";
import { codecs } from "../_internal/encoding.ts";
import { sha256 } from "../_internal/sha256.ts";
import { secretKeyProblem } from "../_internal/secret-key.ts";
import { decode, refuseArrays } from "../protocol/decode.ts";
import { nullProtoRecord } from "../protocol/null-proto-record.ts";
import { canonicalJson, withoutPrototypes } from "./_canonical-json.ts";
import { openPayload, sealPayload, type StateKey, type StateRefusalReason, wrapKey } from "./_state-token.ts";

export type { StateKey, StateRefusalReason };

/** What the front carries from one round to the next, sealed in the `requestState` it sends down. */
export interface ContinuationState {
  /** The id of the upstream server the request goes to. */
  readonly serverId: string;
  /** The caller it was sealed for (`principalKey`: the subject, `""` for none): no one else opens it. */
  readonly principal: string;
  /** Random and unique to this state: a shared store spends it, so the state is redeemed once. */
  readonly nonce: string;
  /** {@linkcode digestRequest} of the original downstream request. */
  readonly requestDigest: string;
  /** The upstream's requestState, byte for byte, when it sent one. */
  readonly upstreamState?: string;
  /** Answers already given by the front's handlers this round, by key (sent upstream with the caller's). */
  readonly answers: Readonly<Record<string, unknown>>;
  /** The entries passed down, by key, as the chain left them: the retry's answers are checked by them. */
  readonly pending: Readonly<Record<string, unknown>>;
  /** When the state stops being accepted, ms since the epoch. */
  readonly expiresAt: number;
  /**
   * The rounds of the call answered so far, the one passed down included: the retry's rounds
   * count on from it, under `maxRounds`. Absent: none.
   */
  readonly rounds?: number;
  /** When the call began, ms since the epoch: `maxTotalTimeout` runs from it. Absent: unknown. */
  readonly startedAt?: number;
  /**
   * Set when the gateway asked its own sign-in question (`pending["sluice/sign-in"]`): an
   * upstream's request under that key is the upstream's.
   */
  readonly signIn?: true;
}

/** What the retry must match for a state to open. */
export interface OpenExpectations {
  /** The current time, ms since the epoch; the state opens only while `now < expiresAt`. */
  readonly now: number;
  /** The server the retry goes to. */
  readonly serverId: string;
  /** The retrying caller (`principalKey`); a state sealed for another is refused. */
  readonly principal: string;
  /** {@linkcode digestRequest} of the retry. */
  readonly requestDigest: string;
}

/** What {@linkcode openState} gives: the state, or the check that failed (for logs, not the wire). */
export type OpenedState =
  | { readonly ok: true; readonly state: ContinuationState }
  | { readonly ok: false; readonly reason: StateRefusalReason };

const ANY_MAP = nullProtoRecord(v.unknown());
const StateSchema = refuseArrays(v.strictObject({
  serverId: v.string(),
  principal: v.string(),
  nonce: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{22}$/)),
  requestDigest: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  upstreamState: v.optional(v.string()),
  answers: ANY_MAP,
  pending: ANY_MAP,
  expiresAt: v.pipe(v.number(), v.finite()),
  rounds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  startedAt: v.optional(v.pipe(v.number(), v.finite())),
  signIn: v.optional(v.literal(true)),
}));
const NOT_DIGESTED: ReadonlySet<string> = new Set(["_meta", "inputResponses", "requestState"]);
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Imports the secret that seals and opens states as a non-extractable HMAC-SHA256 key.
 *
 * @param secret At least 32 random bytes; a string is taken as its UTF-8 bytes.
 * @returns The key.
 * @throws {TypeError} When {@linkcode secretKeyProblem} finds a problem with the secret.
 * @example
 * ```ts
 * import { importStateKey } from "./sealed-state.ts";
 * const key = await importStateKey(crypto.getRandomValues(new Uint8Array(32)));
 * console.log(key.algorithm); // "HMAC-SHA256"
 * ```
 */
export async function importStateKey(secret: string | Uint8Array): Promise<StateKey> {
  const problem = secretKeyProblem(secret);
  if (problem !== undefined) throw new TypeError(`importStateKey(): the secret ${problem}`);
  const bytes = typeof secret === "string" ? encoder.encode(secret) : new Uint8Array(secret);
  const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  return wrapKey(key);
}

/**
 * A new state's nonce: 16 random bytes, base64url (22 characters).
 *
 * @returns The nonce.
 * @example
 * ```ts
 * import { newNonce } from "./sealed-state.ts";
 * console.log(newNonce().length); // 22
 * ```
 */
export function newNonce(): string {
  return codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * Seals a state into a token to send down as `requestState`.
 *
 * @param state The state; every value in `answers` and `pending` must be JSON.
 * @param key The key from {@linkcode importStateKey}.
 * @returns `v1.<payload>.<mac>`, at most 1 MiB.
 * @throws {TypeError} When the state is not a {@linkcode ContinuationState} of JSON values, or the
 *   key did not come from {@linkcode importStateKey}.
 * @throws {RangeError} When the token would be longer than 1 MiB (e.g. a huge upstream state).
 * @example
 * ```ts
 * import { digestRequest, importStateKey, newNonce, openState, sealState } from "./sealed-state.ts";
 * const key = await importStateKey("an example secret, at least 32 bytes long");
 * const requestDigest = await digestRequest("tools/call", { name: "deploy", arguments: {} });
 * const token = await sealState(
 *   { serverId: "github", principal: "alice", nonce: newNonce(), requestDigest, answers: {}, pending: {}, expiresAt: 600_000 },
 *   key,
 * );
 * const opened = await openState(token, key, { now: 0, serverId: "github", principal: "alice", requestDigest });
 * console.log(opened.ok); // true
 * ```
 */
export async function sealState(state: ContinuationState, key: StateKey): Promise<string> {
  const checked = decode(StateSchema, state);
  if (!checked.ok) {
    throw new TypeError(`sealState(): the state must be a ContinuationState, ${checked.message}`);
  }
  return await sealPayload(encoder.encode(canonicalJson(checked.value)), key);
}

/**
 * Opens a token sent back by the caller, checking, in order: the key, that it is a string of at most
 * 1 MiB, its version and format, its base64url, its MAC (constant-time, before the payload is read),
 * its JSON, its shape, the server, the principal, the request digest and the expiry. Never throws.
 *
 * @param token The caller's `requestState`, untrusted.
 * @param key The key from {@linkcode importStateKey}.
 * @param expect What the retry must match.
 * @returns The state (its every object prototype-free), or the reason it did not open.
 * @example
 * ```ts
 * import { importStateKey, openState } from "./sealed-state.ts";
 * const key = await importStateKey("an example secret, at least 32 bytes long");
 * const opened = await openState("v1.e30.AAAA", key, { now: 0, serverId: "s", principal: "", requestDigest: "" });
 * console.log(opened); // { ok: false, reason: "mac" }
 * ```
 */
export async function openState(
  token: unknown,
  key: StateKey,
  expect: OpenExpectations,
): Promise<OpenedState> {
  const opened = await openPayload(token, key);
  if (!opened.ok) return opened;
  let parsed: unknown;
  try {
    parsed = withoutPrototypes(JSON.parse(decoder.decode(opened.payload)));
  } catch {
    return { ok: false, reason: "json" };
  }
  const decoded = decode(StateSchema, parsed);
  if (!decoded.ok) return { ok: false, reason: "shape" };
  const state = decoded.value as ContinuationState;
  const reason = mismatch(state, expect);
  return reason === undefined ? { ok: true, state } : { ok: false, reason };
}

function mismatch(state: ContinuationState, expect: OpenExpectations): StateRefusalReason | undefined {
  if (state.serverId !== expect.serverId) return "server";
  if (state.principal !== expect.principal) return "principal";
  if (state.requestDigest !== expect.requestDigest) return "request";
  if (!(expect.now < state.expiresAt)) return "expired";
  return undefined;
}

/**
 * Digests a downstream request for {@linkcode ContinuationState.requestDigest}: sha-256 (hex) of
 * the canonical JSON of `{ method, params }`, leaving out the params that change between rounds
 * (`_meta`, `inputResponses`, `requestState`). The tool or prompt name, the resource URI and the
 * arguments are all in it.
 *
 * @param method The JSON-RPC method, e.g. `"tools/call"`.
 * @param params The request's params; not modified.
 * @returns 64 lower-case hex digits.
 * @throws {TypeError} When the params hold something JSON cannot carry.
 * @example
 * ```ts
 * import { digestRequest } from "./sealed-state.ts";
 * const a = await digestRequest("tools/call", { name: "t", arguments: { x: 1 }, _meta: { a: 1 } });
 * const b = await digestRequest("tools/call", { arguments: { x: 1 }, name: "t" });
 * console.log(a === b); // true
 * ```
 */
export async function digestRequest(
  method: string,
  params: Readonly<Record<string, unknown>>,
): Promise<string> {
  const kept: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(params)) {
    if (!NOT_DIGESTED.has(name)) kept[name] = params[name];
  }
  const text = canonicalJson({ method, params: kept });
  return codecs.toHex(await sha256(text));
}
