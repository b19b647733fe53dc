/**
 * SHA-256 of text, and the constant-time comparison of two digests: what every secret, key and
 * request digest here is made and compared with.
 *
 * @module
 */

const encoder = new TextEncoder();

/** The 32-byte SHA-256 digest of a text's UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Whether two byte arrays (digests) are equal, in a time that depends on their lengths only: every
 * byte is compared, without an early exit, so the timing tells nothing of where they differ.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}
