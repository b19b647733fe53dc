/// <reference types="node" />
/**
 * What the `sluice` command reads and writes: its streams, environment and terminal facts,
 * injected so tests drive the command with scripted input and read back every byte it printed.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import process from "node:process";

/** Where text goes: `process.stdout`, or a test's collector. */
export interface CliWriter {
  /** Writes the text as it is (the command adds its own newlines). */
  write(text: string): unknown;
  /** The bytes written that the stream holds unwritten (its reader is behind). @default 0 */
  backlog?(): number;
}

/** The command's world: streams, environment, working directory and interruption. */
export interface CliIo {
  /** The answers typed at prompts, read line by line. */
  readonly stdin: AsyncIterable<Uint8Array | string>;
  /** Reports, prompts, progress and tool results. */
  readonly stdout: CliWriter;
  /** Errors, notes and server log entries. */
  readonly stderr: CliWriter;
  /** Environment variables (`NO_COLOR`, `PORT`, `SLUICE_STATE_KEY`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal: colours (unless `NO_COLOR` is set) and a progress bar redrawn in place. */
  readonly isTTY: boolean;
  /**
   * Whether stdin is a terminal, which shows what is typed; otherwise each answer read is echoed
   * after its prompt, so the output reads as a transcript.
   * @default isTTY
   */
  readonly stdinIsTTY?: boolean;
  /**
   * Whether stderr is a terminal: with stdout sent to a file or a pipe, `sluice call` asks its
   * questions there, where the person sees them.
   * @default isTTY
   */
  readonly stderrIsTTY?: boolean;
  /** The folder relative paths start from, and the root `call` offers. @default the process's */
  readonly cwd?: string;
  /** Aborted on SIGINT or SIGTERM: `serve` stops, `call` is cancelled. @default never aborted */
  readonly signal?: AbortSignal;
}

/** How long, once a signal has stopped the command, the exit waits for a reader that takes nothing. */
const STALLED_MS = 5_000;

/**
 * Builds the {@linkcode CliIo} of this process: its streams and environment, and a signal
 * aborted by the first SIGINT or SIGTERM (a second one exits at once with code 130).
 *
 * @returns The io, and `close()`, which waits until stdout and stderr have taken all that was
 *   written to them (a reader that closed the pipe counts as done), then removes the signal
 *   listeners. A command that ended by itself waits as long as the reader takes, and a SIGINT or
 *   SIGTERM meanwhile exits at once with code 130. A command stopped by a signal (`sluice serve`)
 *   waits while the reader takes something at least every 5 s, then says on stderr how much of
 *   its output was not taken. On Deno a write waits for the reader instead, and no signal is
 *   heard meanwhile. A failed write (a full disk) ends the process with its error and code 1.
 * @example
 * ```ts
 * import { openProcessIo } from "./cli-io.ts";
 * const { io, close } = openProcessIo();
 * io.stdout.write(io.isTTY ? "a terminal\n" : "not a terminal\n");
 * await close();
 * ```
 */
export function openProcessIo(): { readonly io: CliIo; close(): Promise<void> } {
  const controller = new AbortController();
  let closing = false;
  let signalledAt = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted || closing) process.exit(130);
    signalledAt = Date.now();
    controller.abort(new Error(`Received ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const stdout = pipeWriter(process.stdout);
  const stderr = pipeWriter(process.stderr);
  const io: CliIo = {
    stdin: process.stdin,
    stdout,
    stderr,
    env: process.env,
    isTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  /** Whether all was taken; after a signal, `false` once 5 s pass with nothing taken. */
  const taken = async (): Promise<boolean> => {
    const flushed = Promise.all([stdout.taken(), stderr.taken()]).then(() => true);
    if (!controller.signal.aborted) return await flushed;
    for (;;) {
      const quietMs = Date.now() - Math.max(signalledAt, stdout.lastTaken(), stderr.lastTaken());
      if (quietMs >= STALLED_MS) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const quiet = new Promise<false>((done) => (timer = setTimeout(done, STALLED_MS - quietMs, false)));
      const done = await Promise.race([flushed, quiet]);
      clearTimeout(timer);
      if (done) return true;
    }
  };
  return {
    io,
    close: async () => {
      closing = true;
      if (!await taken() && stdout.backlog() > 0) {
        // Past the queue, which may still hold stderr's last line: the process exits next.
        process.stderr.write(
          `sluice: stdout took nothing for ${STALLED_MS / 1000} s after the signal; exiting without ` +
            `up to ${stdout.backlog()} bytes of output (the last line it took may be cut short)\n`,
        );
      }
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      const failure = stdout.failure() ?? stderr.failure();
      if (failure !== undefined) throw failure;
    },
  };
}

/** A writer to one of the process's streams that can say when all written has been taken. */
interface PipeWriter extends CliWriter {
  backlog(): number;
  /** Settles once the stream holds nothing written through this writer, or its reader is gone. */
  taken(): Promise<void>;
  /** When the stream last took (or failed) a write, in `Date.now()` milliseconds; 0 if never. */
  lastTaken(): number;
  /** The first write that failed, but for a reader that closed the pipe. */
  failure(): Error | undefined;
}

/** The process's streams whose reader closed the pipe. */
const closedPipes = new WeakSet<NodeJS.WriteStream>();

/**
 * A writer to one of the process's streams that outlives its reader: a closed pipe (`| head -1`)
 * ends the output, not the command. Node's unheard `EPIPE` would end the process with code 1; other
 * errors still do. The listener stays (once per stream): the event may come after the command ends.
 *
 * One write at a time is handed to the stream and the rest wait here, so each write's callback
 * says one more was taken: Node hands its whole queue to one `writev` and calls back only when
 * all of it is out, and Bun's `writableLength` is always 0. A write that throws (Deno, at times)
 * drops what waited behind it, and is thrown unless the reader is gone.
 */
function pipeWriter(stream: NodeJS.WriteStream): PipeWriter {
  if (!stream.listeners("error").includes(onPipeError)) stream.on("error", onPipeError);
  let held = 0;
  let lastTaken = 0;
  let failed: Error | undefined;
  const queue: string[] = [];
  let writing = false;
  let waiting: (() => void)[] = [];
  const settle = (): void => {
    if (held > 0 && !closedPipes.has(stream)) return;
    for (const done of waiting) done();
    waiting = [];
  };
  const next = (): void => {
    const text = queue.shift();
    writing = text !== undefined && !closedPipes.has(stream);
    if (!writing) {
      queue.length = 0;
      held = 0;
      return settle();
    }
    const bytes = Buffer.byteLength(text!);
    const done = (error?: Error | null): void => {
      held -= bytes;
      lastTaken = Date.now();
      if (error && !readerGone(error)) failed ??= error;
      next();
    };
    try {
      stream.write(text!, done);
    } catch (error) {
      queue.length = 0;
      if (readerGone(error)) closedPipes.add(stream);
      done();
      if (!readerGone(error)) throw error;
    }
  };
  return {
    write: (text: string) => {
      if (closedPipes.has(stream)) return false;
      held += Buffer.byteLength(text);
      queue.push(text);
      if (!writing) next();
      return true;
    },
    backlog: () => held,
    taken: () =>
      new Promise<void>((done) => {
        waiting.push(done);
        settle();
      }),
    lastTaken: () => lastTaken,
    failure: () => failed,
  };
}

function onPipeError(this: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  if (!readerGone(error)) throw error;
  closedPipes.add(this);
}

/** Whether a write failed because the reader closed the pipe (a socket pair's reader: a reset). */
function readerGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "EPIPE" || code === "ECONNRESET";
}
