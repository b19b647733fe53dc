// How many runs each property test makes, for every property test of the suite: 100 by default,
// so `npm test` stays quick on four runtimes; `SLUICE_PROPERTY_RUNS` (e.g. 10000, which
// `npm run properties` sets) for a deeper run, and `SLUICE_PROPERTY_SEED` to explore other inputs
// than the fixed seed's. Read defensively: workerd may have no `process`, and Deno without
// --allow-env throws on reading the environment.
//
// Every property test names its run count with `propertyName()`, so a report (and
// scripts/properties.ts) can tell how deep it ran.

/** Runs per property when `SLUICE_PROPERTY_RUNS` is not set. */
export const DEFAULT_PROPERTY_RUNS = 100;

function readEnvironment(name: string): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    return env?.[name];
  } catch {
    return undefined;
  }
}

function readPositiveInteger(name: string, fallback: number): number {
  const text = readEnvironment(name);
  const value = text === undefined || text.trim() === "" ? Number.NaN : Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/** The runs of every property: `SLUICE_PROPERTY_RUNS`, else {@linkcode DEFAULT_PROPERTY_RUNS}. */
export const PROPERTY_RUNS: number = readPositiveInteger("SLUICE_PROPERTY_RUNS", DEFAULT_PROPERTY_RUNS);

/** The seed of every property: `SLUICE_PROPERTY_SEED`, else a fixed one, so failures reproduce. */
export const PROPERTY_SEED: number = readPositiveInteger("SLUICE_PROPERTY_SEED", 20260728);

/** The fast-check parameters every property test passes to `fc.assert`. */
export const PROPERTY_SETTINGS: { readonly seed: number; readonly numRuns: number } = Object.freeze({
  seed: PROPERTY_SEED,
  numRuns: PROPERTY_RUNS,
});

/**
 * Names a property test with its run count, e.g. `sanitizeText() is stable (100 runs)`.
 *
 * @param name What the property states.
 * @returns The test name, ending in `(N runs)`.
 */
export function propertyName(name: string): string {
  return `${name} (${PROPERTY_RUNS} runs)`;
}
