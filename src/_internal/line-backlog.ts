/**
 * Decision lines to a stream whose reader may fall behind: Node's `process.stdout` holds whatever
 * the pipe has not taken, without limit. Lines past the bound are dropped and counted rather than
 * waited for, so the gateway goes on answering and still hears signals.
 *
 * @module
 */

/** The most bytes of output held in the process, unwritten, before decision lines are dropped. */
export const MAX_LINE_BACKLOG: number = 4 * 1024 * 1024;

/** Where the lines go: a stream's `write`, and how many bytes it holds unwritten. */
export interface LineSink {
  write(text: string): unknown;
  /** The bytes written to the stream that it has not handed on yet. */
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
