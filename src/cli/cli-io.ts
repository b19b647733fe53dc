/// <reference types="node" />
/**
 * What the `sluice` command reads and writes: its streams, environment and terminal facts,
 * injected so tests drive the command with scripted input and read back every byte it printed.
 *
 * @module
 */
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

/**
 * Builds the {@linkcode CliIo} of this process: its streams and environment, and a signal
 * aborted by the first SIGINT or SIGTERM (a second one exits at once with code 130).
 *
 * @returns The io, and `close()` to remove the signal listeners.
 * @example
 * ```ts
 * import { openProcessIo } from "./cli-io.ts";
 * const { io, close } = openProcessIo();
 * io.stdout.write(io.isTTY ? "a terminal\n" : "not a terminal\n");
 * close();
 * ```
 */
export function openProcessIo(): { readonly io: CliIo; close(): void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(130);
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
  return {
    io,
    close: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The process's streams whose reader closed the pipe. */
const closedPipes = new WeakSet<NodeJS.WriteStream>();

/**
 * A writer to one of the process's streams that outlives its reader: a closed pipe (`| head -1`)
 * ends the output, not the command. Node's unheard `EPIPE` would end the process with code 1; other
 * errors still do. The listener stays (once per stream): the event may come after the command ends.
 */
function pipeWriter(stream: NodeJS.WriteStream): CliWriter {
  if (!stream.listeners("error").includes(onPipeError)) stream.on("error", onPipeError);
  return {
    write: (text: string) => closedPipes.has(stream) || stream.write(text),
    backlog: () => stream.writableLength,
  };
}

function onPipeError(this: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE") throw error;
  closedPipes.add(this);
}
