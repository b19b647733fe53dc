// What code under test reports with console.error while a test runs: recorded instead of
// printed, on every runtime.
import { settle } from "./fake-time.ts";

/**
 * Runs `work` with `console.error` recorded, then lets pending microtasks run (a report made off
 * the connection lands after the work resolves) before putting `console.error` back.
 *
 * @param work The work under test.
 * @returns What `work` resolved to, and the arguments of each `console.error` call, in order.
 * @throws What `work` rejected with (`console.error` put back first).
 */
export async function recordingConsoleErrors<T>(
  work: () => Promise<T>,
): Promise<{ readonly value: T; readonly logged: unknown[][] }> {
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const value = await work();
    await settle();
    return { value, logged };
  } finally {
    console.error = original;
  }
}
