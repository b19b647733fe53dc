// A raw legacy (2025-11-25, 2025-06-18) Streamable HTTP caller, byte by byte: what a host sends
// to the gateway's /mcp/<server>, and the SSE events it reads back one at a time. Runs on every
// runtime (fetch and streams only).
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { gate } from "./gate.ts";

/** Sends one HTTP request (a gateway's `fetch`, or the global one against a listening gateway). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** The headers of a legacy POST. */
export function legacyHeaders(session?: string, version?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(session === undefined ? {} : { "mcp-session-id": session }),
    ...(version === undefined ? {} : { "mcp-protocol-version": version }),
  };
}

/**
 * A host's `initialize` request (id 0).
 *
 * @param version The version it asks for.
 * @param capabilities What it declares.
 * @returns The message.
 */
export function initializeMessage(
  version = "2025-11-25",
  capabilities: object = {},
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities, clientInfo: { name: "raw-host", version: "1" } },
  };
}

/** The events of one SSE response, read one at a time. */
export class EventReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #queue: EventSourceMessage[] = [];
  readonly #parser = createParser({ onEvent: (event) => this.#queue.push(event) });
  readonly #decoder = new TextDecoder();

  /** @param response An SSE response. */
  constructor(response: Response) {
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /** The next event, or `undefined` when the stream ended. */
  async next(): Promise<EventSourceMessage | undefined> {
    while (this.#queue.length === 0) {
      const chunk = await this.#reader.read();
      if (chunk.done) return undefined;
      this.#parser.feed(this.#decoder.decode(chunk.value, { stream: true }));
    }
    return this.#queue.shift();
  }

  /** The next event's data as JSON (priming events, with empty data, are skipped). */
  async message(): Promise<Record<string, unknown> | undefined> {
    for (;;) {
      const event = await this.next();
      if (event === undefined) return undefined;
      if (event.data !== "") return JSON.parse(event.data) as Record<string, unknown>;
    }
  }

  /** Every remaining message until the stream ends. */
  async rest(): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    for (let message = await this.message(); message !== undefined; message = await this.message()) {
      all.push(message);
    }
    return all;
  }

  /** Drops the connection (as a host whose network broke would). */
  async drop(): Promise<void> {
    await this.#reader.cancel();
  }
}

/** One legacy caller of `<base>/mcp/<server>`. */
export class LegacyCaller {
  readonly #fetch: Fetch;
  readonly url: string;
  readonly version: string;
  session: string | undefined;

  /**
   * @param fetch How to send.
   * @param url The MCP endpoint.
   * @param version The version the caller asks for and then sends in `MCP-Protocol-Version`.
   */
  constructor(fetch: Fetch, url: string, version = "2025-11-25") {
    this.#fetch = fetch;
    this.url = url;
    this.version = version;
  }

  /**
   * Opens the session.
   *
   * @param capabilities What the caller declares.
   * @param initialized Whether `notifications/initialized` follows, as it should.
   * @returns The `initialize` response's body.
   */
  async initialize(capabilities: object = {}, initialized = true): Promise<Record<string, unknown>> {
    const response = await this.#fetch(this.url, {
      method: "POST",
      headers: legacyHeaders(),
      body: JSON.stringify(initializeMessage(this.version, capabilities)),
    });
    this.session = response.headers.get("mcp-session-id") ?? undefined;
    const body = await response.json() as Record<string, unknown>;
    if (initialized) await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return body;
  }

  /** POSTs one message on the session; the raw response. */
  post(message: object, headers: Record<string, string> = {}): Promise<Response> {
    return this.#fetch(this.url, {
      method: "POST",
      headers: { ...legacyHeaders(this.session, this.version), ...headers },
      body: JSON.stringify(message),
    });
  }

  /** Sends a request and returns its JSON response body (it must not stream). */
  async request(id: number, method: string, params: object = {}): Promise<Record<string, unknown>> {
    const response = await this.post({ jsonrpc: "2.0", id, method, params });
    if (response.headers.get("content-type") !== "application/json") {
      throw new Error(`expected JSON for ${method}, received ${response.headers.get("content-type")}`);
    }
    return await response.json() as Record<string, unknown>;
  }

  /** Opens the GET stream (or resumes after `lastEventId`). */
  listen(lastEventId?: string): Promise<Response> {
    return this.#fetch(this.url, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        ...(this.session === undefined ? {} : { "mcp-session-id": this.session }),
        "mcp-protocol-version": this.version,
        ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
      },
    });
  }

  /** Ends the session with DELETE. */
  close(): Promise<Response> {
    return this.#fetch(this.url, {
      method: "DELETE",
      headers: { ...(this.session === undefined ? {} : { "mcp-session-id": this.session }) },
    });
  }
}

/**
 * An upstream fetch that holds the first request whose body has `marker` until its signal aborts
 * (then fails as an aborted fetch does), and sends every other request on: a front's upstream
 * request its caller's cancellation must abort.
 *
 * @param marker Text of the body to hold (`'"resources/list"'`).
 * @returns The fetch, when the held request reached it, and whether its signal has aborted (read
 *   when asked: `false` while it is held, or before it came).
 */
export function holdingUpstream(
  marker: string,
): { upstreamFetch: Fetch; reached: Promise<void>; aborted: () => boolean } {
  const reached = gate();
  let held: AbortSignal | undefined;
  const upstreamFetch: Fetch = async (url, init) => {
    if (held !== undefined || !String(init.body).includes(marker)) return await globalThis.fetch(url, init);
    const signal = held = init.signal as AbortSignal;
    reached.open();
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    throw signal.reason;
  };
  return { upstreamFetch, reached: reached.opened, aborted: () => held?.aborted === true };
}
