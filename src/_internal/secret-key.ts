/**
 * The one rule for the secret keys an operator types or generates (the front's state key, the
 * gateway's bearer secrets, the token store's key): at least 32 bytes, and plainly random.
 *
 * @module
 */

const encoder = new TextEncoder();

/** The fewest bytes a secret key may have (the HMAC-SHA256 output size). */
export const MIN_SECRET_BYTES: number = 32;

/** How to make a good key, for the messages that refuse one. */
export const MAKE_A_KEY = "make one with `openssl rand -base64 32`";

/**
 * What is wrong with a secret key, if anything: not a string or bytes, shorter than 32 bytes, or
 * plainly not random: a repeated pattern of at most half its length, or fewer than 8 distinct
 * bytes. Randomness cannot be measured; these catch the keys people type.
 *
 * @param secret The candidate key; a string is taken as its UTF-8 bytes.
 * @returns The problem, phrased to follow the key's name ("the state key"), or `undefined` for a usable key.
 * @example
 * ```ts
 * import { secretKeyProblem } from "./secret-key.ts";
 * console.log(secretKeyProblem("x".repeat(32))); // "repeats a pattern: expected random bytes, make one with `openssl rand -base64 32`"
 * console.log(secretKeyProblem(crypto.getRandomValues(new Uint8Array(32)))); // undefined
 * ```
 */
export function secretKeyProblem(secret: unknown): string | undefined {
  const bytes = typeof secret === "string"
    ? encoder.encode(secret)
    : secret instanceof Uint8Array
    ? secret
    : undefined;
  if (bytes === undefined) return `must be a string or a Uint8Array, received "${typeof secret}"`;
  if (bytes.length < MIN_SECRET_BYTES) {
    return `must be at least ${MIN_SECRET_BYTES} bytes of random data, received ${bytes.length}: ${MAKE_A_KEY}`;
  }
  if (repeatsPattern(bytes)) return `repeats a pattern: expected random bytes, ${MAKE_A_KEY}`;
  if (new Set(bytes).size < MIN_DISTINCT_BYTES) {
    return `has fewer than "${MIN_DISTINCT_BYTES}" distinct bytes: expected random bytes, ${MAKE_A_KEY}`;
  }
  return undefined;
}

const MIN_DISTINCT_BYTES = 8;

/** Whether `bytes` is its first `p` bytes over and over, for some `p` of at most half its length. */
function repeatsPattern(bytes: Uint8Array): boolean {
  for (let period = 1; period <= bytes.length / 2; period++) {
    let i = period;
    while (i < bytes.length && bytes[i] === bytes[i - period]) i++;
    if (i === bytes.length) return true;
  }
  return false;
}

/** The environment variable that holds the state key on every runtime. */
export const STATE_KEY_VARIABLE = "SLUICE_STATE_KEY";

/**
 * What every entry says when it has no state key (neither `stateKey` nor `SLUICE_STATE_KEY`):
 * thrown as a `TypeError`, a Workers `500`, or `sluice serve`'s error, the same fix everywhere.
 */
export const NO_STATE_KEY: string =
  `sluice: "${STATE_KEY_VARIABLE}" is not set: expected at least ${MIN_SECRET_BYTES} bytes of random data, the same on every instance, ${MAKE_A_KEY}`;
