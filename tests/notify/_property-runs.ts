// How many runs each property test makes: 300 by default, so `npm test` stays quick; set
// SLUICE_PROPERTY_RUNS (e.g. 10000) for a deeper run. Read defensively: workerd may have no
// process, and Deno without --allow-env refuses to read the environment.
export const PROPERTY_SEED = 20260728;

function readRuns(): number {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    const runs = Number(env?.SLUICE_PROPERTY_RUNS);
    return Number.isSafeInteger(runs) && runs > 0 ? runs : 300;
  } catch {
    return 300;
  }
}

export const PROPERTY_RUNS: number = readRuns();
