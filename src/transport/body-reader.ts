/**
 * Reads a fetch body chunk by chunk: an abort ends a pending read at once (by cancelling the
 * body), and `close` cancels whatever the reader no longer needs.
 *
 * @module
 */
import { joinBytes } from "../_internal/join-bytes.ts";
import { BufferedResponse, type ChunkSource, StreamedResponse } from "./_held-responses.ts";

/** One step of reading a body. */
export type BodyStep =
  | { readonly kind: "chunk"; readonly bytes: Uint8Array }
  | { readonly kind: "end" }
  | { readonly kind: "aborted" }
  | { readonly kind: "failed"; readonly reason: string };

/** A body being read. Call `close` once done, whatever happened. */
export interface BodyReader {
  /** Tells whether the caller's signal has fired. */
  aborted(): boolean;
  /** Reads the next chunk; never rejects. */
  read(): Promise<BodyStep>;
  /** Cancels the rest of the body (nothing happens if it already ended) and forgets the signal. */
  close(): void;
}

/** Bytes read from the start of a body, and why reading stopped. */
export interface BodyBytes {
  /** The bytes read; at most `limit` plus one chunk. */
  readonly bytes: Uint8Array;
  /** `"over_limit"`: more than `limit` bytes arrived and reading stopped there. */
  readonly end: "complete" | "over_limit" | "aborted" | "failed";
  /** Why the body failed, when `end` is `"failed"`; otherwise `""`. */
  readonly reason: string;
}

const END: BodyStep = { kind: "end" };
const ABORTED: BodyStep = { kind: "aborted" };

/**
 * Opens a response's body for reading: the chunks a {@linkcode StreamedResponse} holds are read as
 * they are, any other body through its stream.
 *
 * @param response The response; its body unread.
 * @param signal Aborting it cancels the body and makes every read answer `"aborted"`.
 * @returns The reader.
 * @throws {TypeError} When the body is already locked or used (a caller's mistake).
 */
export function openResponseBody(response: Response, signal?: AbortSignal): BodyReader {
  const held = response instanceof StreamedResponse ? response.takeSource() : undefined;
  return held === undefined ? openBody(response.body, signal) : openSource(held, signal);
}

/**
 * Opens a body for reading.
 *
 * @param body The response body; `null` reads as empty.
 * @param signal Aborting it cancels the body and makes every read answer `"aborted"`.
 * @returns The reader.
 * @throws {TypeError} When the body is already locked or used (a caller's mistake).
 */
function openBody(body: ReadableStream<Uint8Array> | null, signal?: AbortSignal): BodyReader {
  return openSource(body === null ? undefined : streamSource(body.getReader()), signal);
}

/** A stream's reader as a source (its chunks unchecked: {@linkcode openSource} checks them). */
function streamSource(reader: ReadableStreamDefaultReader<Uint8Array>): ChunkSource {
  return {
    next: async () => {
      const result = await reader.read();
      return result.done ? undefined : result.value;
    },
    cancel: (reason) => {
      // Not awaited: a peer that never acknowledges must not hold the caller up.
      reader.cancel(reason).catch(() => {});
    },
  };
}

function openSource(source: ChunkSource | undefined, signal?: AbortSignal): BodyReader {
  const onAbort = (): void => source?.cancel(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let closed = false;
  return {
    aborted: () => signal?.aborted === true,
    async read(): Promise<BodyStep> {
      if (signal?.aborted) return ABORTED;
      if (source === undefined) return END;
      let chunk: Uint8Array | undefined;
      try {
        chunk = await source.next();
      } catch (error) {
        return signal?.aborted ? ABORTED : { kind: "failed", reason: describeError(error) };
      }
      if (signal?.aborted) return ABORTED;
      if (chunk === undefined) return END;
      if (!(chunk instanceof Uint8Array)) return { kind: "failed", reason: "a chunk that is not bytes" };
      return { kind: "chunk", bytes: chunk };
    },
    close(): void {
      if (closed) return;
      closed = true;
      signal?.removeEventListener("abort", onAbort);
      source?.cancel();
    },
  };
}

/**
 * Reads a body until it ends or more than `limit` bytes have arrived, whichever comes first.
 *
 * @param body The body.
 * @param limit The most bytes wanted.
 * @returns The bytes and why reading stopped.
 */
export async function readBodyBytes(body: BodyReader, limit: number): Promise<BodyBytes> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const step = await body.read();
    if (step.kind === "chunk") {
      parts.push(step.bytes);
      total += step.bytes.byteLength;
      if (total > limit) return { bytes: joinBytes(parts, total), end: "over_limit", reason: "" };
      continue;
    }
    const end = step.kind === "end" ? "complete" : step.kind;
    return { bytes: joinBytes(parts, total), end, reason: step.kind === "failed" ? step.reason : "" };
  }
}

const NO_BYTES = new Uint8Array(0);

/**
 * Discards a response's unread body, so that its connection is freed. A body `createNodeFetch()`
 * holds is dropped without making a stream just to cancel it.
 *
 * @param response The response; its body unread.
 * @returns When the cancel is done; never rejects.
 */
export function discardBody(response: Response): Promise<void> {
  if (response instanceof BufferedResponse && response.takeBytes() !== undefined) return Promise.resolve();
  const source = response instanceof StreamedResponse ? response.takeSource() : undefined;
  if (source !== undefined) {
    source.cancel();
    return Promise.resolve();
  }
  return response.body?.cancel().catch(() => {}) ?? Promise.resolve();
}

/**
 * Reads a whole response body with the runtime's `arrayBuffer()`, far cheaper than a stream read on
 * some runtimes (bench/RESULTS.md). Only for a body whose `Content-Length` the caller checked against
 * its limit, with no `Content-Encoding`. An abort ends the wait at once; the fetch ends the body.
 *
 * @param response The response; its body unread.
 * @param signal Ends the read.
 * @returns The bytes, `"complete"`, or why there are none (`"aborted"`, `"failed"`).
 */
export async function readWholeBody(response: Response, signal?: AbortSignal): Promise<BodyBytes> {
  if (signal?.aborted) {
    void discardBody(response);
    return { bytes: NO_BYTES, end: "aborted", reason: "" };
  }
  let onAbort = (): void => {};
  const aborted = new Promise<undefined>((resolve) => (onAbort = () => resolve(undefined)));
  signal?.addEventListener("abort", onAbort, { once: true });
  const reading = response.arrayBuffer();
  try {
    const buffer = await Promise.race([reading, aborted]);
    if (buffer === undefined || signal?.aborted) {
      reading.catch(() => {});
      return { bytes: NO_BYTES, end: "aborted", reason: "" };
    }
    return { bytes: new Uint8Array(buffer), end: "complete", reason: "" };
  } catch (error) {
    if (signal?.aborted) return { bytes: NO_BYTES, end: "aborted", reason: "" };
    return { bytes: NO_BYTES, end: "failed", reason: describeError(error) };
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Reads an incoming request's body within `limit` bytes: refused at once when its `Content-Length`
 * says more; read whole by the runtime when a length is declared (cheaper than a stream); else read
 * chunk by chunk, stopping past the limit.
 *
 * @param request The request; its body unread. Its signal aborts a chunked read.
 * @param limit The largest body accepted, in bytes.
 * @returns The bytes, `"over_limit"`, or `"incomplete"` when the body did not arrive in full.
 */
export async function readRequestBytes(
  request: Request,
  limit: number,
): Promise<Uint8Array | "over_limit" | "incomplete"> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > limit) return "over_limit";
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await request.arrayBuffer());
    } catch {
      return "incomplete";
    }
    // A Request made in-process (a service binding, app.request) need not match its declared length.
    return bytes.byteLength > limit ? "over_limit" : bytes;
  }
  const body = openBody(request.body, request.signal);
  try {
    const read = await readBodyBytes(body, limit);
    if (read.end === "over_limit") return "over_limit";
    return read.end === "complete" ? read.bytes : "incomplete";
  } finally {
    body.close();
  }
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "an error that could not be described";
  }
}
