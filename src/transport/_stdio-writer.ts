/// <reference types="node" />
/**
 * Writes lines to a child's stdin and counts the bytes handed over but not yet taken by the
 * operating system, so the connection can refuse to queue more when the child stops reading.
 *
 * @module
 */
import type { Writable } from "node:stream";
import { ConnectionError } from "./legacy-connection.ts";

/** A child's stdin, with the bytes still waiting counted. */
export interface StdinWriter {
  /** Bytes written and not yet flushed to the operating system. */
  readonly waiting: number;
  /**
   * Writes one line; resolves once flushed, rejects with a `ConnectionError` (kind `"closed"`)
   * when the pipe fails.
   */
  write(line: Uint8Array, label: string): Promise<void>;
  /** Rejects every write not yet flushed with the error made for its label. */
  abandon(errorFor: (label: string) => Error): void;
}

/**
 * Wraps a child's stdin.
 *
 * @param stdin The pipe; its `"error"` events must be handled by the caller.
 * @returns The writer.
 */
export function createStdinWriter(stdin: Writable): StdinWriter {
  const unsettled = new Map<(error: Error | undefined) => void, string>();
  let waiting = 0;
  return {
    get waiting() {
      return waiting;
    },
    write(line, label) {
      waiting += line.length;
      return new Promise<void>((resolve, reject) => {
        const settle = (error: Error | undefined): void => {
          if (!unsettled.delete(settle)) return;
          if (error === undefined) resolve();
          else reject(error);
        };
        unsettled.set(settle, label);
        stdin.write(line, (error) => {
          waiting -= line.length;
          if (error == null) return settle(undefined);
          settle(
            new ConnectionError("closed", `${label} could not be written: ${error.message}`, {
              cause: error,
            }),
          );
        });
      });
    },
    abandon(errorFor) {
      for (const [settle, label] of [...unsettled]) settle(errorFor(label));
    },
  };
}
