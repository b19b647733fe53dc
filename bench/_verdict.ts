/**
 * A target's verdict on one runtime, and how figures are shown in verdicts.
 *
 * @module
 */
import type { SuiteResult } from "./_results.ts";
import type { Spread } from "./_stats.ts";

/** One target on one runtime. */
export interface Verdict {
  readonly runtime: string;
  readonly target: string;
  readonly measured: string;
  readonly ok: boolean;
  /** The profile scenario (`profile.ts`) that explains a miss, if one applies. */
  readonly profile?: string;
}

/**
 * `1.23 [1.10–1.31]`: the median and the min–max of the runs.
 *
 * @param spread The figure.
 * @param digits Decimals.
 * @param unit Appended to the median.
 * @returns The text.
 */
export function showSpread(spread: Spread, digits = 2, unit = ""): string {
  const f = (v: number) => v.toFixed(digits);
  return `${f(spread.median)}${unit} [${f(spread.min)}–${f(spread.max)}]`;
}

/**
 * The runtime's display name.
 *
 * @param suite A runtime's results.
 * @returns `Node`, `Deno` or `Bun`.
 */
export function runtimeLabel(suite: Pick<SuiteResult, "runtime">): string {
  return { node: "Node", deno: "Deno", bun: "Bun" }[suite.runtime];
}
