/**
 * Abort plumbing for calls: one signal that fires when any of its sources fires (the caller's
 * signal, the whole-flow deadline, a leg's deadline), with timers injected so tests use a fake
 * clock. Every link is removed on `dispose`, so long-lived signals do not collect listeners.
 *
 * @module
 */
import type { Timers } from "../chain/timers.ts";

/** A signal with the means to stop listening to its sources. */
export interface LinkedSignal {
  /** Fires with the first source's reason. */
  readonly signal: AbortSignal;
  /** Removes every listener and timer; the signal stays as it is. */
  dispose(): void;
}

/** Why a deadline fired: carried as the abort reason so callers can tell deadlines apart. */
export class DeadlineReached extends Error {
  /** Which deadline: `"leg"` (one HTTP request) or `"total"` (the whole call). */
  readonly which: "leg" | "total";
  /** Its length in milliseconds. */
  readonly ms: number;

  /**
   * @param which Which deadline fired.
   * @param ms Its length.
   */
  constructor(which: "leg" | "total", ms: number) {
    super(`${which === "leg" ? "callTimeout" : "maxTotalTimeout"} of ${ms} ms reached`);
    this.name = "DeadlineReached";
    this.which = which;
    this.ms = ms;
  }
}

/**
 * Links sources into one signal, optionally adding a deadline.
 *
 * @param sources Signals to follow (`undefined` entries are skipped).
 * @param deadline A deadline to add: its length, which one it is, and the timers.
 * @returns The linked signal and its `dispose`.
 */
export function linkSignals(
  sources: readonly (AbortSignal | undefined)[],
  deadline?: { readonly ms: number; readonly which: "leg" | "total"; readonly timers: Timers },
): LinkedSignal {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  const dispose = () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  };
  const fire = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      fire(source.reason);
      return { signal: controller.signal, dispose };
    }
    const onAbort = () => fire(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => source.removeEventListener("abort", onAbort));
  }
  if (deadline !== undefined) {
    const handle = deadline.timers.setTimeout(
      () => fire(new DeadlineReached(deadline.which, deadline.ms)),
      deadline.ms,
    );
    cleanups.push(() => deadline.timers.clearTimeout(handle));
  }
  return { signal: controller.signal, dispose };
}

/**
 * Waits `ms` milliseconds, or until `signal` fires.
 *
 * @param ms How long.
 * @param timers The timers.
 * @param signal Ends the wait early.
 * @returns Resolves `true` after the wait, `false` when the signal fired first.
 */
export function pause(ms: number, timers: Timers, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      timers.clearTimeout(handle);
      resolve(false);
    };
    const handle = timers.setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
