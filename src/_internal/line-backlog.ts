/**
 * Decision lines to a stream whose reader may fall behind: Node's `process.stdout` holds whatever
 * the pipe has not taken, without limit. Lines past the bound are dropped and counted rather than
 * waited for, so the gateway goes on answering and still hears signals. Deno's and Bun's
 * `console.log` wait for the reader instead, blocking the event loop: there the lines are queued
 * here and written by the runtime's asynchronous write ({@linkcode queuedWrites}).
 *
 * @module
 */
import { joinBytes } from "./join-bytes.ts";

/** The most bytes of output held in the process, unwritten, before decision lines are dropped. */
export const MAX_LINE_BACKLOG: number = 4 * 1024 * 1024;

/** How long a gateway's `close()` waits for stdout to take the decision lines written before it. */
export const FLUSH_WAIT_MS: number = 5_000;

/** Where the lines go: a stream's `write`, and how many bytes it holds unwritten. */
export interface LineSink {
  write(text: string): unknown;
  /** The bytes written to the stream that it has not handed on yet (`writableLength`). */
  backlog(): number;
}

/** A writer of decision lines that drops them while its stream holds too much. */
export interface DroppingWriter {
  /** Writes `text`, which holds `lines` lines, or drops it while the stream holds too much. */
  write(text: string, lines: number): void;
  /** Says how many lines were dropped since it last said so, if any (a gateway's close). */
  sayDropped(): void;
}

/**
 * A writer of decision lines that drops them while `sink` holds more than
 * {@linkcode MAX_LINE_BACKLOG} bytes, and tells `dropped` how many before the next line it writes,
 * or when asked.
 *
 * @param sink The stream.
 * @param dropped Told the number of lines dropped.
 * @returns The writer.
 * @example
 * ```ts
 * import { droppingBehind } from "./line-backlog.ts";
 * let held = 0;
 * const lines = droppingBehind(
 *   { write: (text: string) => void (held += text.length), backlog: () => held },
 *   (count) => console.log(`${count} dropped`),
 * );
 * lines.write("a line\n", 1);
 * console.log(held); // 7
 * ```
 */
export function droppingBehind(sink: LineSink, dropped: (count: number) => void): DroppingWriter {
  let count = 0;
  const sayDropped = (): void => {
    if (count > 0) dropped(count);
    count = 0;
  };
  return {
    write: (text, lines) => {
      if (sink.backlog() > MAX_LINE_BACKLOG) {
        count += lines;
        return;
      }
      sayDropped();
      sink.write(text);
    },
    sayDropped,
  };
}

/** A {@linkcode LineSink} that never blocks: what it is given is queued and written in order. */
export interface QueuedSink extends LineSink {
  /** Queues `text`; nothing more once a write has failed (the reader closed the stream). */
  write(text: string): void;
  /** The bytes queued or being written. */
  backlog(): number;
  /**
   * Resolves once everything queued is written or a write has failed, or after
   * {@linkcode FLUSH_WAIT_MS} (`process.exit` drops what is still queued).
   */
  flushed(): Promise<void>;
}

/**
 * A sink whose text is written in order by one asynchronous writer, `write`, given all that was
 * queued while its last write was out, and again with the rest when it writes less. A write that
 * rejects (`EPIPE`: the reader closed the stream) ends the sink's writes, not the process.
 *
 * @param write Writes bytes, as `Deno.stdout.write` or `(bytes) => Bun.write(Bun.stdout, bytes)`;
 *   resolves with how many it wrote.
 * @returns The sink.
 * @example
 * ```ts
 * import { queuedWrites } from "./line-backlog.ts";
 * const written: string[] = [];
 * const sink = queuedWrites((bytes) => {
 *   written.push(new TextDecoder().decode(bytes));
 *   return Promise.resolve(bytes.length);
 * });
 * sink.write("a\n");
 * sink.write("b\n");
 * console.log(sink.backlog()); // 4
 * await sink.flushed();
 * console.log(written, sink.backlog()); // [ "a\n", "b\n" ] 0
 * ```
 */
export function queuedWrites(write: (bytes: Uint8Array) => Promise<number>): QueuedSink {
  const encoder = new TextEncoder();
  let queued: Uint8Array[] = [];
  let bytes = 0;
  let failed = false;
  let writing: Promise<void> | undefined;
  const writeQueued = async (): Promise<void> => {
    try {
      while (queued.length > 0) {
        const batch = joinBytes(queued, Infinity);
        queued = [];
        for (let done = 0; done < batch.length;) {
          const count = await write(batch.subarray(done));
          // A writer that takes nothing would be asked forever.
          if (!(count > 0)) throw new Error(`expected a write to take bytes, it took "${count}"`);
          done += count;
        }
        bytes -= batch.length;
      }
    } catch {
      failed = true;
      queued = [];
      bytes = 0;
    } finally {
      writing = undefined;
    }
  };
  return {
    write: (text) => {
      if (failed) return;
      const chunk = encoder.encode(text);
      queued.push(chunk);
      bytes += chunk.length;
      writing ??= writeQueued();
    },
    backlog: () => bytes,
    flushed: () => {
      const idle = writing;
      if (idle === undefined) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, FLUSH_WAIT_MS);
        void idle.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** The decision lines of a gateway on Deno or Bun: to stdout, never blocking. */
export interface StdoutLines {
  /** Queues `line` and a newline, or drops it while more than {@linkcode MAX_LINE_BACKLOG} bytes wait. */
  writeLine(line: string): void;
  /**
   * Says on stderr how many lines were dropped, if any, and resolves once stdout has taken the rest,
   * or after {@linkcode FLUSH_WAIT_MS}: a running gateway's `close()` ends with it.
   */
  flushed(): Promise<void>;
}

/**
 * Decision lines written by `write` through {@linkcode queuedWrites} and {@linkcode droppingBehind}:
 * the count of dropped lines is said on stderr as the Node entry says it.
 *
 * @param write The runtime's asynchronous write to stdout; resolves with how many bytes it wrote.
 * @returns The lines.
 * @example
 * ```ts
 * import { stdoutLines } from "./line-backlog.ts";
 * let out = "";
 * const lines = stdoutLines((bytes) => {
 *   out += new TextDecoder().decode(bytes);
 *   return Promise.resolve(bytes.length);
 * });
 * lines.writeLine("{}");
 * await lines.flushed();
 * console.log(out); // "{}\n"
 * ```
 */
export function stdoutLines(write: (bytes: Uint8Array) => Promise<number>): StdoutLines {
  const sink = queuedWrites(write);
  const lines = droppingBehind(
    sink,
    (count) => console.error(`sluice: ${count} decision lines dropped: stdout was not read fast enough`),
  );
  return {
    writeLine: (line) => lines.write(`${line}\n`, 1),
    flushed: () => {
      lines.sayDropped();
      return sink.flushed();
    },
  };
}
