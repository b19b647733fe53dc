/**
 * The requests of a stdio connection still waiting for their response, keyed by id: each settles
 * once, with its response, an abort of its signal, or the end of the connection.
 *
 * @module
 */
import { ConnectionError } from "./legacy-connection.ts";
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from "../protocol/jsonrpc.ts";

type Answer = JsonRpcResultResponse | JsonRpcErrorResponse;

interface Entry {
  readonly label: string;
  readonly settle: (outcome: Answer | Error) => void;
}

/** Pending requests. */
export interface PendingRequests {
  /** Tells whether `id` is pending. */
  has(id: RequestId): boolean;
  /**
   * Registers a request, then sends it with `send`; the promise rejects with a `ConnectionError`
   * (kind `"aborted"`) as soon as `signal` aborts, and with `send`'s error if sending fails.
   */
  add(id: RequestId, label: string, signal: AbortSignal, send: () => Promise<void>): Promise<Answer>;
  /** Settles the request with `id`; `false` when none is pending. */
  settle(id: RequestId, outcome: Answer | Error): boolean;
  /** Rejects every pending request with the error made for its label. */
  rejectAll(errorFor: (label: string) => Error): void;
}

/**
 * Creates an empty set of pending requests.
 *
 * @returns The set.
 */
export function createPendingRequests(): PendingRequests {
  const entries = new Map<RequestId, Entry>();
  return {
    has: (id) => entries.has(id),
    add(id, label, signal, send) {
      return new Promise<Answer>((resolve, reject) => {
        const onAbort = (): void =>
          entry.settle(new ConnectionError("aborted", `${label} was aborted before its response arrived`));
        const entry: Entry = {
          label,
          settle: (outcome) => {
            if (entries.get(id) !== entry) return;
            entries.delete(id);
            signal.removeEventListener("abort", onAbort);
            if (outcome instanceof Error) reject(outcome);
            else resolve(outcome);
          },
        };
        entries.set(id, entry);
        signal.addEventListener("abort", onAbort, { once: true });
        let sent: Promise<void>;
        try {
          sent = send();
        } catch (error) {
          sent = Promise.reject(error);
        }
        sent.catch(entry.settle);
      });
    },
    settle(id, outcome) {
      const entry = entries.get(id);
      entry?.settle(outcome);
      return entry !== undefined;
    },
    rejectAll(errorFor) {
      for (const entry of [...entries.values()]) entry.settle(errorFor(entry.label));
    },
  };
}
