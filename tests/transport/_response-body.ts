// Builds fetch `Response`s whose bodies the tests control: bytes cut at chosen places, handed out
// one chunk per read, then closed, errored or left hanging; `cancel` calls are recorded.

/** How the body behaves once its chunks are used up. */
export type Ending = "close" | "error" | "hang";

/** A response and a view of what happened to its body. */
export interface ControlledResponse {
  readonly response: Response;
  /** How many times the body's `cancel` callback ran. */
  readonly cancels: () => number;
  /** How many chunks were handed out. */
  readonly pulled: () => number;
}

/** Options of {@linkcode controlledResponse}. */
export interface ControlledOptions {
  readonly status?: number;
  readonly contentType?: string | null;
  readonly ending?: Ending;
  /** Produces a chunk for every read after `chunks` run out, for endless bodies. */
  readonly forever?: () => Uint8Array;
  /** More response headers (`content-length`, `content-encoding`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A `TypeError` with a fixed message, as a failed connection gives. */
export const RESET: TypeError = new TypeError("connection reset");

/**
 * Builds a response whose body yields `chunks`, one per read.
 *
 * @param chunks The body bytes, already cut.
 * @param options Status, content type and what happens after the last chunk.
 * @returns The response and counters.
 */
export function controlledResponse(
  chunks: readonly Uint8Array[],
  options: ControlledOptions = {},
): ControlledResponse {
  let index = 0;
  let cancels = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index] ?? options.forever?.();
      if (chunk !== undefined) {
        index++;
        controller.enqueue(chunk);
      } else if ((options.ending ?? "close") === "close") controller.close();
      else if (options.ending === "error") controller.error(RESET);
      // "hang": enqueue nothing; the read stays pending until cancelled.
    },
    cancel() {
      cancels++;
    },
  }, { highWaterMark: 0 });
  const headers = new Headers(options.headers);
  const type = options.contentType === undefined ? "text/event-stream" : options.contentType;
  if (type !== null) headers.set("content-type", type);
  const response = new Response(body, { status: options.status ?? 200, headers });
  return { response, cancels: () => cancels, pulled: () => index };
}

/**
 * Encodes text as UTF-8 and cuts it into chunks of `size` bytes (the whole text when absent).
 *
 * @param text The text.
 * @param size The chunk size in bytes.
 * @returns The chunks.
 */
export function cut(text: string, size?: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  if (size === undefined) return [bytes];
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return chunks;
}

/**
 * Encodes text as UTF-8 and cuts it at the given byte offsets.
 *
 * @param text The text.
 * @param offsets Increasing byte offsets.
 * @returns The chunks.
 */
export function cutAt(text: string, offsets: readonly number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
}

/** The chunkings every stream test runs under: whole, one byte at a time, and odd sizes. */
export const CHUNKINGS: readonly (number | undefined)[] = [undefined, 1, 2, 3, 7];

/**
 * Formats one SSE event from its data, with optional `id`, `event` and `retry` fields.
 *
 * @param data The message, as an object (JSON-encoded) or as raw data text.
 * @param fields Extra fields, written before the data.
 * @returns The event text, ending with a blank line.
 */
export function sseEvent(
  data: unknown,
  fields: { id?: string; event?: string; retry?: number } = {},
): string {
  let text = "";
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
  const raw = typeof data === "string" ? data : JSON.stringify(data);
  for (const line of raw.split("\n")) text += `data: ${line}\n`;
  return text + "\n";
}
