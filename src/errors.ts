/**
 * The one error type sluice's client rejects with.
 *
 * @module
 */

/**
 * Why a client call failed.
 *
 * - `"input_handler"`: a handler returned `{ error }` or threw while answering an input request.
 * - `"policy"`: a check of the server's policy refused an input request (`code` is the check's).
 * - `"protocol"`: the server broke the protocol (malformed or unexpected message).
 * - `"transport"`: the connection failed (network, HTTP status, broken stream, dead process).
 * - `"timeout"`: a deadline passed (`callTimeout`, a handler timeout or `maxTotalTimeout`).
 * - `"server"`: the server answered with a JSON-RPC error (`code`, `data` are the server's).
 * - `"rounds_exceeded"`: a multi round-trip request needed more than `maxRounds` rounds.
 * - `"cancelled"`: the caller's `AbortSignal` fired, or a task ended cancelled.
 * - `"config"`: the configuration does not allow the request (`code` `-32602` for a call refused as
 *   given: invalid `x-mcp-header` rules, an argument that does not fit its header, bad call options).
 */
export type ClientErrorKind =
  | "input_handler"
  | "policy"
  | "protocol"
  | "transport"
  | "timeout"
  | "server"
  | "rounds_exceeded"
  | "cancelled"
  | "config";

/** What a {@linkcode ClientError} carries besides its kind and message. */
export interface ClientErrorDetails {
  /** A JSON-RPC error code: the server's, or the refusing check's. */
  readonly code?: number | undefined;
  /**
   * Extra data: the server's error data, or the last result for `"rounds_exceeded"`. When a
   * `callTool`'s task was cancelled because its wait failed, it also holds `taskId` (a non-object
   * data goes under `data`: `{ taskId: "t-1", data: "overloaded" }`).
   */
  readonly data?: unknown;
  /** The operator-assigned id of the server the call went to. */
  readonly serverId?: string | undefined;
  /** The underlying error, when there was one. */
  readonly cause?: unknown;
}

/**
 * A failed client call: always this class, never a bare `Error`.
 *
 * @example
 * ```ts
 * import { ClientError } from "./errors.ts";
 * const error = new ClientError("policy", "Sampling refused: over budget", { code: -1, serverId: "github" });
 * console.log(error.kind, error.code); // policy -1
 * ```
 */
export class ClientError extends Error {
  /** Why the call failed. */
  readonly kind: ClientErrorKind;
  /** A JSON-RPC error code, when one applies. */
  readonly code: number | undefined;
  /** Extra data, when any. */
  readonly data: unknown;
  /** The server the call went to, when known. */
  readonly serverId: string | undefined;

  /**
   * Creates a client error.
   *
   * @param kind Why the call failed.
   * @param message What failed and what was expected, for people.
   * @param details Code, data, server id and cause.
   */
  constructor(kind: ClientErrorKind, message: string, details: ClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ClientError";
    this.kind = kind;
    this.code = details.code;
    this.data = details.data;
    this.serverId = details.serverId;
  }
}
