/**
 * The legacy Streamable HTTP transport (protocol 2025-11-25 and 2025-06-18) as a
 * {@linkcode LegacyConnection}: every message its own POST, answers as JSON or SSE, a session id
 * from the `initialize` response, an optional standalone GET stream, resumption by GET with
 * `Last-Event-ID`, and `DELETE` at the end.
 *
 * Web standards only: `fetch` is injected, timers go through {@linkcode Timers}.
 *
 * @module
 */
import { integerOption } from "../_internal/integer-option.ts";
import type { Timers } from "../_internal/timers.ts";
import { linkSignals } from "../_internal/signals.ts";
import {
  ConnectionError,
  type ConnectionEvents,
  type ConnectionFactory,
  type LegacyConnection,
} from "./legacy-connection.ts";
import type { CompiledHttpTransport } from "../policy/compile-policy.ts";
import type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from "../protocol/jsonrpc.ts";
import type { Fetcher } from "./fetch-with-redirects.ts";
import { type BodyBytes, discardBody, openResponseBody, readBodyBytes } from "./body-reader.ts";
import { ConcurrencyLimit } from "./_concurrency-limit.ts";
import { LegacyHttpWire } from "./_legacy-http-wire.ts";
import { listen } from "./_legacy-listen-stream.ts";
import { exchangeRequest, quoteBody } from "./_legacy-request-stream.ts";
import { messageLimit, type MessageLimits } from "../protocol/message-limits.ts";

/** Options of {@linkcode createLegacyHttpConnection}. */
export interface LegacyHttpConnectionOptions extends Partial<MessageLimits> {
  /** The fetch to use, called as `fetch(url, init)`. */
  readonly fetch: Fetcher;
  /** Timers for `retry` waits, backoff, and the bounds on `DELETE` and each POST without a response. */
  readonly timers: Timers;
  /**
   * How long a notification's or an answer's POST may take, in milliseconds (the policy's
   * `callTimeout`), on top of the caller's signal: most are sent with none.
   * @default 60000
   */
  readonly callTimeoutMs?: number;
  /**
   * The longest backoff of a GET stream whose openings bring no event, in milliseconds. A server's
   * `retry` is always waited in full (2025-11-25 requires it), even when longer; without one the wait
   * is 1000 ms, doubled after each opening that brought nothing up to this, never below 1000 ms.
   * @default 30000
   */
  readonly maxRetryMs?: number;
  /**
   * How many resumptions in a row of a request's SSE stream may bring no new event before the
   * request fails (one that does resets the count); also how many failed openings in a row end the
   * standalone GET stream.
   * @default 5
   */
  readonly maxResumeAttempts?: number;
}

/** The most answers to server requests POSTed at once per connection, so a flood opens few sockets. */
const MAX_ANSWERS_IN_FLIGHT = 8;
/** How long `close()` waits for the answer to its `DELETE`, in milliseconds. */
const DELETE_TIMEOUT_MS = 5000;
/** How much of a refused POST's body is read, for the message. */
const ERROR_BODY_BYTES = 1024;
/** What a protocol version sent as a header must look like. */
const VERSION_HEADER = /^[\x21-\x7E]{1,64}$/;

/**
 * Makes a factory of legacy Streamable HTTP connections to one server.
 *
 * A 404 to a request that carried a session id ends the connection as `session_expired`, and so
 * does a 400 whose body speaks of the session (what the official SDK's example servers send).
 * Network failures and other HTTP errors fail only their request (kind `"http"`). A message over
 * the `MessageLimits` fails its request as a protocol error, or ends the standalone GET stream.
 *
 * @param transport The server's compiled HTTP transport: endpoint, policy headers, redirect rule.
 * @param options Fetch, timers, resumption limits and message limits.
 * @returns A factory; each call opens a new connection with its own session id.
 * @throws {RangeError} When `maxRetryMs` or `maxResumeAttempts` is not a non-negative integer, or
 *   `callTimeoutMs` or a message limit not a positive one.
 * @example
 * ```ts
 * import { createLegacyHttpConnection } from "./legacy-http-connection.ts";
 * import { compilePolicy } from "../policy/compile-policy.ts";
 * import { systemTimers } from "../_internal/timers.ts";
 * const { transport } = compilePolicy({ server: "demo", transport: { url: "https://mcp.example.com/mcp" } });
 * if (transport.kind !== "http") throw new Error("expected an HTTP transport");
 * const open = createLegacyHttpConnection(transport, { fetch: (url, init) => fetch(url, init), timers: systemTimers });
 * const connection = open({ onServerMessage: () => {}, onClose: () => {} });
 * await connection.close(); // nothing was sent: no session to end
 * ```
 */
export function createLegacyHttpConnection(
  transport: CompiledHttpTransport,
  options: LegacyHttpConnectionOptions,
): ConnectionFactory {
  const maxRetryMs = integerOption(`${CALLER}: "maxRetryMs"`, options.maxRetryMs, {
    fallback: 30_000,
    least: 0,
  });
  const maxResumeAttempts = integerOption(`${CALLER}: "maxResumeAttempts"`, options.maxResumeAttempts, {
    fallback: 5,
    least: 0,
  });
  const callTimeoutMs = integerOption(`${CALLER}: "callTimeoutMs"`, options.callTimeoutMs, {
    fallback: 60_000,
    least: 1,
  });
  const limits: MessageLimits = {
    maxMessageBytes: messageLimit(CALLER, "maxMessageBytes", options.maxMessageBytes),
    maxEventBytes: messageLimit(CALLER, "maxEventBytes", options.maxEventBytes),
    maxJsonDepth: messageLimit(CALLER, "maxJsonDepth", options.maxJsonDepth),
  };
  const { fetch, timers } = options;
  return (events: ConnectionEvents): LegacyConnection =>
    new LegacyHttpConnection(
      new LegacyHttpWire({
        transport,
        fetch,
        timers,
        callTimeoutMs,
        maxRetryMs,
        maxResumeAttempts,
        limits,
        events,
      }),
    );
}

class LegacyHttpConnection implements LegacyConnection {
  readonly #wire: LegacyHttpWire;
  readonly #answers = new ConcurrencyLimit(MAX_ANSWERS_IN_FLIGHT);
  #listening = false;
  #closing: Promise<void> | undefined;

  constructor(wire: LegacyHttpWire) {
    this.#wire = wire;
  }

  request(
    message: JsonRpcRequest,
    options: { readonly signal: AbortSignal },
  ): Promise<JsonRpcResultResponse | JsonRpcErrorResponse> {
    const progress = { sent: false, posted: false };
    return this.#wire.track(
      (signal) => exchangeRequest(this.#wire, message, signal, progress),
      options.signal,
      () => progress.sent && !progress.posted,
    )
      .catch((error: unknown) => {
        // Only a request the server never took may go again in a new session; one it took may have run.
        if (!progress.posted || !(error instanceof ConnectionError) || error.kind !== "session_expired") {
          throw error;
        }
        throw new ConnectionError(
          "closed",
          `Request ${JSON.stringify(message.id)} (${
            JSON.stringify(message.method)
          }): the server ended the session while answering it (${error.message}); it may have run, so it is not sent again`,
          { cause: error },
        );
      });
  }

  notify(message: JsonRpcNotification, options?: { readonly signal?: AbortSignal }): Promise<void> {
    const label = `Notification ${JSON.stringify(message.method)}`;
    return this.#wire.track((signal) => postAccepted(this.#wire, message, label, signal), options?.signal);
  }

  respond(message: JsonRpcResultResponse | JsonRpcErrorResponse): Promise<void> {
    const label = `Answer to server request ${JSON.stringify(message.id)}`;
    // Tracked once its turn comes: an answer still waiting when the connection ends is refused then.
    return this.#answers.run(() =>
      this.#wire.track((signal) => postAccepted(this.#wire, message, label, signal))
    );
  }

  negotiated(version: string): void {
    if (!VERSION_HEADER.test(version)) {
      throw new TypeError(
        `negotiated(): the protocol version must be 1 to 64 visible ASCII characters, received ${
          JSON.stringify(String(version).slice(0, 64))
        }`,
      );
    }
    this.#wire.setVersion(version);
    if (this.#listening || this.#wire.ended !== undefined) return;
    this.#listening = true;
    void listen(this.#wire);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const expired = this.#wire.ended?.kind === "session_expired";
    this.#wire.end({ kind: "closed", reason: "close() was called" });
    if (expired || this.#wire.sessionId === undefined) return;
    const { timers } = this.#wire.settings;
    const bound = linkSignals([], { ms: DELETE_TIMEOUT_MS, which: "leg", timers });
    try {
      const response = await this.#wire.send("DELETE", { signal: bound.signal });
      void discardBody(response);
    } catch (error) {
      // A server that refuses or never answers must not keep close() from ending.
      if (!(error instanceof ConnectionError)) throw error;
    } finally {
      bound.dispose();
    }
  }
}

/**
 * POSTs a message that expects no response; the server accepts it with `202 Accepted` (a `200` with
 * an empty body is tolerated). `callTimeoutMs` bounds it too, since an unanswered answer would
 * otherwise hold one of the {@linkcode MAX_ANSWERS_IN_FLIGHT} slots until the connection ends.
 *
 * @param wire The connection.
 * @param message The message.
 * @param label What the message is, for errors.
 * @param caller The tracked signal of the caller and the connection.
 * @throws {ConnectionError} `http` when refused, `protocol` when accepted with a body, `aborted`
 *   (the abort reason as its cause) when `caller` fires or `callTimeoutMs` passes.
 */
async function postAccepted(
  wire: LegacyHttpWire,
  message: JsonRpcMessage,
  label: string,
  caller: AbortSignal,
): Promise<void> {
  const { callTimeoutMs: ms, timers } = wire.settings;
  const leg = linkSignals([caller], { ms, which: "leg", timers });
  const { signal } = leg;
  try {
    const response = await wire.send("POST", { body: JSON.stringify(message), signal });
    const { status } = response;
    if (status === 202) {
      void discardBody(response);
      return;
    }
    const body = openResponseBody(response, signal);
    let read: BodyBytes;
    try {
      read = await readBodyBytes(body, ERROR_BODY_BYTES);
    } finally {
      body.close();
    }
    if (read.end === "aborted") {
      throw new ConnectionError("aborted", `${label} was aborted`, { cause: signal.reason });
    }
    if (status >= 200 && status <= 299) {
      if (read.end === "complete" && read.bytes.byteLength === 0) return;
      throw new ConnectionError(
        "protocol",
        `${label}: expected HTTP 202 Accepted with no body, received HTTP ${status} with a body`,
        { status },
      );
    }
    const text = new TextDecoder().decode(read.bytes.subarray(0, ERROR_BODY_BYTES), { stream: true });
    throw new ConnectionError(
      "http",
      `${label} was refused with HTTP ${status}: expected 202 Accepted, received ${quoteBody(text)}`,
      { status },
    );
  } finally {
    leg.dispose();
  }
}

const CALLER = "createLegacyHttpConnection()";
