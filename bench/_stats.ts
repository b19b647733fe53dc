/**
 * Summaries of repeated runs: the median and the spread (min–max and the quartiles) of one figure,
 * and ratios taken run by run, so two contenders measured side by side in the same run are
 * compared with each other and not with a run of another moment.
 *
 * @module
 */

/** One figure over several runs. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** The lower quartile (linear interpolation). */
  readonly q1: number;
  /** The upper quartile (linear interpolation). */
  readonly q3: number;
  /** Every run's value, in run order. */
  readonly runs: readonly number[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (at - low);
}

/**
 * Summarizes the values of several runs.
 *
 * @param runs The runs' values, in run order.
 * @returns Median, min, max and quartiles (all `NaN` when there is no run).
 */
export function spreadOf(runs: readonly number[]): Spread {
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    runs: [...runs],
  };
}

/**
 * The ratio of two contenders run by run (`a[i] / b[i]`), summarized.
 *
 * @param a The numerator's runs.
 * @param b The denominator's runs, measured in the same runs as `a`.
 * @returns The spread of the per-run ratios.
 */
export function ratioOf(a: Spread, b: Spread): Spread {
  const n = Math.min(a.runs.length, b.runs.length);
  return spreadOf(Array.from({ length: n }, (_, i) => (a.runs[i] as number) / (b.runs[i] as number)));
}

/**
 * Maps every run's value (a unit change), keeping run order.
 *
 * @param spread The figure.
 * @param f The conversion.
 * @returns The converted figure (min and max swap when `f` is decreasing).
 */
export function mapSpread(spread: Spread, f: (value: number) => number): Spread {
  return spreadOf(spread.runs.map(f));
}

/** A least-squares line through points, and how well it fits. */
export interface LinearFit {
  readonly slope: number;
  readonly intercept: number;
  /** The coefficient of determination (1 is a perfect line). */
  readonly r2: number;
}

/**
 * Fits `y = slope * x + intercept` by least squares.
 *
 * @param points The points.
 * @returns The line and its R².
 */
export function linearFit(points: ReadonlyArray<{ readonly x: number; readonly y: number }>): LinearFit {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy) };
}
