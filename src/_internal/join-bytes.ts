/**
 * Joins byte chunks into one array, for a body reader and a stdio line splitter.
 * (`createNodeFetch()` keeps its own join, which always copies: it hands out the whole `ArrayBuffer`.)
 *
 * @module
 */

/**
 * The first `length` bytes of `parts`, joined. A single part is returned as it is (or a view of
 * its head), with nothing copied.
 *
 * @param parts The chunks, in order.
 * @param length How many bytes to keep: their total, or less to cut the joined bytes short.
 * @returns The joined bytes.
 * @example
 * ```ts
 * import { joinBytes } from "./join-bytes.ts";
 * console.log(joinBytes([new Uint8Array([1, 2]), new Uint8Array([3, 4])], 3)); // Uint8Array(3) [ 1, 2, 3 ]
 * ```
 */
export function joinBytes(parts: readonly Uint8Array[], length: number): Uint8Array {
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined) return only.length <= length ? only : only.subarray(0, length);
  const out = new Uint8Array(Math.min(length, parts.reduce((sum, part) => sum + part.length, 0)));
  let offset = 0;
  for (const part of parts) {
    if (offset >= out.length) break;
    const piece = part.subarray(0, out.length - offset);
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}
