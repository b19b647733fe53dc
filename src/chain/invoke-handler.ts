/**
 * Runs one handler callback under a deadline and a parent signal. The callback gets its own
 * `AbortSignal`, which fires on the deadline or when the parent aborts; whatever the callback
 * does afterwards is ignored (a late answer is dropped), and an exception never escapes.
 *
 * @module
 */
import type { Timers } from "./timers.ts";

/** How a handler call ended. */
export type Invocation =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled"; readonly reason: unknown };

/** Options of {@linkcode invokeHandler}. */
export interface InvokeOptions {
  /** The deadline in milliseconds. */
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
 * @param callback Receives the signal; may return a value or a promise.
 * @param options Deadline, parent signal and timers.
 * @returns How the call ended; never rejects.
 * @example
 * ```ts
 * import { invokeHandler } from "./invoke-handler.ts";
 * import { systemTimers } from "./timers.ts";
 * const outcome = await invokeHandler(() => 42, { timeoutMs: 1000, timers: systemTimers });
 * console.log(outcome); // { kind: "value", value: 42 }
 * ```
 */
export function invokeHandler(
  callback: (signal: AbortSignal) => unknown,
  options: InvokeOptions,
): Promise<Invocation> {
  const { parent, timers } = options;
  if (parent?.aborted === true) return Promise.resolve({ kind: "cancelled", reason: parent.reason });
  const controller = new AbortController();
  return new Promise<Invocation>((resolve) => {
    let done = false;
    const finish = (outcome: Invocation, abortReason?: unknown) => {
      if (done) return;
      done = true;
      timers.clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
      if (abortReason !== undefined) controller.abort(abortReason);
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
    parent?.addEventListener("abort", onParentAbort, { once: true });
    let result: unknown;
    try {
      result = callback(controller.signal);
    } catch (error) {
      finish({ kind: "threw", error });
      return;
    }
    if (result instanceof Promise || (typeof result === "object" && result !== null && "then" in result)) {
      Promise.resolve(result).then(
        (value) => finish({ kind: "value", value }),
        (error: unknown) => finish({ kind: "threw", error }),
      );
    } else {
      finish({ kind: "value", value: result });
    }
  });
}
