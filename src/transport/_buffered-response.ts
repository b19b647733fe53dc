/**
 * A `Response` whose body was read in full before it was returned (what `createNodeFetch()` gives
 * for a small answer), in a file of its own so that `readResponse` can take the bytes it holds
 * without importing the Node-only fetch.
 *
 * @module
 */

/**
 * A response made without a body, whose body methods serve the bytes already held. A body given
 * to Node's `Response` is made into a web stream at once, and reading it back goes through that
 * stream: the most common answer, a small JSON body read whole, then costs several times the rest
 * of the response. The stream is made only when `body` is asked for.
 *
 * Its `Headers` are built only when `headers` is asked for: {@linkcode BufferedResponse.header}
 * answers `readResponse`'s few questions from the pairs it was given.
 */
export class BufferedResponse extends Response {
  #bytes: Uint8Array<ArrayBuffer>;
  #used = false;
  readonly #pairs: readonly (readonly [string, string])[];
  #headers: Headers | undefined;
  /** A response holding the bytes as a stream, once the body stream was asked for: it then answers. */
  #streamed: Response | undefined;

  /**
   * @param bytes The whole body.
   * @param status The HTTP status.
   * @param pairs The headers, names in lower case, each value of a repeated header its own pair.
   */
  constructor(bytes: Uint8Array<ArrayBuffer>, status: number, pairs: readonly (readonly [string, string])[]) {
    super(null, { status });
    this.#bytes = bytes;
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
    return new BufferedResponse(this.#bytes.slice(), this.status, this.#pairs);
  }

  #stream(): Response {
    if (this.#streamed === undefined) {
      const init = { status: this.status, statusText: this.statusText, headers: this.headers };
      this.#streamed = new Response(this.#used ? new Uint8Array(0) : this.#bytes, init);
      // Read already: its stream is spent, as fetch's would be.
      if (this.#used) void this.#streamed.arrayBuffer().catch(() => {});
    }
    return this.#streamed;
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
