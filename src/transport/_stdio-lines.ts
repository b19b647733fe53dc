/**
 * Splits a byte stream into lines on `\n` (a `\r` just before it is dropped), holding at most
 * `maxBytes + 1` bytes of an unfinished line: a longer line is reported once, cut to its first
 * `maxBytes` bytes, and the rest of it, up to the next `\n`, is skipped as it arrives.
 *
 * @module
 */
import { joinBytes } from "../_internal/join-bytes.ts";

/** Where a {@linkcode LineSplitter} sends what it finds. */
export interface LineSink {
  /** A complete line of at most `maxBytes` bytes, without its line ending. */
  readonly line: (bytes: Uint8Array) => void;
  /** A line longer than `maxBytes`: its first `maxBytes` bytes; the rest of it is skipped. */
  readonly overflow: (head: Uint8Array) => void;
}

/** A byte stream being split into lines. */
export interface LineSplitter {
  /** Feeds the next chunk; complete lines go to the sink before it returns. */
  push(chunk: Uint8Array): void;
  /** Takes the unfinished last line (bytes after the last `\n`), if any, and forgets it. */
  rest(): Uint8Array | undefined;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Creates a line splitter.
 *
 * @param maxBytes The longest line accepted, in bytes, line ending excluded.
 * @param sink Receives complete lines and over-long ones.
 * @returns The splitter.
 */
export function createLineSplitter(maxBytes: number, sink: LineSink): LineSplitter {
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const reset = (): void => {
    parts = [];
    size = 0;
  };
  const keep = (piece: Uint8Array): void => {
    if (skipping || piece.length === 0) return;
    if (size + piece.length > maxBytes + 1) {
      const head = joinBytes([...parts, piece], maxBytes);
      reset();
      skipping = true;
      sink.overflow(head);
      return;
    }
    parts.push(piece);
    size += piece.length;
  };
  const finish = (): void => {
    if (skipping) {
      skipping = false;
      return;
    }
    let line = joinBytes(parts, size);
    reset();
    if (line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    if (line.length > maxBytes) sink.overflow(line.subarray(0, maxBytes));
    else sink.line(line);
  };
  return {
    push(chunk) {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        keep(chunk.subarray(start, end));
        finish();
        start = end + 1;
      }
      if (start < chunk.length) keep(chunk.subarray(start));
    },
    rest() {
      const line = skipping || size === 0 ? undefined : joinBytes(parts, size);
      reset();
      skipping = false;
      return line;
    },
  };
}
