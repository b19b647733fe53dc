/**
 * The responses `createNodeFetch()` returns, apart so that `readResponse` can take their bodies
 * without importing the Node-only fetch. Node's `Response` makes a web stream of any body at once,
 * costly for a small answer; these make one only when `body` (or a method needing it) is asked for.
 *
 * @module
 */

/**
 * A response whose `Headers` are built only when asked for; {@linkcode HeldResponse.header} answers
 * `readResponse` from the pairs.
 */
export abstract class HeldResponse extends Response {
  readonly #pairs: readonly (readonly [string, string])[];
  #headers: Headers | undefined;

  /**
   * @param status The HTTP status.
   * @param pairs The headers, names in lower case, each value of a repeated header its own pair.
   */
  constructor(status: number, pairs: readonly (readonly [string, string])[]) {
    super(null, { status });
    this.#pairs = pairs;
  }

  override get headers(): Headers {
    return this.#headers ??= new Headers(this.#pairs as [string, string][]);
  }

  /**
   * One header's value, as `headers.get(name)` gives it (repeated values joined by `", "`).
   *
   * @param name The header's name, in lower case.
   * @returns Its value, or `null` when absent.
   */
  header(name: string): string | null {
    let value: string | null = null;
    for (const [key, one] of this.#pairs) {
      if (key === name) value = value === null ? one : `${value}, ${one}`;
    }
    return value;
  }

  /** The header pairs, for a copy. */
  protected get pairs(): readonly (readonly [string, string])[] {
    return this.#pairs;
  }

  /**
   * A platform `Response` with this status and these headers, holding `body`; with none (the body
   * was handed over already), one whose body is spent, as fetch's would be.
   */
  protected plainResponse(body: BodyInit | undefined): Response {
    const init = { status: this.status, statusText: this.statusText, headers: this.headers };
    const response = new Response(body ?? new Uint8Array(0), init);
    if (body === undefined) void response.arrayBuffer().catch(() => {});
    return response;
  }
}

/** A body read whole: its bytes are served as they are, the stream made only when asked for. */
export class BufferedResponse extends HeldResponse {
  #bytes: Uint8Array<ArrayBuffer>;
  #used = false;
  /** A response holding the bytes as a stream, once the body stream was asked for: it then answers. */
  #streamed: Response | undefined;

  /**
   * @param bytes The whole body.
   * @param status The HTTP status.
   * @param pairs The headers, names in lower case, each value of a repeated header its own pair.
   */
  constructor(bytes: Uint8Array<ArrayBuffer>, status: number, pairs: readonly (readonly [string, string])[]) {
    super(status, pairs);
    this.#bytes = bytes;
  }

  /**
   * Hands the body's bytes over, once, without a promise: the body then counts as read.
   *
   * @returns The bytes, or `undefined` when the body was read already (or its stream asked for).
   */
  takeBytes(): Uint8Array<ArrayBuffer> | undefined {
    if (this.#used || this.#streamed !== undefined) return undefined;
    this.#used = true;
    return this.#bytes;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return this.#stream().body as ReadableStream<Uint8Array<ArrayBuffer>>;
  }

  override get bodyUsed(): boolean {
    return this.#streamed?.bodyUsed ?? this.#used;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#streamed?.arrayBuffer() ?? this.#read((bytes) => bytes.buffer);
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#streamed?.bytes() ?? this.#read((bytes) => bytes);
  }

  override text(): Promise<string> {
    return this.#streamed?.text() ?? this.#read((bytes) => new TextDecoder().decode(bytes));
  }

  override json(): Promise<unknown> {
    return this.#streamed?.json() ?? this.#read((bytes) => JSON.parse(new TextDecoder().decode(bytes)));
  }

  override blob(): Promise<Blob> {
    const type = this.header("content-type") ?? "";
    return this.#streamed?.blob() ?? this.#read((bytes) => new Blob([bytes], { type }));
  }

  override formData(): Promise<FormData> {
    // Rare for an API answer: the platform parses it, from a stream of the bytes.
    return this.#stream().formData();
  }

  override clone(): Response {
    if (this.#streamed !== undefined) return this.#streamed.clone();
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new BufferedResponse(this.#bytes.slice(), this.status, this.pairs);
  }

  #stream(): Response {
    return this.#streamed ??= this.plainResponse(this.#used ? undefined : this.#bytes);
  }

  /** Hands the bytes over once: a second read fails as fetch's does. */
  #read<T>(as: (bytes: Uint8Array<ArrayBuffer>) => T): Promise<T> {
    if (this.#used) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
    this.#used = true;
    try {
      return Promise.resolve(as(this.#bytes));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** A body's chunks, pulled one at a time: how {@linkcode StreamedResponse} holds its body. */
export interface ChunkSource {
  /** The next chunk, or `undefined` once the body has ended; rejects when the body fails. */
  next(): Promise<Uint8Array | undefined>;
  /** Stops the body (and frees its connection); later reads end. */
  cancel(reason?: unknown): void;
}

/**
 * A body still arriving (an event stream, or a long answer): `readResponse` takes its chunks without
 * a web stream; `body`, and every method that reads it, make one.
 */
export class StreamedResponse extends HeldResponse {
  #source: ChunkSource | undefined;
  /** A response holding the body as a web stream, once that was asked for: it then answers. */
  #streamed: Response | undefined;

  /**
   * @param source The body's chunks.
   * @param status The HTTP status.
   * @param pairs The headers, names in lower case, each value of a repeated header its own pair.
   */
  constructor(source: ChunkSource, status: number, pairs: readonly (readonly [string, string])[]) {
    super(status, pairs);
    this.#source = source;
  }

  /**
   * Hands the body's chunks over, once: the body then counts as used.
   *
   * @returns The chunks, or `undefined` when they were handed over already (or the stream asked for).
   */
  takeSource(): ChunkSource | undefined {
    const source = this.#source;
    this.#source = undefined;
    return source;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return this.#stream().body as ReadableStream<Uint8Array<ArrayBuffer>>;
  }

  override get bodyUsed(): boolean {
    return this.#streamed?.bodyUsed ?? this.#source === undefined;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#stream().arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#stream().bytes();
  }

  override text(): Promise<string> {
    return this.#stream().text();
  }

  override json(): Promise<unknown> {
    return this.#stream().json();
  }

  override blob(): Promise<Blob> {
    return this.#stream().blob();
  }

  override formData(): Promise<FormData> {
    return this.#stream().formData();
  }

  override clone(): Response {
    return this.#stream().clone();
  }

  #stream(): Response {
    if (this.#streamed === undefined) {
      const source = this.takeSource();
      this.#streamed = this.plainResponse(source === undefined ? undefined : webStream(source));
    }
    return this.#streamed;
  }
}

/** A web stream of the source's chunks; cancelling it cancels the source. */
function webStream(source: ChunkSource): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      const chunk = await source.next();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel(reason): void {
      source.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
