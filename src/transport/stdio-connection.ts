/**
 * The stdio transport of the legacy era (self-hosted only): one child process per connection,
 * newline-delimited JSON-RPC on its stdin and stdout, free-form logs on its stderr.
 *
 * @module
 */
import { integerOption } from "../_internal/integer-option.ts";
import { systemTimers, type Timers } from "../_internal/timers.ts";
import type { CompiledStdioTransport } from "../policy/compile-policy.ts";
import type { ConnectionFactory } from "./legacy-connection.ts";
import { StdioLink, type StdioSettings } from "./_stdio-link.ts";
import { messageLimit, type MessageLimits } from "../protocol/message-limits.ts";
import type { DroppedLine } from "./_stdio-read-line.ts";

export type { DroppedLine } from "./_stdio-read-line.ts";

/** Limits and timings of a stdio connection. */
export interface StdioConnectionOptions
  extends Partial<Pick<MessageLimits, "maxMessageBytes" | "maxJsonDepth">> {
  /**
   * The most bytes written to the server's stdin and not yet taken by the operating system (the
   * server stopped reading). A write that would go over is refused: it rejects with a
   * `ConnectionError` (kind `"closed"`), the connection fails and the process is killed.
   * @default 8388608
   */
  readonly maxPendingBytes?: number;
  /**
   * The longest stderr line passed to `onStderr`, in bytes; a longer one is cut there and the
   * rest of it skipped.
   * @default 8192
   */
  readonly maxStderrLineBytes?: number;
  /**
   * How long `close()` waits for the process to exit after ending its stdin before SIGTERM, again
   * after SIGTERM before SIGKILL, and at most once more after SIGKILL, in milliseconds.
   * @default 2000
   */
  readonly graceMs?: number;
  /**
   * How long a notification or an answer may wait to be flushed to the server's stdin, in
   * milliseconds (the policy's `callTimeout`): a server that stops reading would hold it until the end.
   * @default 60000
   */
  readonly callTimeoutMs?: number;
  /**
   * The timers of the `callTimeoutMs` deadlines.
   * @default the runtime's
   */
  readonly timers?: Timers;
  /** Told about each stdout line dropped (the connection carries on); must not throw. */
  readonly onDroppedLine?: (dropped: DroppedLine) => void;
}

/**
 * Makes the connection factory of a stdio server: each call starts the server's process (no
 * shell) and returns a `LegacyConnection` over its pipes. Uses `node:child_process`
 * (Node, Deno with `--allow-run` and `--allow-env`, Bun), so it is for self-hosted use only.
 *
 * - Environment: only `HOME`, `LANG`, `LC_ALL`, `LC_CTYPE`, `LOGNAME`, `PATH`, `SHELL`, `TERM`,
 *   `TMPDIR` and `USER` of this process (on Windows `APPDATA`, `HOMEDRIVE`, `HOMEPATH`,
 *   `LOCALAPPDATA`, `PATH`, `PROCESSOR_ARCHITECTURE`, `PROGRAMFILES`, `SYSTEMDRIVE`,
 *   `SYSTEMROOT`, `TEMP`, `TMP`, `USERNAME`, `USERPROFILE`), when set and not a shell function
 *   (`() {…`), then `transport.env` over them. Never the rest: it holds the host's secrets.
 * - stdout: one JSON-RPC message per line, `\r\n` tolerated, blank lines skipped. A response
 *   settles its pending request; server requests and notifications go to `onServerMessage` in
 *   order, with `related: undefined`. A line that is not UTF-8, not JSON, a batch, not a
 *   JSON-RPC message, or a response to no pending id is dropped and told to `onDroppedLine`.
 *   A line over `maxMessageBytes` (even one still unfinished: no more than that, plus one pipe
 *   chunk, is ever held) or nested deeper than `maxJsonDepth` ends the connection instead: it
 *   may be the response a request waits for.
 * - stderr: each line, cut at `maxStderrLineBytes`, goes to `onStderr` unsanitized.
 * - stdin: one line per message; `notify()` and `respond()` resolve once it is flushed, and reject
 *   with kind `"aborted"` (the abort reason as its cause) when `notify()`'s signal fires or
 *   `callTimeoutMs` passes first.
 * - The connection ends once; `onClose` is told after every pending request has been rejected with
 *   a `ConnectionError` of kind `"closed"` naming the reason. After `close()` the end is `"closed"`;
 *   otherwise `"failed"`: the process exited (`process exited with code 1`, `process was killed by
 *   signal SIGKILL`), could not start (`could not start "x": command not found (ENOENT)`), or was
 *   killed because it wrote a line over `maxMessageBytes` or deeper than `maxJsonDepth`, stopped
 *   reading past `maxPendingBytes`, or still ran a second after closing its stdout (`the server
 *   closed its stdout and kept running`). An aborted request rejects at once with kind `"aborted"`;
 *   its late response is dropped.
 * - `close()` ends stdin, waits `graceMs`, sends SIGTERM, waits `graceMs`, sends SIGKILL, and
 *   resolves once the process has exited; calling it again returns the same promise.
 * - Process group (not on Windows): the process leads a new one (setsid) and the signals go to the
 *   whole group, so a server behind a launcher (`npx`, `uvx`, `sh -c`) gets them too; `close()`
 *   waits for the pipes to close, not only for the launcher to exit. The group does not get the
 *   terminal's Ctrl-C: on `process.exit()` with a connection open, its group is sent SIGTERM
 *   (SIGKILL if `close()` had sent SIGTERM); if this process dies of an unhandled signal, the server
 *   only sees its stdin close.
 *
 * The callbacks in `events` must not throw.
 *
 * @param transport The compiled stdio transport of a policy.
 * @param options Limits and timings.
 * @returns A factory that starts a new process on each call.
 * @throws {RangeError} When a limit or `callTimeoutMs` is not a positive integer, or `graceMs` not a
 *   non-negative one.
 * @example
 * ```ts
 * import { createStdioConnection } from "./stdio-connection.ts";
 * const connect = createStdioConnection(
 *   { kind: "stdio", command: "my-mcp-server", args: ["--stdio"], env: { LOG_LEVEL: "warn" }, cwd: undefined },
 *   { graceMs: 500 },
 * );
 * console.log(typeof connect); // "function"
 * ```
 */
export function createStdioConnection(
  transport: CompiledStdioTransport,
  options: StdioConnectionOptions = {},
): ConnectionFactory {
  const settings: StdioSettings = {
    maxMessageBytes: messageLimit(CALLER, "maxMessageBytes", options.maxMessageBytes),
    maxJsonDepth: messageLimit(CALLER, "maxJsonDepth", options.maxJsonDepth),
    maxPendingBytes: integerOption(`${CALLER}: "maxPendingBytes"`, options.maxPendingBytes, {
      fallback: 8 * 1024 * 1024,
      least: 1,
    }),
    maxStderrLineBytes: integerOption(`${CALLER}: "maxStderrLineBytes"`, options.maxStderrLineBytes, {
      fallback: 8192,
      least: 1,
    }),
    graceMs: integerOption(`${CALLER}: "graceMs"`, options.graceMs, { fallback: 2000, least: 0 }),
    callTimeoutMs: integerOption(`${CALLER}: "callTimeoutMs"`, options.callTimeoutMs, {
      fallback: 60_000,
      least: 1,
    }),
    timers: options.timers ?? systemTimers,
    onDroppedLine: options.onDroppedLine,
  };
  return (events) => new StdioLink(transport, settings, events);
}

const CALLER = "createStdioConnection()";
