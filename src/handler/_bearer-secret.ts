/**
 * Checks `Authorization: Bearer <secret>` against a shared secret in constant time: both sides
 * are hashed with SHA-256 and the digests compared byte by byte without an early exit, so neither
 * the secret's length nor its prefix shows in the timing.
 *
 * @module
 */
import { sameBytes, sha256 } from "../_internal/sha256.ts";

/** How an `Authorization` header compares with the shared secret. */
export type BearerVerdict = "ok" | "missing" | "wrong";

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Compiles the check of one shared secret.
 *
 * @param secret The shared secret: a non-empty `token68` (base64, base64url, hex, …).
 * @returns The check: `"missing"` without Bearer credentials, `"wrong"` when they differ.
 * @throws {TypeError} When the secret is not a non-empty `token68` string.
 */
export function createBearerCheck(secret: string): (authorization: string | null) => Promise<BearerVerdict> {
  if (typeof secret !== "string" || !TOKEN68.test(secret)) {
    throw new TypeError(
      `handlerApp(): "sharedSecret" must be a non-empty token of letters, digits and "-._~+/" (optionally ending in "="), received ${
        typeof secret === "string" ? "another string" : typeof secret
      }`,
    );
  }
  // Hashed on first use: Workers allow no crypto work at the top level of a module.
  let expected: Promise<Uint8Array> | undefined;
  return async (authorization) => {
    const token = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined) return "missing";
    expected ??= sha256(secret);
    const [want, got] = await Promise.all([expected, sha256(token)]);
    return sameBytes(want, got) ? "ok" : "wrong";
  };
}
