/**
 * Abort plumbing for calls: one signal that fires when any of its sources fires (the caller's
 * signal, the whole-flow deadline, a leg's deadline), with injected timers. Every link is removed
 * on `dispose`, so long-lived signals do not collect listeners.
 *
 * A call makes as few signals as it can, since on Node 20 an undici request given a freshly made
 * signal costs more CPU (bench/RESULTS.md): a leg's deadline ({@linkcode openLeg}) is armed on the
 * call's flow ({@linkcode openFlow}), since a leg that runs out of time ends the call anyway.
 *
 * @module
 */
import type { Timers } from "./timers.ts";

/** A signal with the means to stop listening to its sources. */
export interface LinkedSignal {
  /** Fires with the first source's reason. */
  readonly signal: AbortSignal;
  /** Removes every listener and timer; the signal stays as it is. */
  dispose(): void;
  /** Aborts the signal with `reason` (and disposes); nothing happens when it already fired. */
  abort(reason: unknown): void;
}

/** A deadline to add to a signal: its length, which one it is, and the timers. */
export interface Deadline {
  readonly ms: number;
  readonly which: "leg" | "total";
  readonly timers: Timers;
  /** The limit it enforces, when it is what is left of one (a call's later request). @default ms */
  readonly limitMs?: number;
}

/** The option each kind of deadline is, for messages. */
const DEADLINE_OPTIONS = { leg: "callTimeout", total: "maxTotalTimeout", state: "stateTtl" } as const;

/** Why a deadline fired: carried as the abort reason so callers can tell deadlines apart. */
export class DeadlineReached extends Error {
  /**
   * Which deadline: `"leg"` (one HTTP request), `"total"` (the whole call) or `"state"` (the
   * gateway's parked call, whose caller did not retry within the state's lifetime).
   */
  readonly which: "leg" | "total" | "state";
  /** Its length in milliseconds. */
  readonly ms: number;

  /**
   * @param which Which deadline fired.
   * @param ms Its length.
   */
  constructor(which: "leg" | "total" | "state", ms: number) {
    super(`${DEADLINE_OPTIONS[which]} of ${ms} ms reached`);
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
 * @returns The linked signal, its `dispose` and its `abort`.
 */
export function linkSignals(
  sources: readonly (AbortSignal | undefined)[],
  deadline?: Deadline,
): LinkedSignal {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  const dispose = () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  };
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  const linked: LinkedSignal = { signal: controller.signal, dispose, abort };
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      abort(source.reason);
      return linked;
    }
    cleanups.push(whenAborted(source, () => abort(source.reason)));
  }
  if (deadline !== undefined) cleanups.push(armDeadline(deadline, abort));
  return linked;
}

/** Per signal, the callbacks waiting for its abort (see {@linkcode whenAborted}). */
const WAITING = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Hears `signal`'s abort through one listener per signal, calling waiters in the order they began
 * to wait: many calls wait on one signal, and Node warns (`MaxListenersExceededWarning`) past ten
 * listeners on one `AbortSignal`.
 *
 * @param signal A signal that has not fired.
 * @param callback Called once when it fires.
 * @returns What stops waiting.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  let waiting = WAITING.get(signal);
  if (waiting === undefined) {
    const callbacks = new Set<() => void>();
    waiting = callbacks;
    WAITING.set(signal, callbacks);
    signal.addEventListener("abort", () => {
      WAITING.delete(signal);
      for (const waiter of [...callbacks]) waiter();
    }, { once: true });
  }
  const mine = waiting;
  mine.add(callback);
  return () => void mine.delete(callback);
}

/** The flows' signals, each with the abort of its flow. */
const FLOWS = new WeakMap<AbortSignal, (reason: unknown) => void>();

/**
 * Opens the flow of one call under the policy's `maxTotalTimeout`, the one place that deadline is
 * armed: {@linkcode linkSignals} with the whole call's deadline, on whose signal
 * {@linkcode openLeg} arms leg deadlines without making signals of their own.
 *
 * @param sources Signals to follow (`undefined` entries are skipped).
 * @param total The policy's `maxTotalTimeoutMs` and the timers; without it, no deadline.
 * @returns The flow's signal, its `dispose` and its `abort`.
 */
export function openFlow(
  sources: readonly (AbortSignal | undefined)[],
  total?: { readonly maxTotalTimeoutMs: number; readonly timers: Timers },
): LinkedSignal {
  const flow = linkSignals(
    sources,
    total === undefined ? undefined : { ms: total.maxTotalTimeoutMs, which: "total", timers: total.timers },
  );
  FLOWS.set(flow.signal, flow.abort);
  return flow;
}

/**
 * Opens one leg of a call (one request on the wire) under `parent`. Under a flow's signal the leg
 * is the flow itself, so its deadline and `abort` end the whole call; any other parent gets a
 * linked signal of its own.
 *
 * @param parent The call's signal.
 * @param deadline The leg's deadline (`callTimeout`), if any.
 * @returns The leg's signal, its `dispose` (clears the deadline) and its `abort`.
 */
export function openLeg(parent: AbortSignal, deadline?: Deadline): LinkedSignal {
  const abort = FLOWS.get(parent);
  if (abort === undefined) return linkSignals([parent], deadline);
  const dispose = deadline === undefined || parent.aborted ? () => {} : armDeadline(deadline, abort);
  return { signal: parent, dispose, abort };
}

/** Schedules `abort` with {@linkcode DeadlineReached}; returns what cancels it. */
function armDeadline(deadline: Deadline, abort: (reason: unknown) => void): () => void {
  const { ms, which, timers } = deadline;
  const handle = timers.setTimeout(() => abort(new DeadlineReached(which, deadline.limitMs ?? ms)), ms);
  return () => timers.clearTimeout(handle);
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

/** The waiters of a piece of shared work, and the means to stop it (see {@linkcode sharedWork}). */
interface SharedWaiters {
  readonly link: LinkedSignal;
  waiting: number;
  settled: boolean;
}

/** Shared work by its promise: what {@linkcode awaitShared} counts its waiters on. */
const sharedWaiters = new WeakMap<Promise<unknown>, SharedWaiters>();

/**
 * The signal of work several calls will wait for (a first listing, a handshake): it fires when
 * `owner` does, or when every call that waited stopped waiting before the work settled, so no
 * person or server is kept at it for nobody. Callers wait on `share`'s promise with
 * {@linkcode awaitShared}.
 *
 * @param owner The signal of what owns the work.
 * @returns The work's signal, and `share`, which marks its promise and returns it.
 */
export function sharedWork(owner: AbortSignal): {
  readonly signal: AbortSignal;
  share<T>(work: Promise<T>): Promise<T>;
} {
  let link: LinkedSignal;
  try {
    link = linkSignals([owner]);
  } catch {
    // Workers: a signal of another request cannot be listened to ("Cannot perform I/O on behalf of
    // a different request"); the work then ends by its own deadlines and its last waiter.
    link = linkSignals([]);
  }
  return {
    signal: link.signal,
    share(work) {
      const waiters: SharedWaiters = { link, waiting: 0, settled: false };
      sharedWaiters.set(work, waiters);
      const settle = () => {
        waiters.settled = true;
        link.dispose();
      };
      work.then(settle, settle);
      return work;
    },
  };
}

/**
 * Shared work a new caller may still join: `undefined` when it was stopped but has not settled,
 * so a caller in that window starts the work anew rather than get its cancellation.
 *
 * @param work The work kept for joining, if any.
 * @returns `work` when it may be joined, else `undefined`.
 */
export function joinable<T>(work: Promise<T> | undefined): Promise<T> | undefined {
  const waiters = work === undefined ? undefined : sharedWaiters.get(work);
  return waiters !== undefined && !waiters.settled && waiters.link.signal.aborted ? undefined : work;
}

/**
 * Waits under one caller's signal for shared work: a caller whose signal fires rejects with its
 * own cancellation and the work goes on for the others (work marked by {@linkcode sharedWork}
 * stops once the last has left). Work already settled wins over a signal already fired.
 *
 * @param work The shared work.
 * @param caller The caller's signal, and its cancellation made from the signal's reason.
 * @returns What `work` resolved to.
 * @throws What `work` rejected with, or what `cancelled` made once `signal` fired.
 */
export function awaitShared<T>(
  work: Promise<T>,
  caller: { readonly signal: AbortSignal; readonly cancelled: (reason: unknown) => Error },
): Promise<T> {
  const { signal, cancelled } = caller;
  const waiters = sharedWaiters.get(work);
  if (waiters !== undefined) waiters.waiting++;
  return new Promise((resolve, reject) => {
    let left = false;
    const leave = (gaveUp: boolean) => {
      if (left) return;
      left = true;
      signal.removeEventListener("abort", onAbort);
      if (waiters === undefined) return;
      waiters.waiting--;
      if (gaveUp && waiters.waiting === 0 && !waiters.settled) {
        try {
          waiters.link.abort(signal.reason);
        } catch {
          // Workers: work of another request cannot be stopped from this one; its deadlines end it.
        }
      }
    };
    const onAbort = () => {
      reject(cancelled(signal.reason));
      leave(true);
    };
    work.then(resolve, reject).finally(() => leave(false));
    if (signal.aborted) void Promise.resolve().then(onAbort);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}
