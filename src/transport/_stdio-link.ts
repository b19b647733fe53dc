/// <reference types="node" />
/**
 * One live stdio connection: the child process, its three pipes, the pending requests, the lines
 * written to stdin and not yet flushed, and the one-time end (see `stdio-connection.ts` for the
 * behaviour it promises).
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import {
  type ConnectionClosed,
  ConnectionError,
  type ConnectionEvents,
  type LegacyConnection,
} from "./legacy-connection.ts";
import type { CompiledStdioTransport } from "../policy/compile-policy.ts";
import {
  isResponse,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResultResponse,
  type RequestId,
} from "../protocol/jsonrpc.ts";
import { tooLarge } from "../protocol/message-limits.ts";
import { createLineSplitter } from "./_stdio-lines.ts";
import {
  describeExit,
  describeStartError,
  forgetProcess,
  OWN_GROUP,
  signalProcess,
  startProcess,
} from "./_stdio-process.ts";
import { type DroppedLine, readLine } from "./_stdio-read-line.ts";
import { linkSignals } from "../_internal/signals.ts";
import type { Timers } from "../_internal/timers.ts";

/** The resolved options of `createStdioConnection`. */
export interface StdioSettings {
  readonly maxMessageBytes: number;
  readonly maxJsonDepth: number;
  readonly maxPendingBytes: number;
  readonly maxStderrLineBytes: number;
  readonly graceMs: number;
  readonly callTimeoutMs: number;
  readonly timers: Timers;
  readonly onDroppedLine: ((dropped: DroppedLine) => void) | undefined;
}

type Answer = JsonRpcResultResponse | JsonRpcErrorResponse;

/** A request waiting for its response; `settle` is its one way out. */
interface PendingRequest {
  readonly label: string;
  readonly settle: (outcome: Answer | Error) => void;
}

const encoder = new TextEncoder();
/**
 * How long to wait, once the process has exited, for its pipes to close; and once its stdout has
 * ended, for it to exit.
 */
const EXIT_DRAIN_MS = 1000;

/** A {@linkcode LegacyConnection} over a child process's stdin and stdout. */
export class StdioLink implements LegacyConnection {
  readonly #settings: StdioSettings;
  readonly #events: ConnectionEvents;
  readonly #pending = new Map<RequestId, PendingRequest>();
  /** Each line written and not yet flushed: how to settle its write, and its label. */
  readonly #unflushed = new Map<(error: Error | undefined) => void, string>();
  /** Bytes written to stdin and not yet taken by the operating system. */
  #unflushedBytes = 0;
  readonly #stderrText = new TextDecoder();
  readonly #exited: Promise<void>;
  #markExited: () => void = () => {};
  /** Resolves once the child's pipes have closed (or it never started); see `#shutDown`. */
  readonly #released: Promise<void>;
  #markReleased: () => void = () => {};
  #child: ChildProcess | undefined;
  #stdin: Writable | undefined;
  #ended: ConnectionClosed | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;

  /**
   * Starts the process.
   *
   * @param transport What to run.
   * @param settings Limits and timings.
   * @param events Where to report.
   */
  constructor(transport: CompiledStdioTransport, settings: StdioSettings, events: ConnectionEvents) {
    this.#settings = settings;
    this.#events = events;
    this.#exited = new Promise((resolve) => this.#markExited = resolve);
    this.#released = new Promise((resolve) => this.#markReleased = resolve);
    const started = `could not start ${JSON.stringify(transport.command)}`;
    try {
      this.#child = startProcess(transport);
    } catch (error) {
      queueMicrotask(() => this.#startFailed(`${started}: ${describeStartError(error, transport.cwd)}`));
      return;
    }
    const child = this.#child;
    if (child.stdin !== null) this.#stdin = child.stdin;
    child.on("error", (error) => {
      if (child.pid === undefined) {
        this.#startFailed(`${started}: ${describeStartError(error, transport.cwd)}`);
      }
    });
    this.#watchPipes(child);
    // "close" follows "exit" once the pipes drain; a grandchild holding them must not keep the
    // connection alive (on POSIX, close() ends the group holding them, then closes them itself).
    let late: ReturnType<typeof setTimeout> | undefined;
    child.once("exit", (code, signal) =>
      late = setTimeout(() => {
        this.#onExit(code, signal);
        if (!(OWN_GROUP && this.#closing)) destroyPipes(child);
      }, EXIT_DRAIN_MS));
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(late);
      this.#onExit(child.exitCode ?? code, child.signalCode ?? signal ?? null);
      this.#markReleased();
    });
  }

  request(message: JsonRpcRequest, options: { readonly signal: AbortSignal }): Promise<Answer> {
    const { id } = message;
    const { signal } = options;
    const label = `Request ${JSON.stringify(id)} "${message.method}"`;
    if (this.#ended !== undefined) return Promise.reject(this.#endedError(label));
    if (signal.aborted) {
      return Promise.reject(new ConnectionError("aborted", `${label} was aborted before it was sent`));
    }
    if (this.#pending.has(id)) {
      return Promise.reject(new Error(`${label} reuses the id of a pending request, expected a fresh id`));
    }
    return new Promise<Answer>((resolve, reject) => {
      const onAbort = (): void =>
        settle(new ConnectionError("aborted", `${label} was aborted before its response arrived`));
      const settle = (outcome: Answer | Error): void => {
        if (this.#pending.get(id) !== pending) return;
        this.#pending.delete(id);
        signal.removeEventListener("abort", onAbort);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const pending: PendingRequest = { label, settle };
      this.#pending.set(id, pending);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#write(message, label).catch(settle);
    });
  }

  notify(message: JsonRpcNotification, options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    return this.#writeWithin(message, `Notification "${message.method}"`, options.signal);
  }

  respond(message: Answer): Promise<void> {
    return this.#writeWithin(message, `Response to ${JSON.stringify(message.id)}`);
  }

  negotiated(_version: string): void {}

  close(): Promise<void> {
    return this.#closed ??= this.#shutDown();
  }

  /**
   * The spec's stdio shutdown: end stdin, wait, SIGTERM, wait, SIGKILL. On POSIX each step waits
   * for the pipes to close, not only for the child to exit: a launcher may exit on SIGTERM and leave
   * the server it started (ignoring SIGTERM) holding them, and the SIGKILL is for that server.
   */
  async #shutDown(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    if (child !== undefined && this.#ended === undefined) {
      const { graceMs } = this.#settings;
      child.stdin?.end();
      if (!await this.#goneWithin(graceMs)) {
        signalProcess(child, "SIGTERM");
        if (!await this.#goneWithin(graceMs)) {
          signalProcess(child, "SIGKILL");
          await this.#goneWithin(graceMs);
        }
      }
    }
    await this.#exited;
    if (child !== undefined) {
      forgetProcess(child);
      // Held only by a process outside the group (one that left it, or on Windows).
      destroyPipes(child);
    }
  }

  /** Whether the process has gone within `ms`: its pipes closed (POSIX), or it exited. */
  #goneWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
    const gone = OWN_GROUP ? this.#released : this.#exited;
    return Promise.race([gone.then(() => true), late]).finally(() => clearTimeout(timer));
  }

  #watchPipes(child: ChildProcess): void {
    const { maxMessageBytes: max, maxStderrLineBytes } = this.#settings;
    const stdout = createLineSplitter(max, {
      line: (bytes) => this.#onLine(bytes),
      overflow: () => this.#fail(tooLarge("stdout line", max)),
    });
    const stderr = createLineSplitter(maxStderrLineBytes, {
      line: (bytes) => this.#onStderr(bytes),
      overflow: (head) => this.#onStderr(head),
    });
    // Write failures arrive through write callbacks, the end of the process through "close".
    for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.on("error", () => {});
    child.stdout?.on("data", (chunk: Uint8Array) => stdout.push(chunk));
    child.stdout?.on("end", () => {
      const rest = stdout.rest();
      if (rest !== undefined) this.#drop("unterminated", rest.length, "stdout ended inside a line");
      this.#onStdoutEnd(child);
    });
    child.stderr?.on("data", (chunk: Uint8Array) => stderr.push(chunk));
    child.stderr?.on("end", () => {
      const rest = stderr.rest();
      if (rest !== undefined) this.#onStderr(rest);
    });
  }

  #onLine(bytes: Uint8Array): void {
    if (this.#ended !== undefined) return;
    const read = readLine(bytes, this.#settings.maxJsonDepth);
    if (read.kind === "blank") return;
    if (read.kind === "too_deep") return this.#fail(`stdout line: ${read.problem}`);
    if (read.kind === "dropped") {
      // A response the request cannot use fails it now, as over HTTP, not at its timeout.
      const answered = read.responseTo === undefined ? undefined : this.#pending.get(read.responseTo);
      answered?.settle(
        new ConnectionError("protocol", `${answered.label}: invalid response: ${read.detail}`),
      );
      return this.#drop(read.reason, bytes.length, read.detail);
    }
    const { message } = read;
    if (!isResponse(message)) return this.#events.onServerMessage({ message, related: undefined });
    // An error with no id may answer any line the client wrote, so it is dropped and reported.
    const pending = message.id == null ? undefined : this.#pending.get(message.id);
    if (pending !== undefined) return pending.settle(message);
    this.#drop(
      "unknown_response",
      bytes.length,
      `response to id ${JSON.stringify(message.id)}, expected a pending id`,
    );
  }

  /**
   * A process that closes its stdout can answer nothing more: unless it exits meanwhile (its exit
   * says why) or close() ended it, the connection fails, so pending requests fail now rather than
   * at their timeout.
   */
  #onStdoutEnd(child: ChildProcess): void {
    const timer = setTimeout(() => {
      const running = child.exitCode === null && child.signalCode === null;
      if (!running || this.#closing || this.#ended !== undefined) return;
      this.#fail("the server closed its stdout and kept running");
    }, EXIT_DRAIN_MS);
    void this.#exited.then(() => clearTimeout(timer));
  }

  #onStderr(bytes: Uint8Array): void {
    if (this.#ended === undefined) this.#events.onStderr?.(this.#stderrText.decode(bytes));
  }

  #drop(reason: DroppedLine["reason"], bytes: number, detail: string): void {
    this.#settings.onDroppedLine?.({ reason, bytes, detail });
  }

  /**
   * Writes a line no response follows, within `callTimeoutMs` and `signal`: most are sent with no
   * signal of their own (answers, `notifications/cancelled`), and a server that stops reading its
   * stdin would otherwise hold them, and whoever awaits them, until the connection ends.
   */
  async #writeWithin(message: JsonRpcMessage, label: string, signal?: AbortSignal): Promise<void> {
    const { callTimeoutMs: ms, timers } = this.#settings;
    const leg = linkSignals([signal], { ms, which: "leg", timers });
    try {
      await this.#write(message, label, leg.signal);
    } finally {
      leg.dispose();
    }
  }

  /**
   * Writes one line; resolves once it is flushed to the operating system.
   *
   * @throws {ConnectionError} `closed` when the connection ended (or ends first), `aborted` (the
   *   abort reason as its cause) when `signal` fires first.
   */
  #write(message: JsonRpcMessage, label: string, signal?: AbortSignal): Promise<void> {
    const stdin = this.#stdin;
    if (this.#ended !== undefined || stdin === undefined) return Promise.reject(this.#endedError(label));
    const aborted = () =>
      new ConnectionError("aborted", `${label} was aborted before it was flushed`, { cause: signal?.reason });
    if (signal?.aborted === true) return Promise.reject(aborted());
    let line: Uint8Array;
    try {
      line = encoder.encode(JSON.stringify(message) + "\n");
    } catch (error) {
      return Promise.reject(error);
    }
    const waiting = this.#unflushedBytes + line.length;
    const max = this.#settings.maxPendingBytes;
    if (waiting > max) {
      this.#fail(
        `the server stopped reading its stdin: ${waiting} bytes would wait, expected at most ${max}`,
      );
      return Promise.reject(this.#endedError(label));
    }
    this.#unflushedBytes = waiting;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => settle(aborted());
      const settle = (error: Error | undefined): void => {
        if (!this.#unflushed.delete(settle)) return;
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      this.#unflushed.set(settle, label);
      signal?.addEventListener("abort", onAbort, { once: true });
      stdin.write(line, (error) => {
        this.#unflushedBytes -= line.length;
        if (error == null) return settle(undefined);
        const failed = new ConnectionError("closed", `${label} could not be written: ${error.message}`, {
          cause: error,
        });
        // EPIPE is most often a server that exited: its exit, once seen, says how it ended.
        if ((error as NodeJS.ErrnoException).code !== "EPIPE") return settle(failed);
        void this.#goneWithin(2 * EXIT_DRAIN_MS).then(() => settle(failed));
      });
    });
  }

  #endedError(label: string): ConnectionError {
    const reason = this.#ended?.reason ?? "the process did not start";
    return new ConnectionError("closed", `${label} failed: the connection ended (${reason})`);
  }

  #startFailed(reason: string): void {
    if (this.#child !== undefined) forgetProcess(this.#child);
    this.#markExited();
    this.#markReleased();
    this.#end("failed", reason);
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    // Ended by itself: nothing to signal at exit, and its pid may be reused (after close(),
    // #shutDown forgets it).
    if (!this.#closing && this.#child !== undefined) forgetProcess(this.#child);
    this.#markExited();
    const how = describeExit(code, signal);
    if (this.#closing) this.#end("closed", `closed by the client: ${how}`);
    else this.#end("failed", how);
  }

  #fail(reason: string): void {
    this.#end("failed", reason);
    if (this.#child !== undefined) signalProcess(this.#child, "SIGKILL");
  }

  #end(kind: ConnectionClosed["kind"], reason: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = { kind, reason };
    for (const { label, settle } of [...this.#pending.values()]) {
      settle(new ConnectionError("closed", `${label} got no response: the connection ended (${reason})`));
    }
    for (const [settle, label] of [...this.#unflushed]) settle(this.#endedError(label));
    this.#events.onClose(this.#ended);
  }
}

/** Closes this end of the child's pipes, whoever still holds the other. */
function destroyPipes(child: ChildProcess): void {
  for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
}
