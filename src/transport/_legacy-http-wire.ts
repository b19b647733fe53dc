/**
 * The shared state of one legacy Streamable HTTP connection: the session id and protocol version
 * sent on every request, the requests in flight, and the one way the connection ends.
 *
 * @module
 */
import type { Timers } from "../_internal/timers.ts";
import { withoutUrlSecrets } from "../_internal/url-query.ts";
import { linkSignals } from "../_internal/signals.ts";
import { type ConnectionClosed, ConnectionError, type ConnectionEvents } from "./legacy-connection.ts";
import type { CompiledHttpTransport } from "../policy/compile-policy.ts";
import { isResponse, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.ts";
import { type Fetcher, fetchWithRedirects } from "./fetch-with-redirects.ts";
import type { MessageLimits } from "../protocol/message-limits.ts";
import { discardBody, openResponseBody, readBodyBytes } from "./body-reader.ts";

/** What a connection is built from. */
export interface WireSettings {
  readonly transport: CompiledHttpTransport;
  readonly fetch: Fetcher;
  readonly timers: Timers;
  /** The deadline of each notification's and answer's POST, in milliseconds. */
  readonly callTimeoutMs: number;
  readonly maxRetryMs: number;
  readonly maxResumeAttempts: number;
  /** Every response and stream is read within these. */
  readonly limits: MessageLimits;
  readonly events: ConnectionEvents;
}

/** How one HTTP request is sent. */
export interface SendOptions {
  /** The JSON-RPC message, for a POST. */
  readonly body?: string;
  /** Resumes a stream from this SSE event id (a GET). */
  readonly lastEventId?: string;
  /** Aborts the request. */
  readonly signal: AbortSignal;
}

/** The longest session id accepted, in characters. */
const MAX_SESSION_ID = 1024;
/** Visible ASCII (0x21 to 0x7E), as the transport spec requires of session ids. */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** One connection's wire state; the request and stream loops share it. */
export class LegacyHttpWire {
  /** The construction settings. */
  readonly settings: WireSettings;
  readonly #lifetime = new AbortController();
  /** The work in flight: how to fail it, and whether its POST awaits an answer (see `end`). */
  readonly #pending = new Map<(error: ConnectionError) => void, () => boolean>();
  #sessionId: string | undefined;
  #version: string | undefined;
  #ended: ConnectionClosed | undefined;

  /** @param settings Transport, fetch, timers, limits and the session's callbacks. */
  constructor(settings: WireSettings) {
    this.settings = settings;
  }

  /** Fires when the connection ends. */
  get lifetime(): AbortSignal {
    return this.#lifetime.signal;
  }

  /** The session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** How the connection ended, once it has. */
  get ended(): ConnectionClosed | undefined {
    return this.#ended;
  }

  /** Records the negotiated version, sent as `MCP-Protocol-Version` from now on. */
  setVersion(version: string): void {
    this.#version = version;
  }

  /**
   * Remembers the `Mcp-Session-Id` of the `initialize` response.
   *
   * @throws {ConnectionError} `protocol`, when the header is not a valid session id.
   */
  adoptSession(response: Response): void {
    const value = response.headers.get("mcp-session-id");
    if (this.#sessionId !== undefined || value === null || response.status > 299) return;
    if (value.length > MAX_SESSION_ID || !VISIBLE_ASCII.test(value)) {
      const shown = JSON.stringify(value.slice(0, 40)) + (value.length > 40 ? "…" : "");
      throw new ConnectionError(
        "protocol",
        `Mcp-Session-Id of the initialize response is invalid: expected 1 to ${MAX_SESSION_ID} visible ASCII characters (0x21-0x7E), received ${shown} (${value.length} characters)`,
      );
    }
    this.#sessionId = value;
  }

  /**
   * Sends one request with the protocol headers; a 404 while a session id is set ends the
   * connection as `session_expired`, and so does a 400 whose body speaks of the session.
   *
   * @returns The response, its body unread.
   * @throws {ConnectionError} `aborted` (the signal's reason as its cause), `http` (no response:
   *   network, refused redirect) or `session_expired`.
   */
  async send(method: "POST" | "GET" | "DELETE", options: SendOptions): Promise<Response> {
    const sessionId = this.#sessionId;
    const { transport, fetch } = this.settings;
    // The body spread last: V8 builds an object slowly when keys follow a spread that opens it.
    const sent = await fetchWithRedirects({
      transport,
      fetch,
      method,
      headers: this.#headers(method, options),
      signal: options.signal,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    if (sent.kind === "aborted") {
      throw new ConnectionError("aborted", `${method} to ${withoutUrlSecrets(transport.url)} was aborted`, {
        cause: options.signal.reason,
      });
    }
    if (sent.kind === "network_error") throw new ConnectionError("http", sent.message, { cause: sent.cause });
    if (sent.kind === "redirect_refused") {
      throw new ConnectionError("http", `${method} to ${withoutUrlSecrets(transport.url)}: ${sent.message}`);
    }
    const { status } = sent.response;
    if (sessionId === undefined || (status !== 404 && status !== 400)) return sent.response;
    if (status === 400) {
      // The official SDK's example servers answer an unknown session id 400, not the spec's 404.
      const body = openResponseBody(sent.response, options.signal);
      const read = await readBodyBytes(body, this.settings.limits.maxMessageBytes).finally(() =>
        body.close()
      );
      const text = new TextDecoder().decode(read.bytes.subarray(0, 1024));
      if (read.end !== "complete" || !/\bsession\b/i.test(text)) {
        return new Response(new Uint8Array(read.bytes), { status, headers: sent.response.headers });
      }
    } else {
      void discardBody(sent.response);
    }
    this.end({ kind: "session_expired", reason: `session expired (HTTP ${status})` });
    throw this.endError();
  }

  /**
   * Runs one piece of work (a request, a notification) as pending: it rejects with why as soon as
   * the connection ends, but for a request `end` spares.
   *
   * @param work Receives a signal that fires when `caller` fires or the connection ends.
   * @param caller The caller's signal.
   * @param posting Whether the work is a request whose POST the server has not answered yet.
   */
  track<T>(
    work: (signal: AbortSignal) => Promise<T>,
    caller?: AbortSignal,
    posting: () => boolean = () => false,
  ): Promise<T> {
    if (this.#ended !== undefined) return Promise.reject(this.endError());
    const ended = new AbortController();
    const linked = linkSignals([caller, ended.signal]);
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        this.#pending.delete(fail);
        linked.dispose();
      };
      const fail = (error: ConnectionError): void => {
        ended.abort(error);
        settle();
        reject(error);
      };
      this.#pending.set(fail, posting);
      work(linked.signal).then((value) => {
        settle();
        resolve(value);
      }, (error: unknown) => {
        settle();
        reject(error);
      });
    });
  }

  /** Hands a server request or notification to the session, unless the connection has ended. */
  deliver(message: JsonRpcMessage, related: RequestId | undefined): void {
    if (this.#ended !== undefined || isResponse(message)) return;
    this.settings.events.onServerMessage({ message, related });
  }

  /**
   * Ends the connection once: rejects pending work, stops every stream, tells the session. When the
   * server forgot the session (a request's own POST got its 404), a request whose POST awaits its
   * answer is spared for it: its own 404 says it never ran (it may go again in a new session), any
   * other answer is its own (see `exchangeRequest`). A later end (`close()`) rejects it too.
   */
  end(closed: ConnectionClosed): void {
    const first = this.#ended === undefined;
    // A spared request's own 404 fails it alone (`send` throws it).
    if (!first && closed.kind === "session_expired") return;
    if (first) this.#ended = closed;
    const spare = first && closed.kind === "session_expired";
    // A spared request ends as closed, never as a session to send it again in.
    const error = first
      ? this.endError()
      : new ConnectionError("closed", `Legacy HTTP connection ended: ${closed.reason}`);
    for (const [fail, posting] of [...this.#pending]) {
      if (!spare || !posting()) fail(error);
    }
    if (!first) return;
    this.#lifetime.abort(error);
    this.settings.events.onClose(closed);
  }

  /** The error pending and later work rejects with once the connection has ended. */
  endError(): ConnectionError {
    const ended = this.#ended;
    if (ended?.kind === "session_expired") {
      return new ConnectionError("session_expired", `Legacy HTTP connection ended: ${ended.reason}`, {
        status: 404,
      });
    }
    return new ConnectionError("closed", `Legacy HTTP connection ended: ${ended?.reason ?? "closed"}`);
  }

  #headers(method: "POST" | "GET" | "DELETE", options: SendOptions): Record<string, string> {
    const headers: Record<string, string> = method === "POST"
      ? { "Content-Type": "application/json", "Accept": "application/json, text/event-stream" }
      : method === "GET"
      ? { "Accept": "text/event-stream" }
      : {};
    if (this.#sessionId !== undefined) headers["Mcp-Session-Id"] = this.#sessionId;
    if (this.#version !== undefined) headers["MCP-Protocol-Version"] = this.#version;
    if (options.lastEventId !== undefined) headers["Last-Event-ID"] = utf8ByteString(options.lastEventId);
    return headers;
  }
}

/** Any character outside ASCII. */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * A text's UTF-8 bytes as a byte string, the form a fetch header value takes: an event id goes back
 * as the bytes it came in, as EventSource sends it (WHATWG HTML: last event ID, UTF-8).
 *
 * @param text The text.
 * @returns The byte string; ASCII text as it is.
 */
function utf8ByteString(text: string): string {
  if (!NOT_ASCII.test(text)) return text;
  let bytes = "";
  for (const byte of new TextEncoder().encode(text)) bytes += String.fromCharCode(byte);
  return bytes;
}
