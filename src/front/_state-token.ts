/**
 * The envelope of a sealed continuation state: `v1.<base64url(payload)>.<base64url(mac)>`, where
 * `mac` is HMAC-SHA256 over the ASCII text `sluice/front/state\n` + `v1.<base64url(payload)>`.
 * The context line keeps a key that is (wrongly) shared with another use from minting states;
 * the version is signed, so a token cannot be replayed under another version. Both parts must be
 * canonical base64url (no padding, zero trailing bits), so a token has exactly one spelling.
 *
 * @module
 */
import { codecs } from "../_internal/encoding.ts";

/** An HMAC-SHA256 key for sealing and opening states, from `importStateKey()`. */
export interface StateKey {
  /** Always `"HMAC-SHA256"`; the key itself cannot be read. */
  readonly algorithm: "HMAC-SHA256";
}

/** Why a token did not open: the check that failed, for logs. */
export type StateRefusalReason =
  | "key"
  | "not-string"
  | "too-long"
  | "format"
  | "version"
  | "base64url"
  | "mac"
  | "json"
  | "shape"
  | "server"
  | "principal"
  | "request"
  | "expired";

/** The longest token opened, in characters (1 MiB); longer ones are refused before any work. */
export const MAX_TOKEN_LENGTH: number = 1024 * 1024;

const VERSION = "v1";
const CONTEXT = "sluice/front/state\n";
const MAC_BYTES = 32;
const OTHER_VERSION = /^v[0-9]+$/;
const encoder = new TextEncoder();
const cryptoKeys = new WeakMap<StateKey, CryptoKey>();

/**
 * Wraps an imported HMAC key in an opaque {@linkcode StateKey}.
 *
 * @param key A non-extractable HMAC-SHA256 key for `sign` and `verify`.
 * @returns The opaque key.
 */
export function wrapKey(key: CryptoKey): StateKey {
  const wrapped: StateKey = Object.freeze({ algorithm: "HMAC-SHA256" });
  cryptoKeys.set(wrapped, key);
  return wrapped;
}

/**
 * Seals payload bytes: the envelope around them, MAC included.
 *
 * @param payload The payload bytes (canonical JSON in UTF-8, for a state).
 * @param key The key.
 * @returns The token.
 * @throws {TypeError} When `key` did not come from `importStateKey()`.
 * @throws {RangeError} When the token would be longer than {@linkcode MAX_TOKEN_LENGTH}.
 */
export async function sealPayload(payload: Uint8Array, key: StateKey): Promise<string> {
  const cryptoKey = cryptoKeys.get(key);
  if (cryptoKey === undefined) {
    throw new TypeError(`sealState(): the key must come from importStateKey(), received "${typeof key}"`);
  }
  const signed = `${VERSION}.${codecs.toBase64Url(payload)}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(CONTEXT + signed)));
  const token = `${signed}.${codecs.toBase64Url(mac)}`;
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new RangeError(
      `sealState(): the sealed state must be at most "${MAX_TOKEN_LENGTH}" characters, received "${token.length}"`,
    );
  }
  return token;
}

/** What {@linkcode openPayload} gives: the authenticated payload bytes, or why not. */
export type OpenedPayload =
  | { readonly ok: true; readonly payload: Uint8Array }
  | { readonly ok: false; readonly reason: StateRefusalReason };

/**
 * Checks a token's envelope and MAC and returns its payload bytes, unparsed. Never throws.
 *
 * @param token The untrusted token.
 * @param key The key.
 * @returns The payload, or the first check that failed.
 */
export async function openPayload(token: unknown, key: StateKey): Promise<OpenedPayload> {
  const cryptoKey = cryptoKeys.get(key);
  if (cryptoKey === undefined) return refused("key");
  if (typeof token !== "string") return refused("not-string");
  if (token.length > MAX_TOKEN_LENGTH) return refused("too-long");
  const parts = token.split(".");
  const [version = "", payloadText, macText] = parts;
  if (version !== VERSION) return refused(OTHER_VERSION.test(version) ? "version" : "format");
  if (parts.length !== 3 || payloadText === undefined || macText === undefined) return refused("format");
  const payload = codecs.fromBase64Url(payloadText);
  const mac = codecs.fromBase64Url(macText);
  if (payload === undefined || mac === undefined) return refused("base64url");
  if (mac.length !== MAC_BYTES) return refused("mac");
  try {
    const signed = encoder.encode(`${CONTEXT}${VERSION}.${payloadText}`);
    const valid = await crypto.subtle.verify("HMAC", cryptoKey, new Uint8Array(mac), signed);
    return valid ? { ok: true, payload } : refused("mac");
  } catch {
    return refused("mac");
  }
}

function refused(reason: StateRefusalReason): { readonly ok: false; readonly reason: StateRefusalReason } {
  return { ok: false, reason };
}
