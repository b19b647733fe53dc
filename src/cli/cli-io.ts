/// <reference types="node" />
/**
 * What the `sluice` command reads and writes: its streams, environment and terminal facts,
 * injected so tests drive the command with scripted input and read back every byte it printed.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { writeSync } from "node:fs";
import process from "node:process";
import { runtimeName } from "./_load-module.ts";

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
 *   heard meanwhile. A failed write (a full disk) ends the process at once with code 1.
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
    },
  };
}

/** A writer to one of the process's streams that can say when all written has been taken. */
interface PipeWriter extends CliWriter {
  backlog(): number;
  /** Settles once the stream holds nothing written through this writer, or its reader is gone. */
  taken(): Promise<void>;
  /** When the stream last took a write, in `Date.now()` milliseconds; 0 if never. */
  lastTaken(): number;
}

const IS_BUN = runtimeName() === "bun";

/** How much of what waited to be written goes to the stream in one write, in UTF-16 units. */
const PIECE_LENGTH = 64 * 1024;

/** The process's streams whose reader closed the pipe. */
const closedPipes = new WeakSet<NodeJS.WriteStream>();

/**
 * A writer to one of the process's streams that outlives its reader: a closed pipe (`| head -1`)
 * ends the output, not the command. Any other failed write (a full disk) ends the process with
 * code 1 and one line on stderr. The error listener stays (once per stream): the event may come
 * after the command ends.
 *
 * What the stream holds is counted by the writes' callbacks, which fire once the bytes are taken
 * (Bun's `writableLength` is always 0). While the stream holds something, further writes wait
 * here and go on in pieces of about 64 KiB, so each callback shows progress: Node calls back for a
 * whole `writev` of its queue at once. A reader that keeps up gets every write at once; on Node and
 * Deno in order with the other stream's, on Bun each stream keeps only its own order. With both
 * streams in one pipe (`2>&1`) and its reader behind, a stderr line can land inside a long stdout
 * line, as with any two writers.
 */
function pipeWriter(stream: NodeJS.WriteStream): PipeWriter {
  if (!stream.listeners("error").includes(onPipeError)) stream.on("error", onPipeError);
  let held = 0;
  let lastTaken = 0;
  let inFlight = 0;
  // What waits, from `queue[first]` on (`shift()` costs the length of a long queue).
  let queue: string[] = [];
  let first = 0;
  let waiting: (() => void)[] = [];
  const settle = (): void => {
    if (held > 0 && !closedPipes.has(stream)) return;
    for (const done of waiting) done();
    waiting = [];
  };
  // Whether the stream holds something. Bun's `writableLength` is always 0 and its own buffer
  // splits lines when it holds several writes, so there a write still in flight counts.
  const holding = (): boolean => stream.writableLength > 0 || (IS_BUN && inFlight > 0);
  const send = (text: string): void => {
    const bytes = Buffer.byteLength(text);
    inFlight++;
    const done = (error?: Error | null): void => {
      inFlight--;
      held = Math.max(0, held - bytes);
      lastTaken = Date.now();
      if (error && !readerGone(error)) writeFailed(stream, error);
      if (error) closedPipes.add(stream);
      next();
    };
    try {
      stream.write(text, done);
    } catch (error) {
      // Deno throws some failures instead of calling back.
      if (!readerGone(error)) writeFailed(stream, error);
      closedPipes.add(stream);
      done();
    }
  };
  const next = (): void => {
    if (closedPipes.has(stream)) {
      queue = [];
      first = 0;
      held = 0;
    }
    while (first < queue.length && !holding()) {
      // What waited goes in pieces of about a pipe's size: one each loop turn, each shown taken.
      let text = queue[first++]!;
      while (first < queue.length && text.length + queue[first]!.length <= PIECE_LENGTH) {
        text += queue[first++];
      }
      send(text);
    }
    // What was sent leaves the array once it is half of it.
    if (first > 0 && first * 2 >= queue.length) {
      queue = queue.slice(first);
      first = 0;
    }
    settle();
  };
  return {
    write: (text: string) => {
      if (closedPipes.has(stream)) return false;
      held += Buffer.byteLength(text);
      queue.push(text);
      next();
      return true;
    },
    backlog: () => held,
    taken: () =>
      new Promise<void>((done) => {
        waiting.push(done);
        settle();
      }),
    lastTaken: () => lastTaken,
  };
}

function onPipeError(this: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  if (readerGone(error)) closedPipes.add(this);
  else writeFailed(this, error);
}

/** Whether a write failed because the reader closed the pipe (a socket pair's reader: a reset). */
function readerGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "EPIPE" || code === "ECONNRESET";
}

/** Ends the process (code 1) on a write that failed for another reason, saying so on stderr. */
function writeFailed(stream: NodeJS.WriteStream, error: unknown): never {
  const which = stream === process.stderr ? "stderr" : "stdout";
  try {
    // Synchronous: the process exits next.
    writeSync(
      2,
      `sluice: cannot write to ${which}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  } catch {
    // stderr cannot be written either: the exit code says it.
  }
  process.exit(1);
}
