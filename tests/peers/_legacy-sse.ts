/**
 * The SSE streams of the scripted legacy HTTP server (`legacy-http-server.ts`): each stream keeps
 * every event it sent, so a client that resumes with `Last-Event-ID` gets the rest, and the server
 * can close the HTTP connection early (2025-11-25 polling) without ending the stream.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";

interface StoredEvent {
  readonly id: string | undefined;
  readonly text: string;
}

/** What a resumption found: the stream, and how long the client waited since the close. */
export interface Resumption {
  readonly stream: SseStream;
  /** Milliseconds between the server closing the connection and this GET, or `undefined`. */
  readonly waitedMs: number | undefined;
}

/** Every SSE stream of one session, found by event id for resumption. */
export class StreamRegistry {
  #next = 1;
  readonly #byEventId = new Map<string, SseStream>();

  /** Opens a stream answering `res`; `ids: false` sends events without ids (not resumable). */
  open(res: ServerResponse, options: { ids?: boolean; headers?: Record<string, string> } = {}): SseStream {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...options.headers,
    });
    const stream = new SseStream(`s${this.#next++}`, res, options.ids !== false, this.#byEventId);
    return stream;
  }

  /**
   * Attaches a resuming GET to the stream that sent `lastEventId`, replaying what followed it.
   *
   * @returns The resumption, or `undefined` when no stream sent that id.
   */
  resume(res: ServerResponse, lastEventId: string): Resumption | undefined {
    const stream = this.#byEventId.get(lastEventId);
    if (stream === undefined) return undefined;
    const waitedMs = stream.closedAt === undefined ? undefined : performance.now() - stream.closedAt;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    stream.attach(res, lastEventId);
    return { stream, waitedMs };
  }

  /** Ends every stream (the session is gone). */
  finishAll(): void {
    for (const stream of new Set(this.#byEventId.values())) stream.finish();
  }
}

/** One SSE stream: a POST's answer or the standalone GET stream. */
export class SseStream {
  /** The stream's id, the prefix of its event ids: `s3` sends `s3-1`, `s3-2`… */
  readonly id: string;
  /** When the server last closed the connection early (`performance.now()`), if it did. */
  closedAt: number | undefined;
  /** Runs after a resuming GET got the replay; it decides what comes next. */
  onResume: ((stream: SseStream) => void) | undefined;
  readonly #events: StoredEvent[] = [];
  readonly #ids: boolean;
  readonly #byEventId: Map<string, SseStream>;
  #res: ServerResponse | undefined;
  #finished = false;

  constructor(id: string, res: ServerResponse, ids: boolean, byEventId: Map<string, SseStream>) {
    this.id = id;
    this.#res = res;
    this.#ids = ids;
    this.#byEventId = byEventId;
    res.on("close", () => {
      if (this.#res === res) this.#res = undefined;
    });
  }

  /** Whether a client connection is attached. */
  get connected(): boolean {
    return this.#res !== undefined;
  }

  /** Sends a priming event: an id (when ids are on), an optional `retry`, and empty data. */
  prime(retryMs?: number): string | undefined {
    return this.#event("", retryMs);
  }

  /** Sends one JSON-RPC message as an event. */
  send(message: object): string | undefined {
    return this.#event(JSON.stringify(message), undefined);
  }

  /** Closes the HTTP connection without ending the stream: the client is expected to resume. */
  drop(): void {
    this.closedAt = performance.now();
    const res = this.#res;
    this.#res = undefined;
    res?.end();
  }

  /** Ends the stream for good. */
  finish(): void {
    this.#finished = true;
    const res = this.#res;
    this.#res = undefined;
    res?.end();
  }

  /** Attaches a resuming connection and replays the events after `lastEventId`. */
  attach(res: ServerResponse, lastEventId: string): void {
    this.#res?.end();
    this.#res = res;
    res.on("close", () => {
      if (this.#res === res) this.#res = undefined;
    });
    const from = this.#events.findIndex((event) => event.id === lastEventId);
    for (const event of this.#events.slice(from + 1)) res.write(event.text);
    if (this.#finished) return this.finish();
    this.onResume?.(this);
  }

  #event(data: string, retryMs: number | undefined): string | undefined {
    const id = this.#ids ? `${this.id}-${this.#events.length + 1}` : undefined;
    let text = id === undefined ? "" : `id: ${id}\n`;
    if (retryMs !== undefined) text += `retry: ${retryMs}\n`;
    text += `data: ${data}\n\n`;
    this.#events.push({ id, text });
    if (id !== undefined) this.#byEventId.set(id, this);
    this.#res?.write(text);
    return id;
  }
}
