/**
 * What the legacy session (2025-11-25, 2025-06-18) needs from a transport: send requests and get
 * their responses, send notifications and answers to the server's requests, and hear what the
 * server sends on its own. Stdio and legacy Streamable HTTP implement it. The session owns the
 * protocol (the handshake, supervising server requests); a connection owns only the wire.
 *
 * @module
 */
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
  RequestId,
} from "../protocol/jsonrpc.ts";

/** A message the server sent on its own: a request to answer, or a notification. */
export interface ServerMessage {
  /** The message. */
  readonly message: JsonRpcRequest | JsonRpcNotification;
  /**
   * On HTTP, the id of the request whose SSE response stream carried it; `undefined` on the
   * standalone GET stream and stdio.
   */
  readonly related: RequestId | undefined;
}

/** Why a connection ended. */
export interface ConnectionClosed {
  /** What happened, for messages: `process exited with code 1`, `session expired (HTTP 404)`. */
  readonly reason: string;
  /**
   * `"session_expired"`: the server forgot the session; initialize again on a new connection.
   * `"failed"`: the transport broke; the next call starts a new connection. `"closed"`: `close()`
   * was called.
   */
  readonly kind: "session_expired" | "failed" | "closed";
}

/** Callbacks a connection reports to. */
export interface ConnectionEvents {
  /** A server request or notification arrived; called in arrival order, never awaited. */
  readonly onServerMessage: (message: ServerMessage) => void;
  /** The connection ended; pending requests have been rejected with a `ConnectionError`. */
  readonly onClose: (closed: ConnectionClosed) => void;
  /** A line the server wrote on stderr (stdio only), unsanitized: the session sanitizes it. */
  readonly onStderr?: (line: string) => void;
}

/** A failure of one request at the transport level. */
export class ConnectionError extends Error {
  /** Why: the connection ended, the request was aborted, or the server broke the wire. */
  readonly kind: "closed" | "aborted" | "protocol" | "session_expired" | "http";
  /** The HTTP status, when the failure was an HTTP answer. */
  readonly status: number | undefined;

  /**
   * @param kind Why the request failed.
   * @param message What failed, for people.
   * @param options The HTTP status and the cause.
   */
  constructor(
    kind: ConnectionError["kind"],
    message: string,
    options: { readonly status?: number; readonly cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConnectionError";
    this.kind = kind;
    this.status = options.status;
  }
}

/** One live connection to a legacy server. */
export interface LegacyConnection {
  /**
   * Sends a request and resolves with its response (a result or an error response).
   *
   * @throws {ConnectionError} When the connection ends first, the signal aborts, the server
   *   breaks the wire, or (HTTP) the server answers with an HTTP error and no JSON-RPC body.
   */
  request(
    message: JsonRpcRequest,
    options: { readonly signal: AbortSignal },
  ): Promise<JsonRpcResultResponse | JsonRpcErrorResponse>;
  /**
   * Sends a notification (resolves once written or accepted).
   *
   * @param message The notification.
   * @param options `signal` ends the wait for the server to accept it (HTTP: its `202 Accepted`;
   *   stdio: the line flushed to its stdin), as the connection's `callTimeout` does.
   * @throws {ConnectionError} When the connection ends first, the signal aborts or `callTimeout`
   *   passes (`"aborted"`), or (HTTP) the server refuses it.
   */
  notify(message: JsonRpcNotification, options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** Sends an answer to a server request (resolves once written or accepted, within `callTimeout`). */
  respond(message: JsonRpcResultResponse | JsonRpcErrorResponse): Promise<void>;
  /**
   * Tells the connection the negotiated protocol version (HTTP sends it as
   * `MCP-Protocol-Version` on every later request, and starts the standalone GET stream).
   */
  negotiated(version: string): void;
  /** Ends the connection: stdio closes stdin then signals the process; HTTP sends `DELETE`. */
  close(): Promise<void>;
}

/** Opens a connection; the session calls it again after the connection ends. */
export type ConnectionFactory = (events: ConnectionEvents) => LegacyConnection;
