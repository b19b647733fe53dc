/**
 * Writing to the process's stdout or stderr the way Deno's and Bun's `console.log` do: the text is
 * in the pipe (or file, or terminal) when the call returns, waiting while the reader is behind.
 *
 * Node's `process.stdout.write` to a pipe keeps what the pipe cannot take in the process, without
 * limit, and `process.exit` drops it: a gateway whose log reader stalls grows by every decision
 * line, and loses the lines still held when it exits.
 *
 * @module
 */
import { writeSync } from "node:fs";

/** What the wait for a full pipe sleeps on: nothing ever wakes it, so it sleeps its time. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const ENCODER = new TextEncoder();

/**
 * Writes all of `text` to a file descriptor, in order, and returns once it is written. A pipe
 * that is full (its descriptor non-blocking, as Node makes stdout's) is tried again every
 * millisecond until the reader takes it.
 *
 * @param fd The descriptor: 1 for stdout, 2 for stderr.
 * @param text The text, as UTF-8.
 * @returns `true` when written, `false` when the reader closed the pipe (`EPIPE`): nothing more
 *   can be written there.
 * @throws {Error} Any other write error, as `fs.writeSync` gives it.
 * @example
 * ```ts
 * import { writeAllSync } from "./write-sync.ts";
 * console.log(writeAllSync(1, "one line\n")); // true (after "one line")
 * ```
 */
export function writeAllSync(fd: number, text: string): boolean {
  const bytes = ENCODER.encode(text);
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "EPIPE") return false;
      if (code !== "EAGAIN") throw error;
      Atomics.wait(SLEEPER, 0, 0, 1);
    }
  }
  return true;
}
