/**
 * A small SVG line-chart writer for the results: lines with point markers, min–max whiskers,
 * linear or logarithmic axes, and a legend. No dependencies; the output is a standalone file.
 *
 * @module
 */

/** One point: `lo` and `hi` draw a whisker (the results use the runs' interquartile range). */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  readonly lo?: number;
  readonly hi?: number;
}

/** One line. */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
  /** A CSS colour. @default one of the palette, in turn */
  readonly color?: string | undefined;
  /** An SVG `stroke-dasharray` (`"6 4"`). @default a solid line */
  readonly dash?: string | undefined;
}

/** A chart. */
export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  /** Logarithmic x axis. @default false */
  readonly logX?: boolean;
  /** Logarithmic y axis. @default false */
  readonly logY?: boolean;
  /** The x ticks. @default nice ticks over the data */
  readonly xTicks?: readonly number[];
}

/** Colours that stay apart for most kinds of colour blindness (Okabe–Ito). */
export const PALETTE: readonly string[] = [
  "#0072B2",
  "#D55E00",
  "#009E73",
  "#CC79A7",
  "#E69F00",
  "#56B4E9",
  "#000000",
  "#F0E442",
];

const W = 760;
const H = 420;
const M = { left: 78, right: 230, top: 44, bottom: 58 };

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

const dashOf = (s: ChartSeries) => (s.dash === undefined ? "" : ` stroke-dasharray="${s.dash}"`);

/** Nice linear ticks from 0 (or the minimum, if negative) to past the maximum. */
function linearTicks(min: number, max: number): number[] {
  const low = Math.min(0, min);
  const span = max - low || 1;
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let t = Math.floor(low / step) * step; t <= max + step * 0.999; t += step) {
    ticks.push(Number(t.toPrecision(12)));
  }
  return ticks;
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++) ticks.push(10 ** p);
  return ticks;
}

/** A short label: 1.5k, 2M, 0.25. */
export function shortNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

function scale(domain: readonly number[], range: [number, number], log: boolean): (v: number) => number {
  const f = log ? Math.log10 : (v: number) => v;
  const [d0, d1] = [f(domain[0] as number), f(domain[domain.length - 1] as number)];
  return (v) => range[0] + ((f(v) - d0) / (d1 - d0 || 1)) * (range[1] - range[0]);
}

/**
 * Renders a chart as SVG.
 *
 * @param chart Title, labels, series and axes.
 * @returns The SVG document.
 */
export function renderLineChart(chart: LineChart): string {
  const points = chart.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.y));
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.hi ?? p.y, p.lo ?? p.y]).filter((y) => Number.isFinite(y));
  const positive = ys.filter((y) => y > 0);
  const xTicks = chart.xTicks ??
    (chart.logX ? logTicks(Math.min(...xs), Math.max(...xs)) : linearTicks(Math.min(...xs), Math.max(...xs)));
  const yTicks = chart.logY
    ? logTicks(Math.min(...positive), Math.max(...positive))
    : linearTicks(Math.min(...ys), Math.max(...ys));
  const x = scale(xTicks, [M.left, W - M.right], chart.logX === true);
  const y = scale(yTicks, [H - M.bottom, M.top], chart.logY === true);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end">${shortNumber(t)}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${x(t)}" y="${H - M.bottom + 16}" text-anchor="middle">${shortNumber(t)}</text>`);
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${
      H - M.top - M.bottom
    }" fill="none" stroke="#888"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 14}" text-anchor="middle">${
      escape(chart.xLabel)
    }</text>`,
    `<text transform="translate(18 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${
      escape(chart.yLabel)
    }</text>`,
  );
  chart.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length] as string;
    const shown = s.points.filter((p) => Number.isFinite(p.y) && (!chart.logY || p.y > 0));
    const path = shown.map((p, k) => `${k === 0 ? "M" : "L"}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(
      " ",
    );
    out.push(
      `<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${dashOf(s)}/>`,
    );
    for (const p of shown) {
      if (p.lo !== undefined && p.hi !== undefined && (!chart.logY || p.lo > 0)) {
        out.push(
          `<line x1="${x(p.x)}" x2="${x(p.x)}" y1="${y(p.lo)}" y2="${
            y(p.hi)
          }" stroke="${color}" stroke-width="1.2"/>`,
        );
      }
      out.push(`<circle cx="${x(p.x)}" cy="${y(p.y)}" r="3" fill="${color}"/>`);
    }
    const ly = M.top + 8 + i * 18;
    out.push(
      `<line x1="${W - M.right + 14}" x2="${
        W - M.right + 40
      }" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${dashOf(s)}/>`,
      `<text x="${W - M.right + 46}" y="${ly + 4}">${escape(s.name)}</text>`,
    );
  });
  out.push("</svg>", "");
  return out.join("\n");
}
