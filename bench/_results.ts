/**
 * The shapes the suites write and `run.ts` reads: one {@linkcode SuiteResult} per runtime, and
 * the machine they ran on.
 *
 * @module
 */
import type { ChainRow } from "./chain.bench.ts";
import type { SanitizeRow } from "./sanitize.bench.ts";
import type { MemoryRow } from "./memory.bench.ts";
import type { MrtrRow } from "./mrtr.bench.ts";
import type { LegacyRow } from "./legacy.bench.ts";
import type { FrontRow } from "./front.bench.ts";
import type { WorkerFigures } from "./worker.bench.ts";
import type { ProfileSummary } from "./_cpu-profile.ts";

/** What one runtime's suite measured. */
export interface SuiteResult {
  readonly runtime: "node" | "deno" | "bun";
  readonly version: string;
  readonly quick: boolean;
  /** Wall-clock seconds per section. */
  readonly seconds: Readonly<Record<string, number>>;
  readonly sections: {
    chain?: ChainRow[] | undefined;
    sanitize?: SanitizeRow[] | undefined;
    memory?: MemoryRow[] | undefined;
    mrtr?: MrtrRow[] | undefined;
    legacy?: LegacyRow[] | undefined;
    front?: { cases: FrontRow[]; curve: FrontRow[] } | undefined;
    worker?: WorkerFigures | undefined;
  };
}

/** The machine and the tools. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly os: string;
  /** The 1-minute load average at the start and at the end of the run. */
  readonly loadBefore: number;
  readonly loadAfter: number;
  /** Tool name to version: node, deno, bun, workerd, the official packages. */
  readonly versions: Readonly<Record<string, string>>;
}

/** A whole run: the machine, each runtime's suite, and how long it all took. */
export interface RunResults {
  readonly machine: MachineInfo;
  readonly suites: readonly SuiteResult[];
  readonly quick: boolean;
  readonly startedAt: string;
  readonly seconds: number;
  /** CPU profiles of sluice's side of the scenarios behind missed targets. */
  readonly profiles: readonly ScenarioProfile[];
  /** Suites or profiles that failed (their figures are missing). */
  readonly failures: readonly string[];
}

/** One scenario behind missed targets: its figures, and its CPU profile when it has one. */
export interface ScenarioProfile {
  /** The `profile.ts` scenario, or a figures-only one (`chain-growth`). */
  readonly scenario: string;
  /** The missed targets it explains. */
  readonly explains: readonly string[];
  /** The profile's summary; absent for a scenario the run's own figures explain. */
  readonly summary?: ProfileSummary;
}
