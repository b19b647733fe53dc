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

/** How long the exit waits for stdout and stderr once a signal has stopped the command. */
const SIGNALLED_FLUSH_MS = 5_000;

/**
 * Builds the {@linkcode CliIo} of this process: its streams and environment, and a signal
 * aborted by the first SIGINT or SIGTERM (a second one exits at once with code 130).
 *
 * @returns The io, and `close()`, which waits until stdout and stderr have taken all that was
 *   written to them (a reader that closed the pipe counts as done), then removes the signal
 *   listeners. A command that ended by itself waits as long as the reader takes, and a SIGINT or
 *   SIGTERM meanwhile exits at once with code 130. A command stopped by a signal (`sluice serve`)
 *   waits at most 5 s from it, then says on stderr how much of its output was not taken. A write
 *   that failed (a full disk) is thrown, once waited for.
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
  let deadline: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted || closing) process.exit(130);
    deadline = Date.now() + SIGNALLED_FLUSH_MS;
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
  const taken = async (): Promise<boolean> => {
    const flushed = Promise.all([stdout.taken(), stderr.taken()]).then(() => true);
    if (deadline === undefined) return await flushed;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((done) => (timer = setTimeout(done, deadline! - Date.now(), false)));
    try {
      return await Promise.race([flushed, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    io,
    close: async () => {
      closing = true;
      if (!await taken() && stdout.backlog() > 0) {
        stderr.write(
          `sluice: stdout did not take the last ${stdout.backlog()} bytes of output within ` +
            `${SIGNALLED_FLUSH_MS / 1000} s of the signal; exiting without them\n`,
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
 * What the stream holds is counted by the writes' callbacks, which fire on Node, Deno and Bun once
 * the bytes are taken or the write failed; a write that throws instead (Deno, at times) holds
 * nothing. Bun's `writableLength` is always 0, and its callback for an empty write fires before
 * earlier writes are out, so neither can tell.
 */
function pipeWriter(stream: NodeJS.WriteStream): PipeWriter {
  if (!stream.listeners("error").includes(onPipeError)) stream.on("error", onPipeError);
  let held = 0;
  let failed: Error | undefined;
  let waiting: (() => void)[] = [];
  const settle = (): void => {
    if (held > 0 && !closedPipes.has(stream)) return;
    for (const done of waiting) done();
    waiting = [];
  };
  return {
    write: (text: string) => {
      if (closedPipes.has(stream)) return false;
      const bytes = Buffer.byteLength(text);
      held += bytes;
      const done = (error?: Error | null): void => {
        held -= bytes;
        if (error && (error as NodeJS.ErrnoException).code !== "EPIPE") failed ??= error;
        settle();
      };
      try {
        return stream.write(text, done);
      } catch (error) {
        done();
        throw error;
      }
    },
    backlog: () => held,
    taken: () =>
      new Promise<void>((done) => {
        waiting.push(done);
        settle();
      }),
    failure: () => failed,
  };
}

function onPipeError(this: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE") throw error;
  closedPipes.add(this);
}
