/**
 * Runs one handler callback under a deadline and a parent signal. The callback's own `AbortSignal` fires on
 * the deadline or the parent's abort; anything the callback does afterwards is ignored, and an exception
 * never escapes. The signal is made on first read because most handlers never look at it and an
 * `AbortController` is the largest single cost of a call on Node.
 *
 * @module
 */
import type { Timers } from "../_internal/timers.ts";
import { whenAborted } from "../_internal/signals.ts";

/** How a handler call ended. */
export type Invocation =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled"; readonly reason: unknown };

/** Options of {@linkcode invokeHandler}. */
export interface InvokeOptions {
  /** The deadline in milliseconds (the policy's `handlerTimeout` for the kind, from `_kind-checks.ts`). */
  readonly timeoutMs: number;
  /** Aborts the call when it fires (server cancellation, a failed sibling, an abandoned call). */
  readonly parent?: AbortSignal | undefined;
  /** The timers to use. */
  readonly timers: Timers;
}

/**
 * Calls `callback` with a fresh signal and waits for the first of: its answer, its exception,
 * the deadline, or the parent's abort.
 *
 * @param callback Receives the lazy signal; may return a value or a promise.
 * @param options Deadline, parent signal and timers.
 * @returns How the call ended: at once when the callback answered or threw synchronously (or
 *   the parent had already aborted), else a promise that never rejects.
 * @example
 * ```ts
 * import { invokeHandler } from "./invoke-handler.ts";
 * import { systemTimers } from "../_internal/timers.ts";
 * const outcome = await invokeHandler(() => 42, { timeoutMs: 1000, timers: systemTimers });
 * console.log(outcome); // { kind: "value", value: 42 }
 * ```
 */
export function invokeHandler(
  callback: (signal: LazySignal) => unknown,
  options: InvokeOptions,
): Invocation | Promise<Invocation> {
  const { parent, timers } = options;
  if (parent?.aborted === true) return { kind: "cancelled", reason: parent.reason };
  const lazy = new LazySignal();
  let result: unknown;
  try {
    result = callback(lazy);
  } catch (error) {
    return { kind: "threw", error };
  }
  let thenable: boolean;
  try {
    thenable = result instanceof Promise ||
      (typeof result === "object" && result !== null && "then" in result);
  } catch (error) {
    // A revoked proxy (or one whose trap throws) cannot even be asked whether it is a promise:
    // its answer is unreadable, as if the callback had thrown.
    return { kind: "threw", error };
  }
  // A synchronous answer is returned as it is, so that a caller who gets no promise need not wait a turn.
  if (!thenable) return { kind: "value", value: result };
  return new Promise<Invocation>((resolve) => {
    let done = false;
    const finish = (outcome: Invocation, abortReason?: unknown) => {
      if (done) return;
      done = true;
      timers.clearTimeout(timer);
      stopHearing?.();
      if (abortReason !== undefined) lazy.abort(abortReason);
      resolve(outcome);
    };
    const onParentAbort = () => finish({ kind: "cancelled", reason: parent?.reason }, parent?.reason);
    const timer = timers.setTimeout(
      () =>
        finish(
          { kind: "timeout" },
          new DOMException(`Handler timed out after ${options.timeoutMs} ms`, "TimeoutError"),
        ),
      options.timeoutMs,
    );
    const stopHearing = parent === undefined ? undefined : whenAborted(parent, onParentAbort);
    Promise.resolve(result).then(
      (value) => finish({ kind: "value", value }),
      (error: unknown) => finish({ kind: "threw", error }),
    );
  });
}

/** An `AbortSignal` made on first read; aborting before that is remembered. */
export class LazySignal {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal (created now if it was never read). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /**
   * Aborts the signal, now or when it is first read.
   *
   * @param reason The abort reason.
   */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
