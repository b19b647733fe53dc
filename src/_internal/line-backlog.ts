/**
 * Decision lines to a stream whose reader may fall behind (a log shipper that stalls, a pipe
 * nobody reads): Node's `process.stdout` keeps in the process whatever the pipe has not taken,
 * without limit. Past {@linkcode MAX_LINE_BACKLOG} bytes held, lines are dropped and counted
 * rather than held, and the count is told once a line is written again. The gateway goes on
 * answering, and a signal still reaches it: a writer that waited for the reader instead would
 * hold both (and would cut into a line the stream still holds).
 *
 * @module
 */

/** The most bytes of output held in the process, unwritten, before decision lines are dropped. */
export const MAX_LINE_BACKLOG: number = 4 * 1024 * 1024;

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
 * {@linkcode MAX_LINE_BACKLOG} bytes, and tells `dropped` how many it dropped: before the next
 * line it writes, or when asked.
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
