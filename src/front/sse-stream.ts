/**
 * The server side of a legacy (2025-11-25, 2025-06-18) Streamable HTTP stream: a POST's response stream
 * or the standalone GET stream of one caller session. Every event has an id, `<stream>_<n>`, unique
 * within the session and naming its stream; a bounded number of events is kept so a caller whose
 * connection broke can resume with `GET` and `Last-Event-ID` and get what it missed on that stream
 * only. A priming event names the event its connection starts after: `<stream>_0` on a stream's first
 * connection, `<stream>_<n>_<k>` (its `k`th priming) on a later one, so it is unique too and resuming
 * from it replays nothing the caller had. A disconnection is not a cancellation: the stream goes on
 * being written while no connection is attached. A heartbeat's comment is no event: neither kept nor
 * counted.
 *
 * @module
 */
import type { JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { type Heartbeat, HEARTBEAT_COMMENT } from "./heartbeat.ts";

const encoder = new TextEncoder();

/** The headers of every SSE response the front sends. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // Proxies (nginx) must pass events on as they come.
  "x-accel-buffering": "no",
});

/** Options of {@linkcode SseStream}. */
export interface SseStreamOptions {
  /** The stream's key within its session: the part of each event id before `_`. */
  readonly key: string;
  /**
   * Whether a new connection starts with a priming event (an id and empty data), which tells a
   * 2025-11-25 caller the stream can be resumed; 2025-06-18 callers get none.
   */
  readonly priming: boolean;
  /**
   * The most events kept for a resumption: past it the oldest notification is forgotten, or the
   * oldest event when all are requests and responses (a request the caller missed is what a
   * resumption must not lose, where a progress tick is outdated by the next).
   */
  readonly maxEvents: number;
  /** How often an attached connection carries a comment; never when `undefined`. */
  readonly heartbeat?: Heartbeat | undefined;
  /** Hears an attached connection end (closed, replaced or gone). */
  readonly onDetached?: (() => void) | undefined;
  /** Hears the stream end (its last event written). */
  readonly onFinished?: (() => void) | undefined;
}

/** One SSE stream of a caller session. */
export class SseStream {
  /** The stream's key: `Last-Event-ID` values start with it. */
  readonly key: string;
  readonly #priming: boolean;
  readonly #maxEvents: number;
  readonly #heartbeat: Heartbeat | undefined;
  readonly #onDetached: (() => void) | undefined;
  readonly #onFinished: (() => void) | undefined;
  /** The next beat's timer, while a connection is attached. */
  #beat: unknown;
  readonly #events: { readonly seq: number; readonly bytes: Uint8Array; readonly notification: boolean }[] =
    [];
  #keptBytes = 0;
  #seq = 0;
  /** The last event handed to a connection: a new connection (not a resumption) starts after it. */
  #delivered = 0;
  /** How many priming events the stream sent. */
  #primed = 0;
  #live: ReadableStreamDefaultController<Uint8Array> | undefined;
  #finished = false;

  /** @param options The key, priming, and how many events to keep. */
  constructor(options: SseStreamOptions) {
    this.key = options.key;
    this.#priming = options.priming;
    this.#maxEvents = options.maxEvents;
    this.#heartbeat = options.heartbeat;
    this.#onDetached = options.onDetached;
    this.#onFinished = options.onFinished;
  }

  /** Whether a connection is attached (a message written now reaches the caller at once). */
  get connected(): boolean {
    return this.#live !== undefined;
  }

  /** Whether the stream ended (its last event was written). */
  get finished(): boolean {
    return this.#finished;
  }

  /** The bytes of the events kept for a resumption. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /**
   * Writes one message: kept for a resumption, and sent at once when a connection is attached.
   *
   * @param message The JSON-RPC message.
   */
  write(message: JsonRpcMessage): void {
    if (this.#finished) return;
    const seq = ++this.#seq;
    const bytes = encoder.encode(
      `id: ${this.key}_${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`,
    );
    this.#events.push({ seq, bytes, notification: !("id" in message) });
    this.#keptBytes += bytes.length;
    if (this.#events.length > this.#maxEvents) {
      const oldest = Math.max(0, this.#events.findIndex((event) => event.notification));
      this.#keptBytes -= this.#events.splice(oldest, 1)[0]?.bytes.length ?? 0;
    }
    this.#send(bytes);
  }

  /** Ends the stream: the attached connection closes, and later connections get the replay only. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#detach();
    this.#onFinished?.();
  }

  /**
   * Attaches a new connection, replacing any attached one (which is closed).
   *
   * @param after The sequence number of the last event the caller saw (from `Last-Event-ID`),
   *   or `undefined` for a new connection (which gets the events no connection got yet).
   * @returns The SSE response: the events after `after`, then live ones until the stream ends.
   */
  connect(after: number | undefined): Response {
    this.#detach();
    let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        mine = controller;
        const from = after ?? this.#delivered;
        if (after === undefined && this.#priming) {
          this.#primed++;
          const id = this.#primed === 1 ? `${this.key}_0` : `${this.key}_${from}_${this.#primed}`;
          controller.enqueue(encoder.encode(`id: ${id}\ndata: \n\n`));
        }
        for (const event of this.#events) if (event.seq > from) controller.enqueue(event.bytes);
        this.#delivered = Math.max(this.#delivered, this.#seq);
        if (this.#finished) return controller.close();
        this.#live = controller;
        this.#arm();
      },
      cancel: () => {
        if (this.#live === mine) this.#unlive();
      },
    });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  /**
   * Writes the heartbeat's comment to the attached connection, if any, now; the next comes a beat
   * later.
   */
  beat(): void {
    this.#send(HEARTBEAT_COMMENT);
    this.#arm();
  }

  /** Arms the next beat, while a connection is attached. */
  #arm(): void {
    if (this.#heartbeat === undefined) return;
    const { timers, ms } = this.#heartbeat;
    timers.clearTimeout(this.#beat);
    this.#beat = this.#live === undefined ? undefined : timers.setTimeout(() => this.beat(), ms);
  }

  /** Forgets the attached connection and its beats. */
  #unlive(): void {
    if (this.#live === undefined) return;
    this.#live = undefined;
    this.#heartbeat?.timers.clearTimeout(this.#beat);
    this.#onDetached?.();
  }

  /** Closes the attached connection, if any. */
  #detach(): void {
    const live = this.#live;
    this.#unlive();
    try {
      live?.close();
    } catch {
      // The caller went away already.
    }
  }

  #send(bytes: Uint8Array): void {
    if (this.#live === undefined) return;
    try {
      this.#live.enqueue(bytes);
      this.#delivered = this.#seq;
    } catch {
      // The connection broke: the event stays kept for a resumption.
      this.#unlive();
    }
  }
}

/**
 * An SSE response that ends at once: the resumption of a stream with nothing left to replay.
 *
 * @returns The response.
 */
export function endedStreamResponse(): Response {
  return new Response("", { status: 200, headers: SSE_HEADERS });
}

/** A JSON-RPC message as a JSON response, with HTTP status 200 unless told. */
export function json(message: JsonRpcMessage, status = 200): Response {
  return new Response(JSON.stringify(message), { status, headers: { "content-type": "application/json" } });
}

/**
 * Splits a `Last-Event-ID` into the stream key and the sequence number of the event it names (for
 * a priming event's id, the event its connection started after).
 *
 * @param value The header's value.
 * @returns The key and number, or `undefined` when it is not an id this front issued.
 * @example
 * ```ts
 * import { parseEventId } from "./sse-stream.ts";
 * console.log(parseEventId("3_12")); // { key: "3", seq: 12 }
 * console.log(parseEventId("0_6_2")); // { key: "0", seq: 6 }
 * console.log(parseEventId("nonsense")); // undefined
 * ```
 */
export function parseEventId(value: string): { readonly key: string; readonly seq: number } | undefined {
  const match = /^([0-9]{1,9})_([0-9]{1,9})(?:_[0-9]{1,9})?$/.exec(value.trim());
  if (match === null) return undefined;
  return { key: match[1] as string, seq: Number(match[2]) };
}

/**
 * The answer to one POSTed request: plain JSON when it ends before anything else must be sent
 * (most requests: no stream to set up), else an SSE stream from the first message (or the
 * first beat of the heartbeat) on, ending with the response; for a request its caller
 * cancelled, no response at all.
 */
export class PostReply {
  /** The HTTP response, once known. */
  readonly response: Promise<Response>;
  readonly #open: () => SseStream;
  readonly #heartbeat: Heartbeat | undefined;
  #resolve: (response: Response) => void = () => {};
  #stream: SseStream | undefined;
  /** The first beat's timer, until the stream opens or the response comes. */
  #firstBeat: unknown;
  #ended = false;

  /**
   * @param open Makes the stream, on the first message or beat before the response (the stream
   *   beats on by itself).
   * @param heartbeat When the first beat comes; none when `undefined`.
   */
  constructor(open: () => SseStream, heartbeat?: Heartbeat) {
    this.#open = open;
    this.#heartbeat = heartbeat;
    this.response = new Promise((resolve) => (this.#resolve = resolve));
    if (heartbeat !== undefined) {
      this.#firstBeat = heartbeat.timers.setTimeout(() => this.#opened().beat(), heartbeat.ms);
    }
  }

  /** The stream, opened and answered with now if it was not yet. */
  #opened(): SseStream {
    if (this.#stream === undefined) {
      this.#heartbeat?.timers.clearTimeout(this.#firstBeat);
      this.#stream = this.#open();
      this.#resolve(this.#stream.connect(undefined));
    }
    return this.#stream;
  }

  /** The stream, once one was opened. */
  get stream(): SseStream | undefined {
    return this.#stream;
  }

  /** Whether the exchange ended (answered, or ended unanswered): nothing more can be sent on it. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Sends a message before the response (a notification, a request to the caller).
   *
   * @param message The message.
   */
  send(message: JsonRpcMessage): void {
    this.#opened().write(message);
  }

  /**
   * Sends the response and ends the exchange.
   *
   * @param message The JSON-RPC response.
   */
  end(message: JsonRpcMessage): void {
    this.#ended = true;
    if (this.#stream === undefined) {
      this.#heartbeat?.timers.clearTimeout(this.#firstBeat);
      this.#resolve(json(message));
      return;
    }
    this.#stream.write(message);
    this.#stream.finish();
  }

  /**
   * Ends the exchange with no response, as the receiver of a cancellation sends none. An open stream
   * ends; else the POST, which carried a request and must be answered with JSON or SSE, gets an SSE
   * stream of no event (not even a priming one, which would invite resuming a stream with nothing left).
   */
  endUnanswered(): void {
    this.#ended = true;
    if (this.#stream !== undefined) {
      this.#stream.finish();
      return;
    }
    this.#heartbeat?.timers.clearTimeout(this.#firstBeat);
    this.#resolve(endedStreamResponse());
  }
}
