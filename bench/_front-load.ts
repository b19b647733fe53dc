/**
 * Drives `calls` calls with `inFlight` of them at a time, and accounts for the CPU of every
 * process involved (this one, the bench client, and the helpers by pid).
 *
 * @module
 */
import { cpuSecondsOf, ownCpuSeconds } from "./_processes.ts";

/** One load run's figures. */
export interface LoadRun {
  /** Calls per second. */
  readonly rate: number;
  /** CPU seconds of all processes per wall second (1 = one core busy). */
  readonly cores: number;
  /** CPU microseconds per call: this process, then each pid in the order given. */
  readonly cpuUsPerCall: readonly number[];
}

/**
 * Runs the calls and measures them.
 *
 * @param calls How many calls.
 * @param inFlight How many at a time.
 * @param call Makes call `i` and resolves with its text (`String(i)` or an answer naming Ada).
 * @param pids The helper processes whose CPU counts too.
 * @returns Rate, cores busy and CPU per call per process.
 * @throws {Error} When a call's text is not what it should be.
 */
export async function runLoad(
  calls: number,
  inFlight: number,
  call: (i: number) => Promise<string>,
  pids: readonly number[],
): Promise<LoadRun> {
  let next = 0;
  const cpu = () => [ownCpuSeconds(), ...pids.map(cpuSecondsOf)];
  const before = cpu();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < calls) {
      const i = next++;
      const text = await call(i);
      if (text !== String(i) && !text.startsWith('{"name":"Ada"')) {
        throw new Error(`unexpected result ${text}`);
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = cpu().map((after, i) => after - (before[i] as number));
  return {
    rate: calls / seconds,
    cores: used.reduce((a, b) => a + b, 0) / seconds,
    cpuUsPerCall: used.map((s) => (s * 1e6) / calls),
  };
}
