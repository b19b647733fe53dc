/**
 * Reads a Node HTTP request's whole body, for the test servers built on `node:http`.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";

/**
 * Reads the body of `req` into one buffer.
 *
 * @param req The incoming request.
 * @returns Its bytes.
 */
export async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const body = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  chunks.reduce((offset, chunk) => (body.set(chunk, offset), offset + chunk.byteLength), 0);
  return body;
}
